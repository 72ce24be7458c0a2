/** Execution performance: durations over time, the slowest tests and spec files, the platforms. */
import { Card, Grid, Skeleton, Table, Text, Title } from '@mantine/core';
import { Suspense } from 'react';
import type { ExecutionPerformance } from '../../api/queries';
import { BarsChart, TrendChart } from '../../charts';
import { formatDuration, formatNumber } from '../../components/format';

function DurationTrend({ trend }: { trend: ExecutionPerformance['durationTrend'] }) {
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Durations over time
      </Title>
      <Suspense fallback={<Skeleton height={220} />}>
        <TrendChart
          data={trend.map((point) => ({
            date: point.date.slice(5, 10),
            avgRunDurationMs: point.avgRunDurationMs,
            avgTestDurationMs: point.avgTestDurationMs,
          }))}
          series={[
            { name: 'avgRunDurationMs', label: 'Average run', color: 'blue.6' },
            { name: 'avgTestDurationMs', label: 'Average test', color: 'grape.6' },
          ]}
          format={formatDuration}
        />
      </Suspense>
    </Card>
  );
}

interface Bars {
  title: string;
  data: { name: string; value: number }[];
  color: string;
  label: string;
}

function SlowestBars({ title, data, color, label }: Bars) {
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        {title}
      </Title>
      {data.length === 0 ? (
        <Text size="sm" c="dimmed">
          No execution in this range.
        </Text>
      ) : (
        <Suspense fallback={<Skeleton height={200} />}>
          <BarsChart data={data} color={color} format={formatDuration} label={label} />
        </Suspense>
      )}
    </Card>
  );
}

function Platforms({ platforms }: { platforms: ExecutionPerformance['platforms'] }) {
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Platforms
      </Title>
      <Table>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Platform</Table.Th>
            <Table.Th ta="right">Executions</Table.Th>
            <Table.Th ta="right">Average duration</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {platforms.map((platform) => (
            <Table.Tr key={platform.platform}>
              <Table.Td>{platform.platform || '(none)'}</Table.Td>
              <Table.Td ta="right">{formatNumber(platform.executions)}</Table.Td>
              <Table.Td ta="right">{formatDuration(platform.avgDurationMs)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

export function Performance({ performance }: { performance: ExecutionPerformance }) {
  return (
    <>
      <DurationTrend trend={performance.durationTrend} />
      <Grid>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <SlowestBars
            title="Slowest tests (average)"
            data={performance.slowestTests.map((test) => ({
              name: test.fullTitle,
              value: test.avgDurationMs,
            }))}
            color="blue.6"
            label="Average duration"
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <SlowestBars
            title="Slowest spec files (total)"
            data={performance.slowestSpecs.map((spec) => ({
              name: spec.filePath,
              value: spec.totalDurationMs,
            }))}
            color="violet.6"
            label="Total duration"
          />
        </Grid.Col>
      </Grid>
      {performance.platforms.length > 0 ? <Platforms platforms={performance.platforms} /> : null}
    </>
  );
}
