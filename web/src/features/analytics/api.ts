/** The analytics page's reads (its summary is shared: api/queries.ts). */
import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict } from '../../api/client';
import { MINUTE, path, type ExecutionPerformance, type PerformanceQuery } from '../../api/queries';

export const performanceQuery = (projectId: string, query: PerformanceQuery) =>
  queryOptions({
    queryKey: ['performance', projectId, query],
    queryFn: async ({ signal }): Promise<ExecutionPerformance> =>
      unwrap(
        await verdict.api.GET('/{projectId}/analytics/execution-performance', {
          params: { ...path(projectId), query },
          signal,
        }),
      ).data,
    staleTime: MINUTE,
  });
