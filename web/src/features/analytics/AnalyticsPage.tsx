/**
 * Analytics over a date range of the API (7 to 90 days): the summary of spec §4.7 (runs, flakiness, new
 * failures, durations) and execution performance as charts (durations over time, slowest tests and spec
 * files, platforms), with the period's PDF report to download.
 */
import { Grid, Skeleton, Stack } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { summaryQuery } from '../../api/queries';
import { ErrorState, LoadingState } from '../../components/states';
import { AnalyticsFilters } from './AnalyticsFilters';
import { performanceQuery } from './api';
import { performanceParams, summaryParams, type AnalyticsSearch } from './filters';
import { Performance } from './Performance';
import { SummaryFigures } from './SummaryFigures';
import { UniqueTests } from './UniqueTests';

const route = getRouteApi('/signed-in/projects/$projectId/analytics');

export function AnalyticsPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/analytics' });
  const range = search.range ?? '30d';
  const summary = useQuery(summaryQuery(projectId, summaryParams(range, search)));
  const performance = useQuery(performanceQuery(projectId, performanceParams(range, search)));
  const setSearch = (changes: Partial<AnalyticsSearch>) =>
    void navigate({ search: (previous) => ({ ...previous, ...changes }) });

  return (
    <Stack>
      <AnalyticsFilters projectId={projectId} range={range} search={search} setSearch={setSearch} />
      {summary.isPending ? (
        <LoadingState label="Loading the summary…" rows={3} />
      ) : summary.isError ? (
        <ErrorState error={summary.error} onRetry={() => void summary.refetch()} />
      ) : (
        <SummaryFigures metrics={summary.data.metrics} />
      )}
      {performance.isPending ? (
        <Skeleton height={260} />
      ) : performance.isError ? (
        <ErrorState error={performance.error} onRetry={() => void performance.refetch()} />
      ) : (
        <Performance performance={performance.data} />
      )}
      {summary.data ? (
        <Grid>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <UniqueTests
              title="New failures"
              tests={summary.data.uniqueNewFailures}
              empty="No test started failing in this range."
            />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <UniqueTests
              title="Flaky tests"
              tests={summary.data.uniqueFlakyTests}
              empty="No flaky test in this range."
            />
          </Grid.Col>
        </Grid>
      ) : null}
    </Stack>
  );
}
