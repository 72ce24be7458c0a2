/**
 * Names for the shapes the helpers take and give, read out of the types generated from the OpenAPI
 * document (never written twice): when a contract changes, these change with it.
 */
import type { paths as AdminPaths } from './generated/admin';
import type { components, paths } from './generated/public';

export type { paths, AdminPaths };

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The JSON request body of an operation. */
export type JsonBody<O> = O extends { requestBody?: { content: { 'application/json': infer B } } }
  ? B
  : never;
/** The JSON answer of an operation for one status. */
export type JsonAnswer<O, S extends number> = O extends {
  responses: { [K in S]: { content: { 'application/json': infer B } } };
}
  ? B
  : never;
/** The `data` of an operation's success envelope for one status. */
export type DataOf<O, S extends number> = JsonAnswer<O, S> extends { data: infer D } ? D : never;
/** The query parameters of an operation. */
export type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type StartRun = Operation<'/{projectId}/test-runs', 'post'>;
type AddResults = Operation<'/{projectId}/test-runs/{runId}/results', 'post'>;
type UploadArtifact = Operation<'/{projectId}/test-runs/{runId}/artifacts', 'post'>;
type AddCoverage = Operation<'/{projectId}/test-runs/{runId}/coverage', 'post'>;
type FinishRun = Operation<'/{projectId}/test-runs/{runId}/finish', 'post'>;
type GetRun = Operation<'/{projectId}/test-runs/{runId}', 'get'>;
type ListRuns = Operation<'/{projectId}/test-runs', 'get'>;
type ImportJunit = Operation<'/{projectId}/imports/junit', 'post'>;
type DebugBundleOperation = Operation<'/{projectId}/debug-bundle', 'get'>;
type TokenInfoOperation = Operation<'/{projectId}/token-info', 'get'>;
type CompareOperation = Operation<'/{projectId}/test-runs/{runId}/compare', 'get'>;
type ErrorsOperation = Operation<'/{projectId}/errors', 'get'>;
type ErrorGroupOperation = Operation<'/{projectId}/errors/{signatureId}', 'get'>;
type RunGateOperation = Operation<'/{projectId}/test-runs/{runId}/gate', 'get'>;
type GateRulesOperation = Operation<'/{projectId}/gate-rules', 'put'>;
type QuarantinesOperation = Operation<'/{projectId}/quarantines', 'get'>;
type QuarantineOperation = Operation<'/{projectId}/quarantines', 'post'>;
type QuarantinedTestsOperation = Operation<'/{projectId}/quarantined-tests', 'get'>;
type QuarantinePolicyOperation = Operation<'/{projectId}/quarantine-policy', 'put'>;

/** The body of "start a run" (`ciRunId`, `title`, `branch`, `commit`, `ci`, `shard`…). */
export type StartRunBody = JsonBody<StartRun>;
/** The run as ingest answers it (start, finish, imports). */
export type RunSummary = DataOf<StartRun, 201>;
/** One result: one attempt of one test (`file`, `titlePath`, `project`, `attempt`, `status`…). */
export type ResultItem = JsonBody<AddResults>['results'][number];
/** What "add results" recorded: `accepted` new results, `duplicates` already in the run. */
export type AddResultsSummary = DataOf<AddResults, 202>;
/** An uploaded artifact: `id` (link results to it), `name`, `contentType`, `size`. */
export type ArtifactSummary = DataOf<UploadArtifact, 201>;
/** A coverage report (`lines`, `statements`, `functions`, `branches`, optional `files`). */
export type CoverageBody = JsonBody<AddCoverage>;
export type CoverageReport = DataOf<AddCoverage, 200>;
/** The body of "finish a run" (`finishedAt`, `status`, `shard`). */
export type FinishRunBody = JsonBody<FinishRun>;
/** A run with its stats and the sections `include` asked for. */
export type RunDetail = DataOf<GetRun, 200>;
export type RunDetailQuery = QueryOf<GetRun>;
export type ListRunsQuery = QueryOf<ListRuns>;
/** A page of runs: `data` (the runs) and `pagination`. */
export type RunList = JsonAnswer<ListRuns, 200>;
/** Where an import lands: `branch`, `environment`, `commitSha`, `ciRunId`. */
export type ImportQuery = QueryOf<ImportJunit>;
export type DebugBundleQuery = QueryOf<DebugBundleOperation>;
/** The JSON debug bundle: `data` (by `scope`: run, suite or test) and, for runs and suites, `pagination`. */
export type DebugBundle = JsonAnswer<DebugBundleOperation, 200>;
export type TokenInfo = DataOf<TokenInfoOperation, 200>;
/** What changed between a run and its base: `base` (null with `noBaseReason`) and a count and items per category. */
export type RunComparison = DataOf<CompareOperation, 200>;
/** `base` (a run id) or `baseBranch`, and the duration thresholds. */
export type CompareQuery = QueryOf<CompareOperation>;
/** A run's failures with their verdicts (`include=failures` on the run). */
export type RunFailures = NonNullable<RunDetail['failures']>;
/** One failed test of a run: `verdict` and `signature`. */
export type RunFailure = RunFailures['items'][number];
/** A page of error groups: `data` and `pagination`. */
export type ErrorGroupList = JsonAnswer<ErrorsOperation, 200>;
export type ErrorGroupsQuery = QueryOf<ErrorsOperation>;
/** One error group with the tests and runs it hit. */
export type ErrorGroupDetail = DataOf<ErrorGroupOperation, 200>;
export type ErrorGroupQuery = QueryOf<ErrorGroupOperation>;
/** A run's quality gate: `status` pending, none, passed or failed, and each rule judged. */
export type RunGate = DataOf<RunGateOperation, 200>;
/** A project's gate rules; an empty object: no gate. */
export type GateRules = JsonBody<GateRulesOperation>;
/** The gate rules with who set them and when. */
export type GateRulesDocument = DataOf<GateRulesOperation, 200>;
/** A quarantine: its test, owner, expiry, status and evidence (the signatures it forgives). */
export type Quarantine = DataOf<QuarantineOperation, 201>;
export type QuarantinesQuery = QueryOf<QuarantinesOperation>;
/** A page of quarantines: `data` and `pagination`. */
export type QuarantineList = JsonAnswer<QuarantinesOperation, 200>;
export type CreateQuarantineBody = JsonBody<QuarantineOperation>;
/** The auto-quarantine policy (`enabled`, `minFlakyRate`, `minExecutions`, `days`, `ownerId`). */
export type QuarantinePolicy = JsonBody<QuarantinePolicyOperation>;
/** The policy (null: never set) with who set it and when. */
export type QuarantinePolicyDocument = DataOf<QuarantinePolicyOperation, 200>;
/** Every test quarantined now with the signatures each forgives: what reporters enforce. */
export type QuarantinedTests = DataOf<QuarantinedTestsOperation, 200>;
/** The stable error codes of the error envelope (spec §7 and API.md). */
// Every error answer shares the envelope; the validation error's is as good as any to name the codes.
export type ErrorCode =
  components['responses']['ValidationError']['content']['application/json']['error']['code'];
