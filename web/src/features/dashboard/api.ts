/** The dashboard's read. */
import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict } from '../../api/client';
import { MINUTE, path, type Dashboard } from '../../api/queries';

export const dashboardQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['dashboard', projectId],
    queryFn: async ({ signal }): Promise<Dashboard> =>
      unwrap(await verdict.api.GET('/{projectId}/dashboard', { params: path(projectId), signal })).data,
    staleTime: MINUTE,
  });
