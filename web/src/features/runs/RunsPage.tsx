/**
 * The runs of a project, newest first, with filters (branch, environment, status, date range, text) kept
 * in the URL. Live: while a run on the page is running the list is asked again every few seconds, so new
 * runs and their counts appear without a reload.
 */
import { Badge, Group, Stack, Title, Tooltip } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useMemo } from 'react';
import { filtersQuery, LIVE_INTERVAL_MS } from '../../api/queries';
import { FilterBar } from '../../components/FilterBar';
import { ListFooter } from '../../components/ListPages';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { LoadDemoData } from '../demo/LoadDemoData';
import { runsQuery } from './api';
import { isFiltered, PAGE_SIZE, runFilters, runListQuery } from './filters';
import { RunsTable } from './RunsTable';
import type { RunsSearch } from './search';

const route = getRouteApi('/signed-in/projects/$projectId/runs');

function NoRuns({ projectId, filtered }: { projectId: string; filtered: boolean }) {
  return filtered ? (
    <EmptyState title="No run matches these filters">Clear a filter to see more runs.</EmptyState>
  ) : (
    <EmptyState title="No runs yet">
      Send one with <code>@verdict/playwright-reporter</code>, <code>npx @verdict/cli import</code>, or the
      API (<code>POST /api/public/v1/{projectId}/test-runs</code>).
      <LoadDemoData projectId={projectId} />
    </EmptyState>
  );
}

function LiveBadge() {
  return (
    <Tooltip label={`Refreshed every ${LIVE_INTERVAL_MS / 1000} s while a run is running`}>
      <Badge color="blue" variant="dot">
        Live
      </Badge>
    </Tooltip>
  );
}

export function RunsPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/runs' });

  const query = useMemo(() => runListQuery(search, new Date()), [search]);
  const runs = useQuery({ ...runsQuery(projectId, query), placeholderData: keepPreviousData });
  const filters = useQuery(filtersQuery(projectId));

  const fields = useMemo(() => runFilters(filters.data), [filters.data]);
  const setSearch = useCallback(
    (changes: Partial<RunsSearch>) =>
      void navigate({ search: (previous) => ({ ...previous, ...changes, page: undefined }) }),
    [navigate],
  );
  const live = runs.data?.data.some((run) => run.status === 'running') ?? false;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Runs
        </Title>
        {live ? <LiveBadge /> : null}
      </Group>
      <FilterBar fields={fields} values={search} onChange={setSearch} />
      {runs.isPending ? (
        <LoadingState label="Loading runs…" />
      ) : runs.isError ? (
        <ErrorState error={runs.error} onRetry={() => void runs.refetch()} />
      ) : runs.data.data.length === 0 ? (
        <NoRuns projectId={projectId} filtered={isFiltered(search)} />
      ) : (
        <>
          <RunsTable runs={runs.data.data} projectId={projectId} />
          <ListFooter
            summary={`${runs.data.pagination.total.toLocaleString()} runs`}
            total={runs.data.pagination.total}
            pageSize={PAGE_SIZE}
            page={search.page}
            onPage={(page) => void navigate({ search: (previous) => ({ ...previous, page }) })}
          />
        </>
      )}
    </Stack>
  );
}
