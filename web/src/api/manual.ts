/**
 * Manual testing's reads that several features show or refresh (spec §4.3–4.5): the library and its suites,
 * a case, the runs and the releases. Their mutation hooks live in the features that write.
 */
import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict } from './client';
import {
  everyPage,
  MINUTE,
  path,
  type ManualCaseDetail,
  type ManualCaseQuery,
  type ManualRunSummary,
  type ManualSuite,
  type Release,
} from './queries';

/** The key every library page of a project starts with: a write invalidates them all through it. */
export const manualCasesKey = (projectId: string) => ['manual-cases', projectId] as const;

export const manualCasesQuery = (projectId: string, query: ManualCaseQuery) =>
  queryOptions({
    queryKey: [...manualCasesKey(projectId), query],
    queryFn: async ({ signal }) =>
      unwrap(
        await verdict.api.GET('/{projectId}/manual-tests', {
          params: { ...path(projectId), query },
          signal,
        }),
      ),
    staleTime: 15_000,
  });

/** Every suite of the project (the API pages them by 100): the library draws them as one tree. */
export const manualSuitesQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['manual-suites', projectId],
    queryFn: async ({ signal }): Promise<ManualSuite[]> => {
      const suites: ManualSuite[] = [];
      for (let page = 1; ; page += 1) {
        const answer = unwrap(
          await verdict.api.GET('/{projectId}/manual-suites', {
            params: { ...path(projectId), query: { page, limit: 100 } },
            signal,
          }),
        );
        suites.push(...answer.data);
        if (!answer.pagination.hasNext) return suites;
      }
    },
    staleTime: MINUTE,
  });

export const manualCaseQuery = (projectId: string, caseId: string) =>
  queryOptions({
    queryKey: ['manual-case', projectId, caseId],
    queryFn: async ({ signal }): Promise<ManualCaseDetail> =>
      unwrap(
        await verdict.api.GET('/{projectId}/manual-test-cases/{caseId}', {
          params: { path: { projectId, caseId } },
          signal,
        }),
      ).data,
    // Attachment links in it are signed for 15 minutes: asked again well before they expire.
    staleTime: 5 * MINUTE,
  });

export const manualRunsQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['manual-runs', projectId],
    queryFn: ({ signal }): Promise<ManualRunSummary[]> =>
      everyPage(async (page) =>
        unwrap(
          await verdict.api.GET('/{projectId}/manual-runs', {
            params: { ...path(projectId), query: { page, limit: 100 } },
            signal,
          }),
        ),
      ),
    staleTime: 15_000,
  });

export const releasesQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['releases', projectId],
    queryFn: ({ signal }): Promise<Release[]> =>
      everyPage(async (page) =>
        unwrap(
          await verdict.api.GET('/{projectId}/releases', {
            params: { ...path(projectId), query: { page, limit: 100 } },
            signal,
          }),
        ),
      ),
    staleTime: 15_000,
  });

/** Every case id a library filter selects (the API pages them by 100; a run holds at most 5,000). */
export async function caseIdsOf(projectId: string, filter: ManualCaseQuery): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; page <= 50; page += 1) {
    const answer = unwrap(
      await verdict.api.GET('/{projectId}/manual-tests', {
        params: { path: { projectId }, query: { ...filter, page, limit: 100 } },
      }),
    );
    ids.push(...answer.data.map((c) => c._id));
    if (!answer.pagination.hasNext) break;
  }
  return ids;
}
