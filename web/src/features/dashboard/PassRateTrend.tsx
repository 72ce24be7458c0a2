/** The pass and flaky rates over the last 30 days, as a chart loaded when needed. */
import { Card, Skeleton, Title } from '@mantine/core';
import { Suspense } from 'react';
import type { Dashboard } from '../../api/queries';
import { TrendChart } from '../../charts';

export function PassRateTrend({ trend }: { trend: Dashboard['passRateTrend'] }) {
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="xs">
        Pass rate, last 30 days
      </Title>
      <Suspense fallback={<Skeleton height={220} />}>
        <TrendChart
          data={trend.map((point) => ({
            date: point.date.slice(5, 10),
            passRate: point.passRate,
            flakyRate: point.flakyRate,
          }))}
          series={[
            { name: 'passRate', label: 'Pass rate', color: 'teal.6' },
            { name: 'flakyRate', label: 'Flaky rate', color: 'orange.6' },
          ]}
          format={(value) => `${Math.round(value)}%`}
          domain={[0, 100]}
        />
      </Suspense>
    </Card>
  );
}
