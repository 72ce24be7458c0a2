/**
 * Names for the API answers and queries the tools use, read out of @verdict/client's types (themselves
 * generated from Verdict's OpenAPI document): when the API changes, these change with it.
 */
import type { DataOf, JsonBody, paths, QueryOf } from '@verdict/client';

type Get<P extends keyof paths> = NonNullable<paths[P]['get']>;

export type ExplorerQuery = QueryOf<Get<'/{projectId}/test-case-explorer'>>;
export type ExplorerData = DataOf<Get<'/{projectId}/test-case-explorer'>, 200>;
export type TestCaseDetail = DataOf<Get<'/{projectId}/test-cases/{caseId}'>, 200>;
export type AnalyticsSummaryQuery = QueryOf<Get<'/{projectId}/analytics/summary'>>;
export type AnalyticsSummary = DataOf<Get<'/{projectId}/analytics/summary'>, 200>;
export type ManualCasesQuery = QueryOf<Get<'/{projectId}/manual-tests'>>;
export type ManualCaseList = DataOf<Get<'/{projectId}/manual-tests'>, 200>;
export type ManualCase = DataOf<Get<'/{projectId}/manual-test-cases/{caseId}'>, 200>;
export type ManualRun = DataOf<Get<'/{projectId}/manual-runs/{runId}'>, 200>;
export type CreateManualCaseBody = JsonBody<NonNullable<paths['/{projectId}/manual-test-cases']['post']>>;
export type UpdateRunCaseBody = JsonBody<
  NonNullable<paths['/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}']['patch']>
>;
