/** The project at a glance (API.md's dashboard): totals, the last 30 days, the pass-rate trend, recent runs, worst tests. */
import { Grid, Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { dashboardQuery } from './api';
import { DashboardFigures } from './DashboardFigures';
import { PassRateTrend } from './PassRateTrend';
import { RankedList } from './RankedList';
import { RecentRuns } from './RecentRuns';

const route = getRouteApi('/signed-in/projects/$projectId/dashboard');

export function DashboardPage() {
  const { projectId } = route.useParams();
  const dashboard = useQuery(dashboardQuery(projectId));
  if (dashboard.isPending) return <LoadingState label="Loading the dashboard…" />;
  if (dashboard.isError)
    return <ErrorState error={dashboard.error} onRetry={() => void dashboard.refetch()} />;
  const data = dashboard.data;
  return (
    <Stack>
      <Title order={1} size="h2">
        Dashboard
      </Title>
      {data.totals.runs === 0 ? (
        <EmptyState title="Nothing to show yet">The dashboard fills in as runs are reported.</EmptyState>
      ) : (
        <>
          <DashboardFigures data={data} />
          <PassRateTrend trend={data.passRateTrend} />
          <Grid>
            <Grid.Col span={{ base: 12, lg: 6 }}>
              <RankedList title="Most flaky" tests={data.topFlakyTests} projectId={projectId} unit="flaky" />
            </Grid.Col>
            <Grid.Col span={{ base: 12, lg: 6 }}>
              <RankedList
                title="Most failing"
                tests={data.topFailingTests}
                projectId={projectId}
                unit="failed"
              />
            </Grid.Col>
          </Grid>
          <RecentRuns runs={data.recentRuns} projectId={projectId} />
        </>
      )}
    </Stack>
  );
}
