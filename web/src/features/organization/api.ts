/** The organization page's read. */
import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict } from '../../api/client';
import { MINUTE, path, type Usage } from '../../api/queries';

export const usageQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['usage', projectId],
    queryFn: async ({ signal }): Promise<Usage> =>
      unwrap(await verdict.api.GET('/{projectId}/usage', { params: path(projectId), signal })).data,
    staleTime: MINUTE,
  });
