import '@mantine/charts/styles.css';
import { Sparkline as MantineSparkline } from '@mantine/charts';

/** A small trend of counts per day, oldest first (the errors list's daily occurrences). */
export default function Sparkline({ values, color = 'red.6' }: { values: number[]; color?: string }) {
  return (
    <MantineSparkline
      w={120}
      h={28}
      data={values}
      curveType="linear"
      color={color}
      fillOpacity={0.35}
      strokeWidth={1.5}
    />
  );
}
