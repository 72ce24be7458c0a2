/** The runs page's filter fields, and its URL search values turned into the list's query. */
import type { ProjectFilters, RunListQuery } from '../../api/queries';
import type { FilterField } from '../../components/filterFields';
import { DATE_RANGES, type RunsSearch } from './search';

export const PAGE_SIZE = 50;
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
export function runFilters(known: ProjectFilters | undefined): FilterField<keyof RunsSearch>[] {
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

/** The list's query: the page, the filters set, and the date range as a window ending at `now`. */
export function runListQuery(search: RunsSearch, now: Date): RunListQuery {
  const range = search.range
    ? {
        start_date: new Date(now.getTime() - RANGE_HOURS[search.range] * 3_600_000).toISOString(),
        end_date: now.toISOString(),
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
}

/** Whether any filter narrows the list (the page number does not). */
export const isFiltered = (search: RunsSearch) =>
  Boolean(search.branch || search.environment || search.status || search.range || search.search);
