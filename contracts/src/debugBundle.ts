import { z } from 'zod';
import { Pagination } from './envelope';
import { FailureQuarantine, FailureVerdict, SignatureRef, SuspectCommits } from './failureAnalysis';
import { RunGate } from './quarantine';
import {
  Outcome,
  RecordedSourceLocation as SourceLocation,
  RecordedTestStep as TestStep,
  ResultStatus,
  ResultWorker,
} from './testResults';
import { RunHost, RunSettings } from './testResultsEvents';

/**
 * The debug bundle (spec §2 "Debug bundle", §4.2): the `data` of GET /{projectId}/debug-bundle, one
 * payload per scope, discriminated by `scope`. The top-level field names are the spec's; the inner shapes
 * are ours and are written for an AI agent with a small context window:
 *
 * - every field is always present: an absent fact is `null`, an absent list is `[]` (so a reader never
 *   has to guess whether a field was dropped or never existed) — except the fields a `view` omits
 *   (test scope `steps`, `stdout`, `stderr`), which are absent, as the spec says "omits";
 * - error messages in lists are one line (`BundleErrorSummary`); full messages and stacks appear once,
 *   in the test scope's `error`;
 * - every failing test carries its `caseId` (to ask for its test-scope bundle) and a `retryCommand`.
 *
 * These schemas are the OpenAPI schema of the endpoint; `.describe()` texts end up in the document.
 */

export const BundleScope = z.enum(['run', 'suite', 'test']);
export type BundleScope = z.infer<typeof BundleScope>;

/** `view` (spec §4.2): how much of the bundle is returned. */
export const BundleView = z.enum(['full', 'brief', 'headline']);
export type BundleView = z.infer<typeof BundleView>;

/** `as` (spec §4.2): JSON in the envelope, or a Markdown body. */
export const BundleFormat = z.enum(['json', 'markdown']);
export type BundleFormat = z.infer<typeof BundleFormat>;

/**
 * `runStatus` (spec §3 leaves the values "not shown"): `running` until the run finished, then `failed`
 * when any test failed, `interrupted` when the run was cut short, else `passed`.
 */
export const BundleRunStatus = z.enum(['running', 'passed', 'failed', 'interrupted']);
export type BundleRunStatus = z.infer<typeof BundleRunStatus>;

/**
 * `suiteStatus` (values "not shown" in spec §3): a spec file's outcome in one run, over its tests:
 * `failed` when any test failed, else `flaky` when any was flaky, `skipped` when all were skipped, else
 * `passed`.
 */
export const BundleSuiteStatus = z.enum(['passed', 'failed', 'flaky', 'skipped']);
export type BundleSuiteStatus = z.infer<typeof BundleSuiteStatus>;

const isoTime = z.iso.datetime({ offset: true });

/** Test counts by outcome (API.md: passed, flaky, failed, skipped; `total` is their sum). */
export const BundleStats = z.object({
  total: z.number().int().min(0),
  passed: z.number().int().min(0),
  failed: z.number().int().min(0),
  flaky: z.number().int().min(0),
  skipped: z.number().int().min(0),
});
export type BundleStats = z.infer<typeof BundleStats>;

/** An error in one line: what a list entry needs to tell failures apart. */
export const BundleErrorSummary = z.object({
  message: z.string().describe('First non-empty line of the error message, ANSI colours removed'),
  location: SourceLocation.nullable().describe('Where the error was raised, when the runner reported it'),
});
export type BundleErrorSummary = z.infer<typeof BundleErrorSummary>;

/** The full error of the selected attempt (test scope). */
export const BundleError = z.object({
  message: z.string().describe('The whole message, ANSI colours removed'),
  stack: z.string().nullable(),
  snippet: z.string().nullable().describe('Source excerpt around the failing line, when the runner sent one'),
  location: SourceLocation.nullable(),
});
export type BundleError = z.infer<typeof BundleError>;

/** One step of the flattened step tree (depth-first order), as a failure window shows it. */
export const WindowStep = z.object({
  title: z.string(),
  category: z.string().nullable().describe('Runner category, e.g. Playwright `pw:api`, `expect`, `hook`'),
  depth: z.number().int().min(0).describe('Nesting depth in the step tree; 0 for top-level steps'),
  durationMs: z.number().min(0),
  location: SourceLocation.nullable(),
  error: z.string().nullable().describe('First line of the step’s error; null for a step that passed'),
});
export type WindowStep = z.infer<typeof WindowStep>;

/**
 * The steps around the failure (spec §2): `failed` is the innermost failed step of the flattened tree,
 * `before` the steps just before it and `after` the steps just after it, both in execution order. When no
 * step failed (a timeout, a crash), `failed` is null and `before` holds the last steps that ran.
 */
export const FailureWindow = z.object({
  before: z.array(WindowStep),
  failed: WindowStep.nullable(),
  after: z.array(WindowStep),
});
export type FailureWindow = z.infer<typeof FailureWindow>;

/** A spec file in one run: the `spec` of the suite and test scopes, and the entries of run `suites[]`. */
export const BundleSpec = z.object({
  suiteId: z
    .string()
    .describe(
      'The spec file path (a suite is a spec file in a run); send as `suiteId` (with `runId`) for this suite’s bundle',
    ),
  file: z.string(),
  title: z.string().describe('The file’s top-level describe title, or the file name'),
  status: BundleSuiteStatus,
  stats: BundleStats,
});
export type BundleSpec = z.infer<typeof BundleSpec>;

/** The fields of a failing test shared by run and suite items. */
const testItemShape = {
  caseId: z.string().describe('Send as `caseId` (with `runId`) for this test’s bundle'),
  title: z.string(),
  titlePath: z.array(z.string()).describe('Describe blocks, then the test title'),
  file: z.string(),
  line: z.number().int().min(0).nullable(),
  project: z.string().nullable().describe('Browser or platform the failure is reported for'),
  outcome: Outcome.describe('Over all attempts: failed (every attempt failed) or flaky (passed on a retry)'),
  status: ResultStatus.describe('Status of the latest attempt'),
  attempts: z.number().int().min(1),
  durationMs: z.number().min(0).describe('Duration of the latest attempt'),
  error: BundleErrorSummary.nullable().describe('Error of the latest failed attempt'),
  retryCommand: z.string().describe('Copy-paste command that reruns this one test locally'),
  /** A verdict per failure (issue 31); optional so that bundles of earlier versions stay valid. */
  verdict: FailureVerdict.nullable()
    .optional()
    .describe("Against the run's base branch (see include=failures of the run detail); null unless failed"),
  signature: SignatureRef.nullable()
    .optional()
    .describe("The error signature of the test's failure; null unless failed"),
  /** Issue 32; optional so that bundles of earlier versions stay valid. */
  quarantine: FailureQuarantine.nullable()
    .optional()
    .describe(
      'The test’s quarantine when the run ran; forgives false: its signature is not the quarantine’s (it would have been masked)',
    ),
};

/**
 * A failing test at run scope: one item per test case, reported for the platform where it went worst
 * (`project`); `alsoFailedIn` tells a recurring failure from a new one.
 */
export const RunBundleItem = z.object({
  ...testItemShape,
  suiteId: z.string(),
  alsoFailedIn: z
    .array(z.string())
    .describe(
      'Ids of other runs among the project’s 20 most recent in which the same test case also failed, newest first',
    ),
});
export type RunBundleItem = z.infer<typeof RunBundleItem>;

/** A failing test at suite scope, with the steps around its failure. */
export const SuiteBundleItem = z.object({
  ...testItemShape,
  failureWindow: FailureWindow.nullable().describe('Null under view=brief and view=headline'),
});
export type SuiteBundleItem = z.infer<typeof SuiteBundleItem>;

/** What is known of the run, at every scope. */
export const BundleMeta = z.object({
  projectId: z.string(),
  runId: z.string(),
  runTitle: z.string().nullable(),
  startedAt: isoTime.nullable(),
  finishedAt: isoTime.nullable().describe('Null while the run is running'),
  durationMs: z.number().min(0).nullable(),
  stats: BundleStats.describe('Test counts of the whole run'),
  view: BundleView.describe('The view this bundle was cut to'),
  generatedAt: isoTime,
});
export type BundleMeta = z.infer<typeof BundleMeta>;

/** Test scope meta: the run (resolved when only `caseId` was sent) and the selected attempt. */
export const TestBundleMeta = BundleMeta.extend({
  runId: z.string().describe('The run shown; when caseId was sent without runId, the latest run of the test'),
  latestRun: z.boolean().describe('True when runId was not sent and the latest run was resolved'),
  attempt: z.number().int().min(0).describe('0-based index of the attempt shown (default: the latest)'),
  attempts: z.number().int().min(1).describe('How many attempts the test made in this run'),
});
export type TestBundleMeta = z.infer<typeof TestBundleMeta>;

/** Where the run ran (the fields of API.md "start a run"). */
export const BundleEnvironment = z.object({
  branch: z.string().nullable(),
  environment: z.string().nullable().describe('Deployment environment, e.g. `staging`'),
  commit: z
    .object({ sha: z.string(), message: z.string().nullable(), author: z.string().nullable() })
    .nullable(),
  ci: z
    .object({ provider: z.string().nullable(), buildId: z.string().nullable(), url: z.string().nullable() })
    .nullable(),
  framework: z.object({ name: z.string(), version: z.string().nullable() }).nullable(),
  /** How the run ran (issue 31); optional so that bundles of earlier versions stay valid. */
  host: RunHost.nullable()
    .optional()
    .describe(
      'The machine the run started on (name hashed, OS, CPUs, memory, load average); null when not sent',
    ),
  settings: RunSettings.nullable()
    .optional()
    .describe("The runner's settings (workers, fullyParallel, shard, seed); null when not sent"),
});
export type BundleEnvironment = z.infer<typeof BundleEnvironment>;

/** `links` at run and suite scope (spec §2). */
export const BundleLinks = z.object({
  uiUrl: z.string().describe('Deep link to this run or suite in the Verdict UI'),
  retryCommand: z
    .string()
    .describe('Run scope: reruns the failing tests of this page; suite scope: reruns the spec file'),
});
export type BundleLinks = z.infer<typeof BundleLinks>;

/** `links` at test scope (spec §2): `traceViewerUrl` is null when no trace archive is attached. */
export const TestBundleLinks = BundleLinks.extend({
  retryCommand: z.string().describe('Reruns this one test locally'),
  traceViewerUrl: z.string().nullable(),
});
export type TestBundleLinks = z.infer<typeof TestBundleLinks>;

/** The test of the test scope: identity and the selected attempt's result. */
export const BundleTest = z.object({
  caseId: z.string(),
  title: z.string(),
  titlePath: z.array(z.string()),
  file: z.string(),
  line: z.number().int().min(0).nullable(),
  project: z.string().nullable(),
  status: ResultStatus.describe('Status of the attempt shown'),
  outcome: Outcome.describe('Outcome over all attempts of this run'),
  durationMs: z.number().min(0).describe('Duration of the attempt shown'),
  startedAt: isoTime.nullable(),
  tags: z.array(z.string()),
  annotations: z.array(z.object({ type: z.string(), description: z.string().nullable() })),
  verdict: testItemShape.verdict,
  signature: testItemShape.signature,
  quarantine: testItemShape.quarantine,
  worker: ResultWorker.nullable()
    .optional()
    .describe(
      "The attempt's worker: index, parallelIndex and its place among that worker's tests; null when not sent",
    ),
});
export type BundleTest = z.infer<typeof BundleTest>;

/** One other attempt of the test (spec §2: 0-based `attempt`; the attempt shown is not listed). */
export const AttemptHistoryEntry = z.object({
  attempt: z.number().int().min(0),
  status: ResultStatus,
  durationMs: z.number().min(0),
  error: BundleErrorSummary.nullable(),
  worker: BundleTest.shape.worker,
});
export type AttemptHistoryEntry = z.infer<typeof AttemptHistoryEntry>;

/** An attachment of the attempt, with a time-limited download URL. */
export const BundleArtifact = z.object({
  name: z.string(),
  contentType: z.string(),
  artifactId: z.string(),
  url: z
    .string()
    .nullable()
    .describe(
      'Signed download URL; expires (default 15 minutes). Null when no artifact of that id was uploaded to the run',
    ),
});
export type BundleArtifact = z.infer<typeof BundleArtifact>;

/** How many artifacts of each kind exist: added under view=headline, where each list is cut to 5. */
export const ArtifactTotals = z.object({
  screenshots: z.number().int().min(0),
  videos: z.number().int().min(0),
  traces: z.number().int().min(0),
  other: z.number().int().min(0),
});
export type ArtifactTotals = z.infer<typeof ArtifactTotals>;

/** The attempt's attachments by kind (content type `image/*`, `video/*`, trace archives, the rest). */
export const BundleArtifacts = z.object({
  screenshots: z.array(BundleArtifact),
  videos: z.array(BundleArtifact),
  traces: z.array(BundleArtifact),
  other: z.array(BundleArtifact),
  totals: ArtifactTotals.optional().describe('Present under view=headline only'),
});
export type BundleArtifacts = z.infer<typeof BundleArtifacts>;

/** Run scope `data` (spec §2). `items` is one page; `pagination` sits beside `data`. */
export const RunBundle = z.object({
  scope: z.literal('run'),
  runId: z.string(),
  runStatus: BundleRunStatus,
  suites: z
    .array(BundleSpec)
    .describe('Spec files with at least one failed or flaky test, most failures first'),
  items: z.array(RunBundleItem).describe('One page of the failing tests: failed first, then flaky'),
  meta: BundleMeta,
  environment: BundleEnvironment,
  links: BundleLinks,
  /** Issue 32; optional so that bundles of earlier versions stay valid. */
  gate: RunGate.optional().describe('The project’s quality gate as judged when the run finished'),
});
export type RunBundle = z.infer<typeof RunBundle>;

/** Suite scope `data` (spec §2). `items` is one page; `pagination` sits beside `data`. */
export const SuiteBundle = z.object({
  scope: z.literal('suite'),
  spec: BundleSpec,
  suiteStatus: BundleSuiteStatus,
  items: z.array(SuiteBundleItem).describe('One page of the spec file’s failing tests: failed, then flaky'),
  meta: BundleMeta,
  environment: BundleEnvironment,
  links: BundleLinks,
});
export type SuiteBundle = z.infer<typeof SuiteBundle>;

/** Test scope `data` (spec §2); not paginated. */
export const TestBundle = z.object({
  scope: z.literal('test'),
  spec: BundleSpec,
  test: BundleTest,
  error: BundleError.nullable().describe('Null when the attempt shown did not fail'),
  attemptHistory: z.array(AttemptHistoryEntry).describe('The other attempts, oldest first'),
  traceLink: z.string().nullable().describe('Download URL of the trace archive; null when none is attached'),
  failureWindow: FailureWindow,
  steps: z.array(TestStep).optional().describe('The step tree; absent under view=brief and view=headline'),
  stdout: z.array(z.string()).optional().describe('Output chunks as recorded; absent under view=headline'),
  stderr: z.array(z.string()).optional().describe('Output chunks as recorded; absent under view=headline'),
  artifacts: BundleArtifacts,
  meta: TestBundleMeta,
  environment: BundleEnvironment,
  links: TestBundleLinks,
  suspects: SuspectCommits.nullable()
    .optional()
    .describe(
      'On the branch of the run shown: the last run where the test passed, the first where it failed and the runs between that skipped it, when its latest failure there is new (as GET …/suspect-commits); optional so that bundles of earlier versions stay valid',
    ),
});
export type TestBundle = z.infer<typeof TestBundle>;

/** The `data` of a debug bundle, any scope. */
export const DebugBundle = z.discriminatedUnion('scope', [RunBundle, SuiteBundle, TestBundle]);
export type DebugBundle = z.infer<typeof DebugBundle>;

/** The JSON answer (as=json): the envelope, with `pagination` beside `data` at run and suite scope. */
export const DebugBundleEnvelope = z.object({
  success: z.literal(true),
  data: DebugBundle,
  pagination: Pagination.optional().describe('Run and suite scopes only'),
});
export type DebugBundleEnvelope = z.infer<typeof DebugBundleEnvelope>;
