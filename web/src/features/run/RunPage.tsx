/**
 * A run: its summary, its quality gate, what changed since its base ("Compared with"), its failures first (grouped by
 * error, each with its verdict against the base and a link to its error group), its flaky tests, then its
 * spec files as a tree; filtered by status, verdict, platform and text (kept in the URL). The list is virtualised, so a run of
 * 20,000 results renders the rows in view only; it is asked again every few seconds while the run runs.
 */
import { Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { getRouteApi } from '@tanstack/react-router';
import { runFailuresQuery, runQuery, type RunDetail } from '../../api/queries';
import { ErrorState, LoadingState } from '../../components/states';
import { ComparePanel } from './ComparePanel';
import { GatePanel } from './GatePanel';
import { RunFilters } from './RunFilters';
import { RunHeader } from './RunHeader';
import { RunSummary } from './RunSummary';
import { RunTestList } from './RunTestList';
import { useRunRows } from './useRunRows';
import { useRunSearch } from './useRunSearch';

const route = getRouteApi('/signed-in/projects/$projectId/runs/$runId');

function emptyMessage(run: RunDetail): string {
  if (run.stats.total > 0) return 'No test matches these filters.';
  return run.status === 'running'
    ? 'No results yet: they appear here as the run sends them.'
    : 'This run has no results.';
}

export function RunPage() {
  const { projectId, runId } = route.useParams();
  const filters = useRunSearch();
  const run = useQuery(runQuery(projectId, runId));
  const failures = useQuery({
    ...runFailuresQuery(projectId, runId, run.data?.status ?? 'running'),
    enabled: run.isSuccess,
  });
  const rows = useRunRows(run.data?.specs, filters.search, failures.data);
  const { base, baseBranch } = filters.search;

  if (run.isPending) return <LoadingState label="Loading the run…" rows={10} />;
  if (run.isError) return <ErrorState error={run.error} onRetry={() => void run.refetch()} />;
  const data = run.data;
  return (
    <Stack gap="md">
      <RunHeader projectId={projectId} runId={runId} run={data} />
      <RunSummary run={data} />
      <GatePanel run={data} projectId={projectId} runId={runId} failures={failures.data} />
      <ComparePanel
        projectId={projectId}
        runId={runId}
        choice={{ base, baseBranch }}
        onChoice={(choice) => filters.update(choice)}
      />
      <RunFilters filters={filters} platforms={rows.platforms} failures={failures.data} />
      {rows.rows.length === 0 ? (
        <Text c="dimmed" ta="center" py="xl">
          {emptyMessage(data)}
        </Text>
      ) : null}
      <RunTestList state={rows} projectId={projectId} runId={runId} />
    </Stack>
  );
}
