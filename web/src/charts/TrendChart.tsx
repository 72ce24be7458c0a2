import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';

export interface TrendSeries {
  name: string;
  label: string;
  color: string;
}

/** Values per day (pass rate, durations…); a day without a value leaves a gap, not a zero. */
export default function TrendChart({
  data,
  series,
  format,
  height = 220,
  domain,
}: {
  data: Record<string, string | number | null>[];
  series: TrendSeries[];
  format: (value: number) => string;
  height?: number;
  domain?: [number, number];
}) {
  return (
    <LineChart
      h={height}
      data={data}
      dataKey="date"
      series={series}
      curveType="monotone"
      connectNulls={false}
      valueFormatter={format}
      yAxisProps={{ tickFormatter: format, ...(domain ? { domain } : {}) }}
      gridAxis="y"
      tickLine="none"
      withLegend={series.length > 1}
      withDots={data.length <= 31}
    />
  );
}
