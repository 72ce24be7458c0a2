/** The project's figures: runs and failed runs, pass and flaky rates over 30 days, average run, test cases. */
import { SimpleGrid } from '@mantine/core';
import type { Dashboard } from '../../api/queries';
import { Figure } from '../../components/Figure';
import { formatDuration, formatNumber, formatPercent } from '../../components/format';

export function DashboardFigures({ data }: { data: Dashboard }) {
  const last = data.last30Days;
  return (
    <SimpleGrid cols={{ base: 2, md: 3, lg: 6 }} spacing="xs">
      <Figure
        label="Runs, 30 days"
        value={formatNumber(last.runs)}
        hint={`${formatNumber(data.totals.runs)} in all`}
      />
      <Figure
        label="Failed runs"
        value={formatNumber(last.failedRuns)}
        hint={`${formatNumber(last.passedRuns)} passed`}
        tone={last.failedRuns ? 'red' : undefined}
      />
      <Figure label="Pass rate" value={formatPercent(last.passRate)} hint="of executions, 30 days" />
      <Figure
        label="Flaky rate"
        value={formatPercent(last.flakyRate)}
        hint="of executions, 30 days"
        tone={last.flakyRate ? 'orange' : undefined}
      />
      <Figure label="Avg run" value={formatDuration(last.avgRunDurationMs)} />
      <Figure
        label="Test cases"
        value={formatNumber(data.totals.testCases)}
        hint={`${formatNumber(data.totals.executions)} executions`}
      />
    </SimpleGrid>
  );
}
