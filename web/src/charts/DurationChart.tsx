import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';
import { formatDuration } from '../components/format';

export interface DurationPoint {
  label: string;
  durationMs: number;
  outcome: string;
}

const SERIES = [
  { name: 'passed', label: 'Passed', color: 'teal.6' },
  { name: 'flaky', label: 'Flaky', color: 'orange.6' },
  { name: 'failed', label: 'Failed', color: 'red.6' },
  { name: 'skipped', label: 'Skipped', color: 'gray.5' },
];

/** One bar per execution, its colour its outcome (a series each, stacked: one is non-zero), oldest first. */
export default function DurationChart({
  points,
  height = 180,
}: {
  points: DurationPoint[];
  height?: number;
}) {
  const data = points.map((point) => ({
    label: point.label,
    ...Object.fromEntries(
      SERIES.map((series) => [series.name, series.name === point.outcome ? point.durationMs : 0]),
    ),
  }));
  return (
    <BarChart
      h={height}
      data={data}
      dataKey="label"
      type="stacked"
      series={SERIES}
      valueFormatter={(value) => (value === 0 ? '' : formatDuration(value))}
      withXAxis={false}
      yAxisProps={{ tickFormatter: (value: number) => formatDuration(value) }}
      gridAxis="y"
      tickLine="none"
      withLegend
      legendProps={{ verticalAlign: 'bottom' }}
    />
  );
}
