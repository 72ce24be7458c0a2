/** The test page's reads: the test's debug bundle and its history. */
import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict, type Read } from '../../api/client';
import { MINUTE, path, type TestBundle, type TestCaseDetail } from '../../api/queries';

export interface TestTarget {
  projectId: string;
  runId: string;
  caseId: string;
  attempt?: number | undefined;
  platform?: string | undefined;
}

export const testBundleQuery = ({ projectId, runId, caseId, attempt, platform }: TestTarget) =>
  queryOptions({
    queryKey: ['bundle', projectId, runId, caseId, attempt ?? null, platform ?? null],
    queryFn: async ({ signal }): Promise<TestBundle> => {
      const { data } = unwrap(
        await verdict.api.GET('/{projectId}/debug-bundle', {
          params: {
            ...path(projectId),
            query: {
              runId,
              caseId,
              ...(attempt === undefined ? {} : { attempt }),
              ...(platform === undefined ? {} : { project: platform }),
            },
          },
          signal,
        }),
      );
      if (data.scope !== 'test') throw new Error(`Expected a test bundle, got a ${data.scope} bundle`);
      return data;
    },
    // Artifact URLs in it are signed for 15 minutes: asked again well before they expire.
    staleTime: 5 * MINUTE,
  });

export const testHistoryQuery = (projectId: string, caseId: string) =>
  queryOptions({
    queryKey: ['test-case', projectId, caseId],
    queryFn: async ({ signal }): Promise<TestCaseDetail> =>
      unwrap(
        await verdict.api.GET('/{projectId}/test-cases/{caseId}', {
          params: {
            path: { projectId, caseId },
            query: { include: 'history', historyLimit: 50 },
          },
          signal,
        }),
      ).data,
    staleTime: MINUTE,
  });

/** The test's debug bundle as Markdown, for the clipboard. */
export const loadTestMarkdown = (
  projectId: string,
  {
    runId,
    caseId,
    attempt,
    platform,
  }: { runId: string; caseId: string; attempt: number | undefined; platform: string | null },
) =>
  verdict.debugBundleMarkdown(
    {
      runId,
      caseId,
      ...(attempt === undefined ? {} : { attempt }),
      ...(platform ? { project: platform } : {}),
    },
    { project: projectId },
  );

export type SuspectCommits = Read<'/{projectId}/test-cases/{caseId}/suspect-commits'>;
export type SuspectRun = NonNullable<SuspectCommits['lastPass']>;

/** A new failure's last passing run, first failing run and the runs between, on `branch`. */
export const suspectsQuery = (projectId: string, caseId: string, branch: string | null) =>
  queryOptions({
    queryKey: ['suspects', projectId, caseId, branch],
    queryFn: async ({ signal }): Promise<SuspectCommits> =>
      unwrap(
        await verdict.api.GET('/{projectId}/test-cases/{caseId}/suspect-commits', {
          params: { path: { projectId, caseId }, query: branch ? { branch } : {} },
          signal,
        }),
      ).data,
    staleTime: MINUTE,
  });
