/** The period's figures: runs, pass rate, test cases, flaky, new failures, average run, slow threshold. */
import { SimpleGrid } from '@mantine/core';
import type { AnalyticsSummary } from '../../api/queries';
import { Figure } from '../../components/Figure';
import { formatDuration, formatNumber, formatPercent } from '../../components/format';

export function SummaryFigures({ metrics }: { metrics: AnalyticsSummary['metrics'] }) {
  return (
    <SimpleGrid cols={{ base: 2, md: 4, lg: 7 }} spacing="xs">
      <Figure label="Runs" value={formatNumber(metrics.totalRuns)} hint={`${metrics.avgRunsPerDay} a day`} />
      <Figure
        label="Run pass rate"
        value={formatPercent(metrics.totalRuns ? (100 * metrics.passedRuns) / metrics.totalRuns : null)}
        hint={`${metrics.failedRuns} failed`}
      />
      <Figure label="Test cases" value={formatNumber(metrics.totalTestCases)} />
      <Figure
        label="Flaky"
        value={formatNumber(metrics.flaky.totalFlakyTestCases)}
        hint={`${formatPercent(metrics.flaky.flakinessPercentage)} of test cases`}
        tone={metrics.flaky.totalFlakyTestCases ? 'orange' : undefined}
      />
      <Figure
        label="New failures"
        value={formatNumber(metrics.newFailures.totalNewFailures)}
        hint={`${formatPercent(metrics.newFailures.newFailuresPercentage)} of test cases`}
        tone={metrics.newFailures.totalNewFailures ? 'red' : undefined}
      />
      <Figure label="Avg run" value={formatDuration(metrics.avgExecutionTime)} />
      <Figure
        label="Slow tests take"
        value={`> ${formatDuration(metrics.durationThresholds.slow)}`}
        hint={`fast: under ${formatDuration(metrics.durationThresholds.fast)}`}
      />
    </SimpleGrid>
  );
}
