/** The analytics page's URL search values turned into the summary's and the performance report's queries. */
import type { PerformanceQuery, SummaryQuery } from '../../api/queries';
import type { ANALYTICS_RANGES } from '../../search';

export type Range = (typeof ANALYTICS_RANGES)[number];

export interface AnalyticsSearch {
  range?: Range;
  environment?: string;
  branch?: string;
}

/** The summary filters branches only within an environment (`environmentBranches`). */
export const summaryParams = (range: Range, search: AnalyticsSearch): SummaryQuery => ({
  dateRange: range,
  days: Number(range.slice(0, -1)),
  ...(search.environment ? { environment: search.environment } : {}),
  ...(search.environment && search.branch ? { environmentBranches: search.branch } : {}),
});

export const performanceParams = (range: Range, search: AnalyticsSearch): PerformanceQuery => ({
  dateRange: range,
  limit: 10,
  ...(search.environment ? { environment: search.environment } : {}),
  ...(search.branch ? { branch: search.branch } : {}),
});
