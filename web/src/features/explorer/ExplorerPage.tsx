/**
 * The test case explorer (spec §4.6): every test case with its executions, failure and flaky rates and
 * average duration over a lookback window, filtered and sorted as the API allows, a page at a time.
 */
import { Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useMemo } from 'react';
import { AnchorLink } from '../../components/AnchorLink';
import { explorerQuery, filtersQuery, type ProjectFilters } from '../../api/queries';
import { FilterBar, type FilterField } from '../../components/FilterBar';
import { ListFooter } from '../../components/ListPages';
import { StatusBadge } from '../../components/badges';
import { formatAgo, formatDuration, formatPercent, formatTime } from '../../components/format';
import { SortHeader } from '../../components/SortHeader';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { EXPLORER_STATUSES, type ExplorerSearch } from './search';

const route = getRouteApi('/signed-in/projects/$projectId/explorer');

const PAGE_SIZE = 50;
type Sort = 'lastExecution' | 'failRate' | 'avgDuration' | 'flakyRate';

/** The filters, with the values the project's runs reported (platforms, environments, spec files). */
function explorerFilters(known: ProjectFilters | undefined): FilterField<keyof ExplorerSearch>[] {
  return [
    {
      kind: 'text',
      key: 'search',
      label: 'Search',
      placeholder: 'Title or spec file (press /)',
      width: 260,
      main: true,
    },
    {
      kind: 'select',
      key: 'status',
      label: 'Status in the window',
      placeholder: 'Any',
      options: [...EXPLORER_STATUSES],
      width: 150,
    },
    {
      kind: 'select',
      key: 'platform',
      label: 'Platform',
      placeholder: 'Any',
      options: known?.platforms ?? [],
      width: 150,
    },
    {
      kind: 'select',
      key: 'environment',
      label: 'Environment',
      placeholder: 'Any',
      options: known?.environments ?? [],
      width: 150,
    },
    {
      kind: 'select',
      key: 'specFilePath',
      label: 'Spec file',
      placeholder: 'Any',
      options: known?.specFiles ?? [],
      width: 240,
      searchable: true,
    },
    { kind: 'number', key: 'days', label: 'Days', min: 1, max: 365, fallback: 30, width: 90 },
  ];
}

export function ExplorerPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/explorer' });
  const sortBy = search.sortBy ?? 'lastExecution';
  const order = search.order ?? 'desc';
  const explorer = useQuery({
    ...explorerQuery(projectId, {
      page: search.page ?? 1,
      limit: PAGE_SIZE,
      sortBy,
      order,
      days: search.days ?? 30,
      ...(search.search ? { search: search.search } : {}),
      ...(search.status ? { status: search.status } : {}),
      ...(search.platform ? { platform: search.platform } : {}),
      ...(search.environment ? { environment: search.environment } : {}),
      ...(search.specFilePath ? { specFilePath: search.specFilePath } : {}),
    }),
    placeholderData: keepPreviousData,
  });
  const filters = useQuery(filtersQuery(projectId));
  const fields = useMemo(() => explorerFilters(filters.data), [filters.data]);
  const setSearch = useCallback(
    (changes: Partial<ExplorerSearch>) =>
      void navigate({ search: (previous) => ({ ...previous, ...changes, page: undefined }) }),
    [navigate],
  );
  const sort = (column: Sort) =>
    setSearch({ sortBy: column, order: sortBy === column && order === 'desc' ? 'asc' : 'desc' });

  return (
    <Stack>
      <Title order={1} size="h2">
        Test case explorer
      </Title>
      <FilterBar fields={fields} values={search} onChange={setSearch} />
      {explorer.isPending ? (
        <LoadingState label="Loading test cases…" />
      ) : explorer.isError ? (
        <ErrorState error={explorer.error} onRetry={() => void explorer.refetch()} />
      ) : explorer.data.testCases.length === 0 ? (
        <EmptyState title="No test case in this window">
          Widen the window or clear a filter; test cases appear once a run reports them.
        </EmptyState>
      ) : (
        <>
          <Table.ScrollContainer minWidth={960}>
            <Table striped highlightOnHover aria-label="Test cases">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Test case</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th ta="right">Executions</Table.Th>
                  <SortHeader
                    label="Fail rate"
                    active={sortBy === 'failRate'}
                    order={order}
                    onSort={() => sort('failRate')}
                    align="right"
                  />
                  <SortHeader
                    label="Flaky rate"
                    active={sortBy === 'flakyRate'}
                    order={order}
                    onSort={() => sort('flakyRate')}
                    align="right"
                  />
                  <SortHeader
                    label="Avg duration"
                    active={sortBy === 'avgDuration'}
                    order={order}
                    onSort={() => sort('avgDuration')}
                    align="right"
                  />
                  <SortHeader
                    label="Last run"
                    active={sortBy === 'lastExecution'}
                    order={order}
                    onSort={() => sort('lastExecution')}
                  />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {explorer.data.testCases.map((test) => (
                  <Table.Tr key={test.testCaseId}>
                    <Table.Td maw={420}>
                      <AnchorLink
                        to="/projects/$projectId/runs/$runId/tests/$caseId"
                        params={{ projectId, runId: test.lastRun.testRunId, caseId: test.testCaseId }}
                        size="sm"
                        lineClamp={1}
                      >
                        {test.fullTitle}
                      </AnchorLink>
                      <Group gap={4}>
                        <Text size="xs" c="dimmed" className="mono" lineClamp={1}>
                          {test.specName}
                        </Text>
                        {test.platforms.map((platform) => (
                          <Badge key={platform} variant="outline" color="gray" size="xs">
                            {platform}
                          </Badge>
                        ))}
                      </Group>
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge status={test.status} size="xs" />
                    </Table.Td>
                    <Table.Td ta="right">{test.executions}</Table.Td>
                    <Table.Td ta="right">{formatPercent(test.failureRate)}</Table.Td>
                    <Table.Td ta="right">{formatPercent(test.flakyRate)}</Table.Td>
                    <Table.Td ta="right">{formatDuration(test.avgDuration)}</Table.Td>
                    <Table.Td>
                      <Text size="xs" title={formatTime(test.lastRun.timestamp)}>
                        #{test.lastRun.counter} · {formatAgo(test.lastRun.timestamp)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          <ListFooter
            summary={`${explorer.data.pagination.total.toLocaleString()} test cases over ${explorer.data.appliedFilters.days} days`}
            total={explorer.data.pagination.total}
            pageSize={PAGE_SIZE}
            page={search.page}
            onPage={(page) => void navigate({ search: (previous) => ({ ...previous, page }) })}
          />
        </>
      )}
    </Stack>
  );
}
