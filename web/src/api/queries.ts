/**
 * Every read the pages make, as TanStack Query options: one key per resource and parameters, so two pages
 * asking the same thing share one request and one cache entry. The API's read limit is 100 requests a
 * minute per token (spec §8), so answers stay fresh for a while and only running runs are polled.
 */
import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { rememberCsrfToken, verdict, type Read, type ReadQuery } from './client';

export const MINUTE = 60_000;
/** How often a page showing a running run asks again. */
export const LIVE_INTERVAL_MS = 5_000;

export type Session = Read<'/session'>;
export type RunRecord = Read<'/{projectId}/test-runs'>[number];
export type RunListQuery = ReadQuery<'/{projectId}/test-runs'>;
export type RunDetail = Read<'/{projectId}/test-runs/{runId}'>;
export type RunSpec = NonNullable<RunDetail['specs']>[number];
export type RunSpecTest = RunSpec['tests'][number];
export type TestCaseDetail = Read<'/{projectId}/test-cases/{caseId}'>;
export type DebugBundleData = Read<'/{projectId}/debug-bundle'>;
export type TestBundle = Extract<DebugBundleData, { scope: 'test' }>;
export type ExplorerData = Read<'/{projectId}/test-case-explorer'>;
export type ExplorerQuery = ReadQuery<'/{projectId}/test-case-explorer'>;
export type AnalyticsSummary = Read<'/{projectId}/analytics/summary'>;
export type SummaryQuery = ReadQuery<'/{projectId}/analytics/summary'>;
export type ExecutionPerformance = Read<'/{projectId}/analytics/execution-performance'>;
export type PerformanceQuery = ReadQuery<'/{projectId}/analytics/execution-performance'>;
export type Dashboard = Read<'/{projectId}/dashboard'>;
export type ProjectFilters = Read<'/{projectId}/filters'>;
export type Usage = Read<'/{projectId}/usage'>;
export type Outcome = RunSpecTest['outcome'];
export type ManualCase = Read<'/{projectId}/manual-tests'>[number];
export type ManualCaseQuery = ReadQuery<'/{projectId}/manual-tests'>;
export type ManualSuite = Read<'/{projectId}/manual-suites'>[number];
export type ManualCaseDetail = Read<'/{projectId}/manual-test-cases/{caseId}'>;
export type ManualRunDetail = Read<'/{projectId}/manual-runs/{runId}'>;
export type ManualRunCase = ManualRunDetail['testCases'][number];
export type ManualRunSummary = Read<'/{projectId}/manual-runs'>[number];
export type Release = Read<'/{projectId}/releases'>[number];
export type ExploratorySession = Read<'/{projectId}/sessions'>[number];
export type Webhook = Read<'/{projectId}/webhooks'>[number];
export type WebhookDelivery = Read<'/{projectId}/webhooks/{webhookId}/deliveries'>[number];
export type OwnToken = Read<'/session/tokens'>[number];
export type ProjectMember = Read<'/{projectId}/members'>[number];
export type RunFailures = NonNullable<RunDetail['failures']>;
export type RunFailure = RunFailures['items'][number];
export type FailureVerdict = RunFailure['verdict'];

/** The path parameters of a project's operation. */
export const path = (projectId: string) => ({ path: { projectId } });

/** Every page of a list the API gives 100 at a time (releases, sessions, runs of a project). */
export async function everyPage<T>(
  read: (page: number) => Promise<{ data: T[]; pagination: { hasNext: boolean } }>,
) {
  const items: T[] = [];
  for (let page = 1; page <= 50; page += 1) {
    const answer = await read(page);
    items.push(...answer.data);
    if (!answer.pagination.hasNext) break;
  }
  return items;
}

export const sessionQuery = () =>
  queryOptions({
    queryKey: ['session'],
    queryFn: async ({ signal }): Promise<Session> => {
      const session = unwrap(await verdict.api.GET('/session', { signal })).data;
      rememberCsrfToken(session.csrfToken);
      return session;
    },
    staleTime: 5 * MINUTE,
  });

export const runQuery = (projectId: string, runId: string) =>
  queryOptions({
    queryKey: ['run', projectId, runId],
    queryFn: async ({ signal }): Promise<RunDetail> => {
      performance.mark('verdict:run-requested');
      const run = unwrap(
        await verdict.api.GET('/{projectId}/test-runs/{runId}', {
          params: { path: { projectId, runId }, query: { include: 'specs' } },
          signal,
        }),
      ).data;
      // User Timing marks: a big run's load shows in the browser's performance tools (and the web bench).
      performance.mark('verdict:run-received');
      return run;
    },
    staleTime: MINUTE,
    refetchInterval: (query) => (query.state.data?.status === 'running' ? LIVE_INTERVAL_MS : false),
  });

/** A run's failed tests with their verdicts against its base and their error signatures (include=failures). */
export const runFailuresQuery = (projectId: string, runId: string, status: RunDetail['status']) =>
  queryOptions({
    // A running run's verdicts change as it goes: its status is in the key, so they are read again at the end.
    queryKey: ['run-failures', projectId, runId, status],
    queryFn: async ({ signal }): Promise<RunFailures | null> =>
      unwrap(
        await verdict.api.GET('/{projectId}/test-runs/{runId}', {
          params: { path: { projectId, runId }, query: { include: 'failures' } },
          signal,
        }),
      ).data.failures ?? null,
    staleTime: MINUTE,
  });

/** Where a failure is in a run's failures: its test and platform. */
export const failureKey = (testCaseId: string, project: string | null) =>
  `${testCaseId}\u0000${project ?? ''}`;

export const filtersQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['filters', projectId],
    queryFn: async ({ signal }): Promise<ProjectFilters> =>
      unwrap(await verdict.api.GET('/{projectId}/filters', { params: path(projectId), signal })).data,
    staleTime: 5 * MINUTE,
  });

export const explorerQuery = (projectId: string, query: ExplorerQuery) =>
  queryOptions({
    queryKey: ['explorer', projectId, query],
    queryFn: async ({ signal }): Promise<ExplorerData> =>
      unwrap(
        await verdict.api.GET('/{projectId}/test-case-explorer', {
          params: { ...path(projectId), query },
          signal,
        }),
      ).data,
    staleTime: MINUTE,
  });

export const summaryQuery = (projectId: string, query: SummaryQuery) =>
  queryOptions({
    queryKey: ['summary', projectId, query],
    queryFn: async ({ signal }): Promise<AnalyticsSummary> =>
      unwrap(
        await verdict.api.GET('/{projectId}/analytics/summary', {
          params: { ...path(projectId), query },
          signal,
        }),
      ).data,
    staleTime: MINUTE,
  });

/** The people of the project's organization, by name: whom manual work can be assigned to. */
export const membersQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['members', projectId],
    queryFn: ({ signal }): Promise<ProjectMember[]> =>
      everyPage(async (page) =>
        unwrap(
          await verdict.api.GET('/{projectId}/members', {
            params: { ...path(projectId), query: { page, limit: 100 } },
            signal,
          }),
        ),
      ),
    staleTime: 5 * MINUTE,
  });
