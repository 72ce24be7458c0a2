/**
 * Every read the pages make, as TanStack Query options: one key per resource and parameters, so two pages
 * asking the same thing share one request and one cache entry. The API's read limit is 100 requests a
 * minute per token (spec §8), so answers stay fresh for a while and only running runs are polled.
 */
import { queryOptions } from '@tanstack/react-query';
import { unwrap } from '@verdict/client';
import { rememberCsrfToken, verdict, type Read, type ReadQuery } from './client';

const MINUTE = 60_000;
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

const path = (projectId: string) => ({ path: { projectId } });

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

export const runsQuery = (projectId: string, query: RunListQuery) =>
  queryOptions({
    queryKey: ['runs', projectId, query],
    queryFn: async ({ signal }) =>
      unwrap(
        await verdict.api.GET('/{projectId}/test-runs', {
          params: { ...path(projectId), query },
          signal,
        }),
      ),
    staleTime: 15_000,
    // Live while a run on the page is running: new runs and new results appear without a reload.
    refetchInterval: (query) =>
      query.state.data?.data.some((run) => run.status === 'running') ? LIVE_INTERVAL_MS : false,
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

export const filtersQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['filters', projectId],
    queryFn: async ({ signal }): Promise<ProjectFilters> =>
      unwrap(await verdict.api.GET('/{projectId}/filters', { params: path(projectId), signal })).data,
    staleTime: 5 * MINUTE,
  });

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

export const performanceQuery = (projectId: string, query: PerformanceQuery) =>
  queryOptions({
    queryKey: ['performance', projectId, query],
    queryFn: async ({ signal }): Promise<ExecutionPerformance> =>
      unwrap(
        await verdict.api.GET('/{projectId}/analytics/execution-performance', {
          params: { ...path(projectId), query },
          signal,
        }),
      ).data,
    staleTime: MINUTE,
  });

export const dashboardQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['dashboard', projectId],
    queryFn: async ({ signal }): Promise<Dashboard> =>
      unwrap(await verdict.api.GET('/{projectId}/dashboard', { params: path(projectId), signal })).data,
    staleTime: MINUTE,
  });

export const usageQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['usage', projectId],
    queryFn: async ({ signal }): Promise<Usage> =>
      unwrap(await verdict.api.GET('/{projectId}/usage', { params: path(projectId), signal })).data,
    staleTime: MINUTE,
  });

// Manual testing (spec §4.3–4.5): the library, the case editor, runs, releases and sessions.

export const manualCasesQuery = (projectId: string, query: ManualCaseQuery) =>
  queryOptions({
    queryKey: ['manual-cases', projectId, query],
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

/** Every page of a list the API gives 100 at a time (releases, sessions, runs of a project). */
async function everyPage<T>(
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

export const webhooksQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['webhooks', projectId],
    queryFn: ({ signal }): Promise<Webhook[]> =>
      everyPage(async (page) =>
        unwrap(
          await verdict.api.GET('/{projectId}/webhooks', {
            params: { ...path(projectId), query: { page, limit: 100 } },
            signal,
          }),
        ),
      ),
    staleTime: 15_000,
  });

/** The latest delivery attempts of a subscription; asked again every 5 s while shown (they are queued). */
export const webhookDeliveriesQuery = (projectId: string, webhookId: string) =>
  queryOptions({
    queryKey: ['webhook-deliveries', projectId, webhookId],
    queryFn: async ({ signal }): Promise<WebhookDelivery[]> =>
      unwrap(
        await verdict.api.GET('/{projectId}/webhooks/{webhookId}/deliveries', {
          params: { path: { projectId, webhookId }, query: { page: 1, limit: 50 } },
          signal,
        }),
      ).data,
    staleTime: LIVE_INTERVAL_MS,
    refetchInterval: LIVE_INTERVAL_MS,
  });

/** The signed-in person's own tokens, newest first (revoked ones too). */
export const ownTokensQuery = () =>
  queryOptions({
    queryKey: ['own-tokens'],
    queryFn: ({ signal }): Promise<OwnToken[]> =>
      everyPage(async (page) =>
        unwrap(await verdict.api.GET('/session/tokens', { params: { query: { page, limit: 100 } }, signal })),
      ),
    staleTime: 15_000,
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
