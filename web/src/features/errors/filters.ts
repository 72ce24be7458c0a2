/** The errors page's filter fields, and its URL search values turned into the API's query. */
import type { ReadQuery } from '../../api/client';
import type { ProjectFilters } from '../../api/queries';
import type { FilterField } from '../../components/filterFields';
import { ERROR_RANGES, type ErrorGroupSearch, type ErrorsSearch } from './search';

export type ErrorsQuery = ReadQuery<'/{projectId}/errors'>;
export type ErrorGroupQuery = ReadQuery<'/{projectId}/errors/{signatureId}'>;

export const PAGE_SIZE = 25;
/** The API's own default window, which the page shows when no range is picked. */
export const DEFAULT_RANGE = '30d';

const RANGE_LABELS: Record<(typeof ERROR_RANGES)[number], string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '14d': 'Last 14 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
};
const RANGE_HOURS: Record<(typeof ERROR_RANGES)[number], number> = {
  '24h': 24,
  '7d': 168,
  '14d': 336,
  '30d': 720,
  '90d': 2160,
};

/** The filters, with the branches and environments the project's runs reported. */
export function errorFilters(known: ProjectFilters | undefined): FilterField<keyof ErrorsSearch>[] {
  return [
    {
      kind: 'text',
      key: 'search',
      label: 'Search',
      placeholder: 'Message, signature or file (press /)',
      width: 300,
      main: true,
    },
    {
      kind: 'select',
      key: 'range',
      label: 'Seen',
      placeholder: RANGE_LABELS[DEFAULT_RANGE],
      options: ERROR_RANGES.map((value) => ({ value, label: RANGE_LABELS[value] })),
      width: 160,
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
  ];
}

export const rangeLabel = (range: ErrorsSearch['range']) => RANGE_LABELS[range ?? DEFAULT_RANGE];

/** The range, branch and environment as the API's query: the window ends at `now`. */
export function groupQuery(search: ErrorGroupSearch, now: Date): ErrorGroupQuery {
  const hours = RANGE_HOURS[search.range ?? DEFAULT_RANGE];
  return {
    start_date: new Date(now.getTime() - hours * 3_600_000).toISOString(),
    end_date: now.toISOString(),
    ...(search.branch ? { branch: search.branch } : {}),
    ...(search.environment ? { environment: search.environment } : {}),
  };
}

/** The list's query: the page, the sort and the filters set. */
export function errorsQuery(search: ErrorsSearch, now: Date): ErrorsQuery {
  return {
    ...groupQuery(search, now),
    page: search.page ?? 1,
    limit: PAGE_SIZE,
    sortBy: search.sortBy ?? 'occurrences',
    sortOrder: search.order ?? 'desc',
    ...(search.search ? { search: search.search } : {}),
  };
}

/** Whether any filter narrows the list (the page, the sort and the range do not). */
export const isFiltered = (search: ErrorsSearch) =>
  Boolean(search.branch || search.environment || search.search);
