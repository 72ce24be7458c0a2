/** The run page's own reads; the run itself is `runQuery` in `api/queries.ts` (the run's suite page reads it too). */
import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { verdict, type Read, type ReadQuery } from '../../api/client';
import { MINUTE, path } from '../../api/queries';

export type RunComparison = Read<'/{projectId}/test-runs/{runId}/compare'>;
export type CompareQuery = ReadQuery<'/{projectId}/test-runs/{runId}/compare'>;
export type CompareItem = RunComparison['newFailures']['items'][number];

/** The run's failures as Markdown, for the clipboard. */
export const loadRunMarkdown = (projectId: string, runId: string) =>
  verdict.debugBundleMarkdown({ runId, limit: 50 }, { project: projectId });

/** What changed between the run and its base: `base` (a run), `baseBranch`, or neither (the run's own base). */
export const comparisonQuery = (projectId: string, runId: string, query: CompareQuery) =>
  queryOptions({
    queryKey: ['compare', projectId, runId, query],
    queryFn: async ({ signal }): Promise<RunComparison> =>
      unwrap(
        await verdict.api.GET('/{projectId}/test-runs/{runId}/compare', {
          params: { path: { projectId, runId }, query },
          signal,
        }),
      ).data,
    staleTime: MINUTE,
  });

/** The project's latest finished runs, to pick a base among. */
export const baseRunsQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['base-runs', projectId],
    queryFn: async ({ signal }) =>
      unwrap(
        await verdict.api.GET('/{projectId}/test-runs', {
          params: { ...path(projectId), query: { limit: 50, status: 'finished' } },
          signal,
        }),
      ).data,
    staleTime: MINUTE,
  });

export type RunGate = Read<'/{projectId}/test-runs/{runId}/gate'>;
export type GateRuleResult = RunGate['rules'][number];

/** A run's quality gate: pending while it runs, so its status is in the key and it is read again at the end. */
export const runGateQuery = (projectId: string, runId: string, status: string) =>
  queryOptions({
    queryKey: ['run-gate', projectId, runId, status],
    queryFn: async ({ signal }): Promise<RunGate> =>
      unwrap(
        await verdict.api.GET('/{projectId}/test-runs/{runId}/gate', {
          params: { path: { projectId, runId } },
          signal,
        }),
      ).data,
    staleTime: MINUTE,
  });
