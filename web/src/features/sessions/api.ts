/** Exploratory sessions (shown on the releases page): the list and its writes. */
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict, type WriteBody } from '../../api/client';
import { everyPage, path, type ExploratorySession } from '../../api/queries';

export const sessionsQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['sessions', projectId],
    queryFn: ({ signal }): Promise<ExploratorySession[]> =>
      everyPage(async (page) =>
        unwrap(
          await verdict.api.GET('/{projectId}/sessions', {
            params: { ...path(projectId), query: { page, limit: 100 } },
            signal,
          }),
        ),
      ),
    staleTime: 15_000,
  });

export function useCreateSession(projectId: string, onCreated: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: WriteBody<'/{projectId}/sessions', 'post'>) =>
      unwrap(await verdict.api.POST('/{projectId}/sessions', { params: { path: { projectId } }, body })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: sessionsQuery(projectId).queryKey });
      onCreated();
    },
  });
}

/** Moves a session along (status, notes, findings, assignee); `onUpdated` runs before the list is read again. */
export function useUpdateSession(projectId: string, sessionId: string, onUpdated: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: WriteBody<'/{projectId}/sessions/{sessionId}', 'patch'>) =>
      unwrap(
        await verdict.api.PATCH('/{projectId}/sessions/{sessionId}', {
          params: { path: { projectId, sessionId } },
          body,
        }),
      ),
    onSuccess: async () => {
      onUpdated();
      await queryClient.invalidateQueries({ queryKey: sessionsQuery(projectId).queryKey });
    },
  });
}
