/**
 * The test case explorer (spec §4.6): every test case with its executions, failure and flaky rates and
 * average duration over a lookback window, filtered and sorted as the API allows, a page at a time.
 */
import { Stack, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useMemo } from 'react';
import { explorerQuery, filtersQuery } from '../../api/queries';
import { FilterBar } from '../../components/FilterBar';
import { ListFooter } from '../../components/ListPages';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { ExplorerTable } from './ExplorerTable';
import { explorerFilters, explorerListQuery, PAGE_SIZE } from './filters';
import type { ExplorerSearch } from './search';

const route = getRouteApi('/signed-in/projects/$projectId/explorer');

interface FilterBarProps {
  projectId: string;
  search: ExplorerSearch;
  onChange: (changes: Partial<ExplorerSearch>) => void;
}

/** The filters, with the values the project's runs reported. */
function ExplorerFilterBar({ projectId, search, onChange }: FilterBarProps) {
  const filters = useQuery(filtersQuery(projectId));
  const fields = useMemo(() => explorerFilters(filters.data), [filters.data]);
  return <FilterBar fields={fields} values={search} onChange={onChange} />;
}

export function ExplorerPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/explorer' });
  const explorer = useQuery({
    ...explorerQuery(projectId, explorerListQuery(search)),
    placeholderData: keepPreviousData,
  });
  const setSearch = useCallback(
    (changes: Partial<ExplorerSearch>) =>
      void navigate({ search: (previous) => ({ ...previous, ...changes, page: undefined }) }),
    [navigate],
  );

  return (
    <Stack>
      <Title order={1} size="h2">
        Test case explorer
      </Title>
      <ExplorerFilterBar projectId={projectId} search={search} onChange={setSearch} />
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
          <ExplorerTable
            tests={explorer.data.testCases}
            projectId={projectId}
            sortBy={search.sortBy ?? 'lastExecution'}
            order={search.order ?? 'desc'}
            onSort={setSearch}
          />
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
