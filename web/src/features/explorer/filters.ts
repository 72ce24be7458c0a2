/** The explorer's filter fields, and its URL search values turned into the explorer's query. */
import type { ExplorerQuery, ProjectFilters } from '../../api/queries';
import type { FilterField } from '../../components/filterFields';
import { EXPLORER_STATUSES, type ExplorerSearch } from './search';

export const PAGE_SIZE = 50;

/** The filters, with the values the project's runs reported (platforms, environments, spec files). */
export function explorerFilters(known: ProjectFilters | undefined): FilterField<keyof ExplorerSearch>[] {
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

/** A page of test cases sorted as asked (latest execution first by default), over 30 days unless told. */
export const explorerListQuery = (search: ExplorerSearch): ExplorerQuery => ({
  page: search.page ?? 1,
  limit: PAGE_SIZE,
  sortBy: search.sortBy ?? 'lastExecution',
  order: search.order ?? 'desc',
  days: search.days ?? 30,
  ...(search.search ? { search: search.search } : {}),
  ...(search.status ? { status: search.status } : {}),
  ...(search.platform ? { platform: search.platform } : {}),
  ...(search.environment ? { environment: search.environment } : {}),
  ...(search.specFilePath ? { specFilePath: search.specFilePath } : {}),
});
