/** The releases page's writes: a manual run (from suites, chosen cases or a library filter) and a release. */
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict, type WriteBody } from '../../api/client';
import { caseIdsOf, manualRunsQuery, releasesQuery } from '../../api/manual';
import type { ManualCaseQuery } from '../../api/queries';

type RunBody = WriteBody<'/{projectId}/manual-runs', 'post'>;

/** The cases of a new run: whole suites, chosen cases, or every case a library filter selects. */
export type RunCases = { suiteIds: string[] } | { caseIds: string[] } | { filter: ManualCaseQuery };

export type NewRun = Omit<RunBody, 'suiteIds' | 'caseIds'> & { cases: RunCases };

/** The manual runs and the releases (whose progress counts the runs) are read again. */
async function refreshRuns(queryClient: QueryClient, projectId: string) {
  await queryClient.invalidateQueries({ queryKey: manualRunsQuery(projectId).queryKey });
  await queryClient.invalidateQueries({ queryKey: releasesQuery(projectId).queryKey });
}

/** Creates a manual run; `onCreated` gets it once the lists are read again. */
export function useCreateRun(projectId: string, onCreated: (runId: string) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ cases, ...run }: NewRun) => {
      let chosen: { suiteIds: string[] } | { caseIds: string[] };
      if ('filter' in cases) {
        const selected = await caseIdsOf(projectId, cases.filter);
        if (selected.length === 0) throw new Error('The filter selects no case.');
        chosen = { caseIds: selected };
      } else chosen = cases;
      const body: RunBody = { ...run, ...chosen };
      return unwrap(
        await verdict.api.POST('/{projectId}/manual-runs', { params: { path: { projectId } }, body }),
      ).data;
    },
    onSuccess: async (run) => {
      await refreshRuns(queryClient, projectId);
      onCreated(run._id);
    },
  });
}

export function useCreateRelease(projectId: string, onCreated: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: WriteBody<'/{projectId}/releases', 'post'>) =>
      unwrap(await verdict.api.POST('/{projectId}/releases', { params: { path: { projectId } }, body })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: releasesQuery(projectId).queryKey });
      onCreated();
    },
  });
}
