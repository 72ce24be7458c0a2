/** The case library's search parameters as the API's query of cases, a page at a time. No I/O. */
import type { ManualCaseQuery } from '../../api/queries';
import { UNASSIGNED, type CasesSearch } from './search';

export const PAGE_SIZE = 50;
export type Sort = NonNullable<CasesSearch['sortBy']>;
const SORT_KEYS: Record<Sort, NonNullable<ManualCaseQuery['sortBy']>> = {
  caseId: 'caseId',
  title: 'title',
  updatedAt: 'updatedAt',
  status: 'classification.status',
  severity: 'classification.severity',
  priority: 'classification.priority',
  type: 'classification.type',
  automationStatus: 'automation.status',
};

/** The API's query for the page's search parameters. */
export function casesQueryOf(search: CasesSearch): ManualCaseQuery {
  const { page, suite, flaky, muted, order, sortBy, ...filters } = search;
  const query: ManualCaseQuery = { page: page ?? 1, limit: PAGE_SIZE };
  for (const [key, value] of Object.entries(filters)) {
    if (value !== undefined) Object.assign(query, { [key]: value });
  }
  if (suite) query.suiteId = suite === UNASSIGNED ? 'null' : suite;
  if (flaky) query.isFlaky = flaky;
  if (muted) query.isMuted = muted;
  if (sortBy) query.sortBy = SORT_KEYS[sortBy];
  if (order) query.sortOrder = order;
  return query;
}
