/**
 * Errors: failed attempts across runs grouped by error signature (the message normalised and the first
 * frame of the project's own code), most frequent first, with the filters, the sort and the page in the
 * URL. Each group opens its page: the tests and runs it hit.
 */
import { Stack, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { useCallback, useMemo } from 'react';
import { filtersQuery } from '../../api/queries';
import { FilterBar } from '../../components/FilterBar';
import { ListFooter } from '../../components/ListPages';
import { EmptyState, ErrorState, LoadingState } from '../../components/states';
import { errorGroupsQuery } from './api';
import { ErrorsTable } from './ErrorsTable';
import { errorFilters, errorsQuery, isFiltered, PAGE_SIZE, rangeLabel } from './filters';
import type { ErrorsSearch } from './search';

const route = getRouteApi('/signed-in/projects/$projectId/errors');

/** Counts read high to low first, dates newest first; a second click turns the order round. */
function nextSort(search: ErrorsSearch, by: NonNullable<ErrorsSearch['sortBy']>): Partial<ErrorsSearch> {
  const current = search.sortBy ?? 'occurrences';
  const order = current === by ? ((search.order ?? 'desc') === 'desc' ? 'asc' : 'desc') : 'desc';
  return {
    sortBy: by === 'occurrences' ? undefined : by,
    order: order === 'desc' ? undefined : order,
    page: undefined,
  };
}

export function ErrorsPage() {
  const { projectId } = route.useParams();
  const search = route.useSearch();
  const navigate = useNavigate({ from: '/projects/$projectId/errors' });

  const query = useMemo(() => errorsQuery(search, new Date()), [search]);
  const errors = useQuery({ ...errorGroupsQuery(projectId, query), placeholderData: keepPreviousData });
  const known = useQuery(filtersQuery(projectId));
  const fields = useMemo(() => errorFilters(known.data), [known.data]);
  const setSearch = useCallback(
    (changes: Partial<ErrorsSearch>) =>
      void navigate({ search: (previous) => ({ ...previous, ...changes, page: undefined }) }),
    [navigate],
  );
  const sort = {
    by: search.sortBy ?? 'occurrences',
    order: search.order ?? 'desc',
    onSort: (by: NonNullable<ErrorsSearch['sortBy']>) =>
      void navigate({ search: (previous) => ({ ...previous, ...nextSort(search, by) }) }),
  };
  const filters = { range: search.range, branch: search.branch, environment: search.environment };

  return (
    <Stack>
      <Title order={1} size="h2">
        Errors
      </Title>
      <Text size="sm" c="dimmed">
        Failed attempts grouped by their error: the message with numbers, ids, times and paths set aside, and
        where in your code it was thrown. {rangeLabel(search.range)}.
      </Text>
      <FilterBar fields={fields} values={search} onChange={setSearch} />
      {errors.isPending ? (
        <LoadingState label="Loading errors…" />
      ) : errors.isError ? (
        <ErrorState error={errors.error} onRetry={() => void errors.refetch()} />
      ) : errors.data.data.length === 0 ? (
        isFiltered(search) ? (
          <EmptyState title="No error matches these filters">Clear a filter to see more errors.</EmptyState>
        ) : (
          <EmptyState title="No errors in this period">No test failed here: nothing to group.</EmptyState>
        )
      ) : (
        <>
          <ErrorsTable groups={errors.data.data} projectId={projectId} filters={filters} sort={sort} />
          <ListFooter
            summary={`${errors.data.pagination.total.toLocaleString()} error groups`}
            total={errors.data.pagination.total}
            pageSize={PAGE_SIZE}
            page={search.page}
            onPage={(page) => void navigate({ search: (previous) => ({ ...previous, page }) })}
          />
        </>
      )}
    </Stack>
  );
}
