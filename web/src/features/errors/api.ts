/** The errors pages' reads: a page of error groups, and one group with the tests and runs it hit. */
import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict, type Read } from '../../api/client';
import { MINUTE, path } from '../../api/queries';
import type { ErrorGroupQuery, ErrorsQuery } from './filters';

export type ErrorGroup = Read<'/{projectId}/errors'>[number];
export type ErrorGroupDetail = Read<'/{projectId}/errors/{signatureId}'>;

export const errorGroupsQuery = (projectId: string, query: ErrorsQuery) =>
  queryOptions({
    queryKey: ['errors', projectId, query],
    queryFn: async ({ signal }) =>
      unwrap(await verdict.api.GET('/{projectId}/errors', { params: { ...path(projectId), query }, signal })),
    staleTime: MINUTE,
  });

export const errorGroupQuery = (projectId: string, signatureId: string, query: ErrorGroupQuery) =>
  queryOptions({
    queryKey: ['error-group', projectId, signatureId, query],
    queryFn: async ({ signal }): Promise<ErrorGroupDetail> =>
      unwrap(
        await verdict.api.GET('/{projectId}/errors/{signatureId}', {
          params: { path: { projectId, signatureId }, query },
          signal,
        }),
      ).data,
    staleTime: MINUTE,
  });
