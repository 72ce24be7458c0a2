/**
 * The runs of a project, newest first, with filters (branch, environment, status, date range, text) kept
 * in the URL. Live: while a run on the page is running the list is asked again every few seconds, so new
 * runs and their counts appear without a reload.
 */
import { Badge, Group, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useMemo } from 'react';
import { AnchorLink } from '../../components/AnchorLink';
import { filtersQuery, LIVE_INTERVAL_MS, type ProjectFilters, type RunListQuery } from '../../api/queries';
import { runsQuery } from './api';
import { FilterBar, type FilterField } from '../../components/FilterBar';
import { ListFooter } from '../../components/ListPages';
import { RunStatus, StatCounts } from '../../components/badges';
import { formatAgo, formatDuration, formatTime, shortSha } from '../../components/format';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { DATE_RANGES, type RunsSearch } from './search';

const route = getRouteApi('/signed-in/projects/$projectId/runs');

const PAGE_SIZE = 50;
const RANGE_LABELS: Record<(typeof DATE_RANGES)[number], string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
};
const RANGE_OPTIONS = DATE_RANGES.map((value) => ({ value, label: RANGE_LABELS[value] }));
const STATUS_OPTIONS = [
  { value: 'running', label: 'Running' },
  { value: 'finished', label: 'Finished' },
  { value: 'passed', label: 'Passed' },
  { value: 'failed', label: 'Failed' },
];
const RANGE_HOURS: Record<(typeof DATE_RANGES)[number], number> = {
  '24h': 24,
  '7d': 168,
  '30d': 720,
  '90d': 2160,
};

/** The filters, with the branches and environments the project's runs reported. */
function runFilters(known: ProjectFilters | undefined): FilterField<keyof RunsSearch>[] {
  return [
    {
      kind: 'text',
      key: 'search',
      label: 'Search',
      placeholder: 'Title, branch, commit, CI run (press /)',
      width: 280,
      main: true,
    },
    {
      kind: 'select',
      key: 'branch',
      label: 'Branch',
      placeholder: 'Any branch',
      options: known?.branches ?? [],
      width: 180,
      searchable: true,
    },
    {
      kind: 'select',
      key: 'environment',
      label: 'Environment',
      placeholder: 'Any environment',
      options: known?.environments ?? [],
      width: 170,
    },
    {
      kind: 'select',
      key: 'status',
      label: 'Status',
      placeholder: 'Any status',
      options: STATUS_OPTIONS,
      width: 140,
    },
    {
      kind: 'select',
      key: 'range',
      label: 'Started',
      placeholder: 'Any time',
      options: RANGE_OPTIONS,
      width: 160,
    },
  ];
}

export function RunsPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/runs' });

  const query = useMemo((): RunListQuery => {
    const end = new Date();
    const range = search.range
      ? {
          start_date: new Date(end.getTime() - RANGE_HOURS[search.range] * 3_600_000).toISOString(),
          end_date: end.toISOString(),
        }
      : {};
    return {
      page: search.page ?? 1,
      limit: PAGE_SIZE,
      ...(search.branch ? { branch: search.branch } : {}),
      ...(search.environment ? { environment: search.environment } : {}),
      ...(search.status ? { status: search.status } : {}),
      ...(search.search ? { search: search.search } : {}),
      ...range,
    };
  }, [search]);
  const runs = useQuery({ ...runsQuery(projectId, query), placeholderData: keepPreviousData });
  const filters = useQuery(filtersQuery(projectId));

  const fields = useMemo(() => runFilters(filters.data), [filters.data]);
  const setSearch = useCallback(
    (changes: Partial<RunsSearch>) =>
      void navigate({ search: (previous) => ({ ...previous, ...changes, page: undefined }) }),
    [navigate],
  );
  const live = runs.data?.data.some((run) => run.status === 'running') ?? false;
  const filtered = Boolean(
    search.branch || search.environment || search.status || search.range || search.search,
  );

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1} size="h2">
          Runs
        </Title>
        {live ? (
          <Tooltip label={`Refreshed every ${LIVE_INTERVAL_MS / 1000} s while a run is running`}>
            <Badge color="blue" variant="dot">
              Live
            </Badge>
          </Tooltip>
        ) : null}
      </Group>
      <FilterBar fields={fields} values={search} onChange={setSearch} />
      {runs.isPending ? (
        <LoadingState label="Loading runs…" />
      ) : runs.isError ? (
        <ErrorState error={runs.error} onRetry={() => void runs.refetch()} />
      ) : runs.data.data.length === 0 ? (
        filtered ? (
          <EmptyState title="No run matches these filters">Clear a filter to see more runs.</EmptyState>
        ) : (
          <EmptyState title="No runs yet">
            Send one with <code>@verdict/playwright-reporter</code>, <code>verdict import</code>, or the API (
            <code>POST /api/public/v1/{projectId}/test-runs</code>).
          </EmptyState>
        )
      ) : (
        <>
          <Table.ScrollContainer minWidth={900}>
            <Table highlightOnHover striped aria-label="Runs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Run</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Tests</Table.Th>
                  <Table.Th>Branch</Table.Th>
                  <Table.Th>Environment</Table.Th>
                  <Table.Th>Commit</Table.Th>
                  <Table.Th>Started</Table.Th>
                  <Table.Th ta="right">Duration</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {runs.data.data.map((run) => (
                  <Table.Tr key={run.id}>
                    <Table.Td maw={320}>
                      <AnchorLink
                        to="/projects/$projectId/runs/$runId"
                        params={{ projectId, runId: run.id }}
                        fw={600}
                        size="sm"
                        lineClamp={1}
                      >
                        #{run.counter} {run.title ?? ''}
                      </AnchorLink>
                    </Table.Td>
                    <Table.Td>
                      <RunStatus status={run.status} outcome={run.outcome} />
                    </Table.Td>
                    <Table.Td>
                      <StatCounts stats={run.stats} />
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" lineClamp={1}>
                        {run.branch ?? '—'}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{run.environment ?? '—'}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" className="mono" title={run.commit?.message ?? undefined}>
                        {shortSha(run.commit?.sha)}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" title={formatTime(run.startedAt)}>
                        {formatAgo(run.startedAt)}
                      </Text>
                    </Table.Td>
                    <Table.Td ta="right">
                      <Text size="sm">
                        {run.status === 'running' ? 'running' : formatDuration(run.durationMs)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
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
