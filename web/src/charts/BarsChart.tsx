import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';

/** Horizontal bars, one per entry (slowest tests, slowest spec files), longest first. */
export default function BarsChart({
  data,
  color,
  format,
  label,
}: {
  data: { name: string; value: number }[];
  color: string;
  format: (value: number) => string;
  label: string;
}) {
  return (
    <BarChart
      h={Math.max(120, data.length * 30 + 40)}
      data={data}
      dataKey="name"
      orientation="vertical"
      series={[{ name: 'value', label, color }]}
      valueFormatter={format}
      xAxisProps={{ tickFormatter: format }}
      yAxisProps={{
        width: 260,
        tickFormatter: (value: string) => (value.length > 40 ? `${value.slice(0, 39)}…` : value),
      }}
      gridAxis="x"
      tickLine="none"
    />
  );
}
