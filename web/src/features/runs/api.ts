/** The runs page's reads. */
import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict } from '../../api/client';
import { LIVE_INTERVAL_MS, path, type RunListQuery } from '../../api/queries';

export const runsQuery = (projectId: string, query: RunListQuery) =>
  queryOptions({
    queryKey: ['runs', projectId, query],
    queryFn: async ({ signal }) =>
      unwrap(
        await verdict.api.GET('/{projectId}/test-runs', {
          params: { ...path(projectId), query },
          signal,
        }),
      ),
    staleTime: 15_000,
    // Live while a run on the page is running: new runs and new results appear without a reload.
    refetchInterval: (query) =>
      query.state.data?.data.some((run) => run.status === 'running') ? LIVE_INTERVAL_MS : false,
  });
