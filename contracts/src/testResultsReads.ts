import { z } from 'zod';
import { commaList, queryInteger } from './http';
import { InstantInput } from './instant';
import { listEnvelope, Pagination, successEnvelope } from './envelope';
import { CoverageReport, RunCi, RunCommit, RunFramework, RunHost, RunSettings } from './testResultsEvents';
import { Outcome } from './testResults';
import { RunFailures, SignatureRef } from './failureAnalysis';
import { RunGate } from './quarantine';

/**
 * Reads of automated data (API.md, spec §2 and §4.10): the query parameters and answers of the test runs
 * list and detail, the test case detail and history, and the specs list. Query values arrive as strings,
 * hence the coercions; list values (`include`, `urls`) are comma-separated.
 */

const MAX_LIMIT = 100;
const MAX_URLS = 100;

const page = queryInteger({ min: 1, fallback: 1 });
const limit = queryInteger({ min: 1, max: MAX_LIMIT, fallback: 20 });
/** RFC 3339 §5.6 allows a lower-case "t" and "z": read as upper case, the only letters a timestamp has. */
const Rfc3339 = z.preprocess(
  (value) => (typeof value === 'string' ? value.toUpperCase() : value),
  InstantInput,
);

export const TestRunPath = z.object({ projectId: z.string().min(1), runId: z.string().min(1) });
export const TestCasePath = z.object({ projectId: z.string().min(1), caseId: z.string().min(1) });
export const ProjectReadPath = z.object({ projectId: z.string().min(1) });

/** `include`: a comma-separated subset of `values`, or `all` for every one of them. */
function includeOf<const V extends readonly [string, ...string[]]>(values: V) {
  return commaList('sections', { values: [...values, 'all'] as const })
    .transform((entries) => ((entries as string[]).includes('all') ? [...values] : (entries as V[number][])))
    .optional()
    .describe(`Comma-separated sections to add (${values.join(', ')}), or all`);
}

export const RunSections = ['errors', 'coverage', 'specs', 'artifacts', 'failures', 'gate'] as const;
export type RunSection = (typeof RunSections)[number];

export const RunListStatus = z.enum(['running', 'finished', 'passed', 'failed']);

export const TestRunsQuery = z
  .strictObject({
    page,
    limit,
    start_date: Rfc3339.optional().describe('RFC 3339; sent together with end_date'),
    end_date: Rfc3339.optional().describe('RFC 3339; sent together with start_date'),
    status: RunListStatus.optional().describe(
      'running or finished (the run status), passed or failed (the outcome of a finished run)',
    ),
    branch: z.string().min(1).max(500).optional(),
    environment: z.string().min(1).max(200).optional(),
    search: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe('Case-insensitive substring of the title, branch, commit sha or ciRunId'),
  })
  .superRefine((query, ctx) => {
    if (query.start_date !== undefined && query.end_date === undefined) {
      ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'is required with start_date' });
    }
    if (query.end_date !== undefined && query.start_date === undefined) {
      ctx.addIssue({ code: 'custom', path: ['start_date'], message: 'is required with end_date' });
    }
    if (
      query.start_date !== undefined &&
      query.end_date !== undefined &&
      Date.parse(query.end_date) < Date.parse(query.start_date)
    ) {
      ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'must not be before start_date' });
    }
  });
export type TestRunsQuery = z.infer<typeof TestRunsQuery>;

export const TestRunDetailQuery = z.strictObject({
  include: includeOf(RunSections),
  urls: commaList('URLs', { max: MAX_URLS })
    .optional()
    .describe(
      `With include=artifacts: comma-separated artifacts to sign (at most ${MAX_URLS}), each an artifact id, an artifact name, or a URL ending in the artifact id`,
    ),
});
export type TestRunDetailQuery = z.infer<typeof TestRunDetailQuery>;

export const TestCaseSections = ['history'] as const;
/** The names of the history parameters: read only with include=history or all (spec §4.10). */
export const HISTORY_PARAMS = ['historyPage', 'historyLimit', 'historyStatus'] as const;

/** Whether a raw `include` value names the history section (its validity is checked by the schema). */
function namesHistory(include: unknown): boolean {
  if (typeof include !== 'string') return false;
  return include.split(',').some((entry) => ['history', 'all'].includes(entry.trim()));
}

/**
 * The query of a test case's detail. Spec §4.10: the history parameters are "ignored otherwise", so
 * without history they are dropped before validation (even sent twice or out of range), and read, with
 * their defaults, with it.
 */
export const TestCaseDetailQuery = z.preprocess(
  (query) => {
    if (typeof query !== 'object' || query === null) return query;
    if (namesHistory((query as Record<string, unknown>).include)) return query;
    return Object.fromEntries(
      Object.entries(query).filter(([name]) => !(HISTORY_PARAMS as readonly string[]).includes(name)),
    );
  },
  z.strictObject({
    include: includeOf(TestCaseSections),
    historyPage: page,
    historyLimit: limit,
    historyStatus: Outcome.optional(),
  }),
);
export type TestCaseDetailQuery = z.infer<typeof TestCaseDetailQuery>;

export const TestCaseHistoryQuery = z.strictObject({
  offset: queryInteger({ min: 0, fallback: 0 }),
  limit,
});
export type TestCaseHistoryQuery = z.infer<typeof TestCaseHistoryQuery>;

export const SpecsQuery = z.strictObject({ page, limit });
export type SpecsQuery = z.infer<typeof SpecsQuery>;

export const OutcomeStats = z.object({
  total: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  flaky: z.number().int(),
  skipped: z.number().int(),
});
export type OutcomeStats = z.infer<typeof OutcomeStats>;

export const TestRunRecord = z.object({
  id: z.string(),
  projectId: z.string(),
  counter: z.number().int(),
  status: z.enum(['running', 'finished']),
  /** Null while running. */
  outcome: z.enum(['passed', 'failed']).nullable(),
  ciRunId: z.string().nullable(),
  title: z.string().nullable(),
  branch: z.string().nullable(),
  environment: z.string().nullable(),
  commit: RunCommit.nullable(),
  ci: RunCi.nullable(),
  framework: RunFramework.nullable(),
  tags: z.array(z.string()),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  stats: OutcomeStats,
  shards: z
    .object({
      total: z.number().int().describe('Shards the run announced'),
      started: z.array(z.number().int()).describe('The shards (1-based) that have started, in order'),
      finished: z.array(z.number().int()).describe('The shards (1-based) that have finished, in order'),
    })
    .nullable()
    .describe('Null for a run sent without shards'),
});
export type TestRunRecord = z.infer<typeof TestRunRecord>;

export const RunErrorGroup = z.object({
  message: z.string(),
  /** Failed attempts that ended with this message. */
  count: z.number().int(),
  /** Distinct stack traces, at most 10. */
  stacks: z.array(z.string()),
  /** The tests it hit, at most 100. */
  tests: z.array(
    z.object({
      testCaseId: z.string(),
      title: z.string(),
      file: z.string(),
      project: z.string().nullable(),
      attempts: z.array(z.number().int()),
    }),
  ),
});
export const RunErrors = z.object({ total: z.number().int(), groups: z.array(RunErrorGroup) });
export type RunErrors = z.infer<typeof RunErrors>;

export const RunSpecTest = z.object({
  testCaseId: z.string(),
  title: z.string(),
  titlePath: z.array(z.string()),
  project: z.string().nullable(),
  outcome: Outcome,
  attempts: z.number().int(),
  durationMs: z.number(),
  errorMessage: z.string().nullable(),
});
export const RunSpec = OutcomeStats.extend({
  file: z.string(),
  durationMs: z.number(),
  tests: z.array(RunSpecTest),
});
export type RunSpec = z.infer<typeof RunSpec>;

export const ArtifactDownload = z.object({
  id: z.string(),
  name: z.string(),
  contentType: z.string(),
  size: z.number().int(),
  url: z.string(),
});
export type ArtifactDownload = z.infer<typeof ArtifactDownload>;

export const TestRunDetail = TestRunRecord.extend({
  errors: RunErrors.optional(),
  coverage: CoverageReport.nullable().optional(),
  specs: z.array(RunSpec).optional(),
  /** Keyed by each entry of `urls`; null for an entry that matches no artifact of the run. */
  artifacts: z.record(z.string(), ArtifactDownload.nullable()).nullable().optional(),
  /** Each failed test with its verdict against the run's base branch (include=failures). */
  failures: RunFailures.optional(),
  /** The project's quality gate as judged when the run finished (include=gate; issue 32). */
  gate: RunGate.optional(),
  host: RunHost.nullable().describe(
    'The machine the run started on, as its reporter sent it; null when not sent',
  ),
  settings: RunSettings.nullable().describe(
    "The runner's settings (workers, fullyParallel, shard, seed), as sent at start; null when not sent",
  ),
});
export type TestRunDetail = z.infer<typeof TestRunDetail>;

export const TestCaseExecution = z.object({
  runId: z.string(),
  counter: z.number().int(),
  branch: z.string().nullable(),
  environment: z.string().nullable(),
  project: z.string().nullable(),
  outcome: Outcome,
  attempts: z.number().int(),
  durationMs: z.number(),
  startedAt: z.string(),
  errorMessage: z.string().nullable(),
  errorSignature: SignatureRef.nullable().describe(
    "The signature of the execution's last failed attempt (its error group); null when none failed with a message",
  ),
});
export type TestCaseExecution = z.infer<typeof TestCaseExecution>;

export const TestCaseRecord = z.object({
  id: z.string(),
  file: z.string(),
  titlePath: z.array(z.string()),
  title: z.string(),
  platforms: z.array(z.string()),
  tags: z.array(z.string()),
  firstSeenAt: z.string(),
  lastSeenAt: z.string(),
  stats: OutcomeStats,
});
export type TestCaseRecord = z.infer<typeof TestCaseRecord>;

export const TestCaseDetail = TestCaseRecord.extend({
  history: z.object({ items: z.array(TestCaseExecution), pagination: Pagination }).optional(),
});
export type TestCaseDetail = z.infer<typeof TestCaseDetail>;

/** Rates are percentages across the API (analytics too): 0 to 100, two decimals. */
const RATE =
  "This outcome's share of every recorded execution, skipped ones included (0 to 100, two decimals); 0 without executions";

export const SpecSummary = OutcomeStats.extend({
  file: z.string(),
  /** Test cases of the file. */
  testCount: z.number().int(),
  passRate: z.number().describe(RATE),
  failRate: z.number().describe(RATE),
  flakyRate: z.number().describe(RATE),
});
export type SpecSummary = z.infer<typeof SpecSummary>;

export const TestRunsResponse = listEnvelope(TestRunRecord);
export const TestRunDetailResponse = successEnvelope(TestRunDetail);
export const TestCaseDetailResponse = successEnvelope(TestCaseDetail);
export const TestCaseHistoryResponse = listEnvelope(TestCaseExecution);
export const SpecsResponse = listEnvelope(SpecSummary);
