/** The flaky view's reads: the explorer sorted by flaky rate, and the summary's days each test was flaky on. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { explorerQuery, summaryQuery } from '../../api/queries';
import type { ANALYTICS_RANGES } from '../../search';
import { daysBetween, flakyKey } from './flakyTrend';

export const PAGE_SIZE = 50;

export function useFlakyTests(projectId: string, range: (typeof ANALYTICS_RANGES)[number], page: number) {
  const days = Number(range.slice(0, -1));
  const explorer = useQuery({
    ...explorerQuery(projectId, {
      page: page,
      limit: PAGE_SIZE,
      sortBy: 'flakyRate',
      order: 'desc',
      days,
    }),
    placeholderData: keepPreviousData,
  });
  const summary = useQuery(summaryQuery(projectId, { dateRange: range, days }));
  const flakyDays = useMemo(
    () =>
      new Map(
        (summary.data?.uniqueFlakyTests ?? []).map((test) => [
          flakyKey(test.filePath, test.title),
          test.dates,
        ]),
      ),
    [summary.data],
  );
  const windowDays = summary.data ? daysBetween(summary.data.range.from, summary.data.range.to) : [];
  const trend = { flakyDays, windowDays, ready: !summary.isPending };
  return { explorer, trend };
}
