/** The manual run page's read and writes. */
import { queryOptions, useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict, type WriteBody } from '../../api/client';
import { manualRunsQuery, releasesQuery } from '../../api/manual';
import { LIVE_INTERVAL_MS, type ManualRunCase, type ManualRunDetail } from '../../api/queries';
import { uploadBody } from '../../components/attachments';
import type { Verdict } from './verdicts';

/** A manual run with its cases: asked again every 5 s while shown, so testers see each other's verdicts. */
export const manualRunQuery = (projectId: string, runId: string) =>
  queryOptions({
    queryKey: ['manual-run', projectId, runId],
    queryFn: async ({ signal }): Promise<ManualRunDetail> =>
      unwrap(
        await verdict.api.GET('/{projectId}/manual-runs/{runId}', {
          params: { path: { projectId, runId } },
          signal,
        }),
      ).data,
    staleTime: LIVE_INTERVAL_MS,
    refetchInterval: LIVE_INTERVAL_MS,
  });

export type RunCasePatch = WriteBody<'/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}', 'patch'>;
/** A linked issue as a write sends it (the read's schema leaves `key` untyped; the server always sets it). */
export type LinkedIssue = NonNullable<RunCasePatch['linkedIssues']>[number];

/** After a write to a run: the run, and the lists and releases whose progress counts it. */
function refreshRun(queryClient: QueryClient, projectId: string, runId: string) {
  void queryClient.invalidateQueries({ queryKey: manualRunsQuery(projectId).queryKey });
  void queryClient.invalidateQueries({ queryKey: releasesQuery(projectId).queryKey });
  return queryClient.invalidateQueries({ queryKey: manualRunQuery(projectId, runId).queryKey });
}

function withCase(run: ManualRunDetail, runCase: ManualRunCase): ManualRunDetail {
  return { ...run, testCases: run.testCases.map((c) => (c._id === runCase._id ? runCase : c)) };
}

async function patchRunCase(projectId: string, runId: string, runCaseId: string, body: RunCasePatch) {
  return unwrap(
    await verdict.api.PATCH('/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}', {
      params: { path: { projectId, runId, runCaseId } },
      body,
    }),
  ).data;
}

/** Records a verdict (with the seconds the case was open): shown at once, then the server's answer. */
export function useRecordVerdict(projectId: string, runId: string) {
  const queryClient = useQueryClient();
  const key = manualRunQuery(projectId, runId).queryKey;
  return useMutation({
    mutationFn: ({
      runCase,
      result,
      elapsed,
    }: {
      runCase: ManualRunCase;
      result: Verdict;
      elapsed: number;
    }) => patchRunCase(projectId, runId, runCase._id, { result, elapsed }),
    onMutate: ({ runCase, result }) => {
      performance.mark('verdict:verdict-recorded');
      // Shown at once; the answer (and the next poll) brings the server's truth, history included.
      queryClient.setQueryData(key, (previous) =>
        previous ? withCase(previous, { ...runCase, result }) : previous,
      );
    },
    onSuccess: (answer) => {
      queryClient.setQueryData(key, (previous) => (previous ? withCase(previous, answer) : previous));
    },
    onSettled: () => refreshRun(queryClient, projectId, runId),
  });
}

/** Saves a run case's details (comment, step results, a linked issue, its assignee). */
export function useUpdateRunCase(projectId: string, runId: string, runCaseId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: RunCasePatch) => patchRunCase(projectId, runId, runCaseId, body),
    onSuccess: () => refreshRun(queryClient, projectId, runId),
  });
}

/** A run case's evidence calls, for the attachment gallery: send, remove, read the run again. */
export function useRunCaseEvidence(projectId: string, runId: string, runCaseId: string) {
  const queryClient = useQueryClient();
  const path = { projectId, runId, runCaseId };
  return {
    upload: async (file: File) =>
      unwrap(
        await verdict.api.POST('/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments', {
          params: { path },
          ...uploadBody(file),
        }),
      ),
    remove: async (attachmentId: string) =>
      unwrap(
        await verdict.api.DELETE(
          '/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments/{attachmentId}',
          { params: { path: { ...path, attachmentId } } },
        ),
      ),
    refresh: () => refreshRun(queryClient, projectId, runId),
  };
}
