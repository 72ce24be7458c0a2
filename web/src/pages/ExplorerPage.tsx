/**
 * The test case explorer (spec §4.6): every test case with its executions, failure and flaky rates and
 * average duration over a lookback window, filtered and sorted as the API allows, a page at a time.
 */
import {
  Badge,
  Group,
  NumberInput,
  Pagination,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedCallback, useHotkeys } from '@mantine/hooks';
import { IconSearch } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useRef } from 'react';
import { AnchorLink } from '../components/AnchorLink';
import { explorerQuery, filtersQuery } from '../api/queries';
import { StatusBadge } from '../components/badges';
import { formatAgo, formatDuration, formatPercent, formatTime } from '../components/format';
import { SortHeader } from '../components/SortHeader';
import { EmptyState, ErrorState, LoadingState } from '../components/states';
import { EXPLORER_STATUSES, explorerRoute } from '../router';

const PAGE_SIZE = 50;
type Sort = 'lastExecution' | 'failRate' | 'avgDuration' | 'flakyRate';

export function ExplorerPage() {
  const { projectId } = explorerRoute.useParams();
  const search = explorerRoute.useSearch();
  const navigate = useNavigate({ from: explorerRoute.fullPath });
  const searchInput = useRef<HTMLInputElement>(null);
  useHotkeys([['/', () => searchInput.current?.focus()]]);
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
  const setSearch = (changes: Partial<typeof search>) =>
    void navigate({ search: (previous) => ({ ...previous, ...changes, page: undefined }) });
  const setText = useDebouncedCallback((value: string) => setSearch({ search: value || undefined }), 300);
  const sort = (column: Sort) =>
    setSearch({ sortBy: column, order: sortBy === column && order === 'desc' ? 'asc' : 'desc' });

  return (
    <Stack>
      <Title order={1} size="h2">
        Test case explorer
      </Title>
      <Group gap="sm" align="flex-end" role="search">
        <TextInput
          ref={searchInput}
          label="Search"
          placeholder="Title or spec file (press /)"
          leftSection={<IconSearch size={14} />}
          defaultValue={search.search ?? ''}
          onChange={(event) => setText(event.currentTarget.value)}
          w={260}
        />
        <Select
          label="Status in the window"
          placeholder="Any"
          data={[...EXPLORER_STATUSES]}
          value={search.status ?? null}
          onChange={(value) => setSearch({ status: (value as typeof search.status) ?? undefined })}
          clearable
          w={150}
        />
        <Select
          label="Platform"
          placeholder="Any"
          data={filters.data?.platforms ?? []}
          value={search.platform ?? null}
          onChange={(value) => setSearch({ platform: value ?? undefined })}
          clearable
          w={150}
        />
        <Select
          label="Environment"
          placeholder="Any"
          data={filters.data?.environments ?? []}
          value={search.environment ?? null}
          onChange={(value) => setSearch({ environment: value ?? undefined })}
          clearable
          w={150}
        />
        <Select
          label="Spec file"
          placeholder="Any"
          data={filters.data?.specFiles ?? []}
          value={search.specFilePath ?? null}
          onChange={(value) => setSearch({ specFilePath: value ?? undefined })}
          clearable
          searchable
          w={240}
        />
        <NumberInput
          label="Days"
          min={1}
          max={365}
          value={search.days ?? 30}
          onChange={(value) =>
            typeof value === 'number' && value >= 1 && value <= 365 && setSearch({ days: value })
          }
          w={90}
        />
      </Group>
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
          <Group justify="space-between">
            <Text size="sm" c="dimmed">
              {explorer.data.pagination.total.toLocaleString()} test cases over{' '}
              {explorer.data.appliedFilters.days} days
            </Text>
            <Pagination
              total={Math.max(1, Math.ceil(explorer.data.pagination.total / PAGE_SIZE))}
              value={search.page ?? 1}
              onChange={(page) =>
                void navigate({
                  search: (previous) => ({ ...previous, page: page === 1 ? undefined : page }),
                })
              }
              size="sm"
              getControlProps={(control) => ({ 'aria-label': `${control} page` })}
            />
          </Group>
        </>
      )}
    </Stack>
  );
}
