import { z } from 'zod';
import { listEnvelope, successEnvelope } from './envelope';
import { queryInteger } from './http';
import { InstantInput } from './instant';
import { Outcome } from './testResults';
import { RunCommit } from './testResultsEvents';
import { ErrorFrame } from './errorSignatureSchemas';

/**
 * What changed, and why (issue 31): error groups across runs, a verdict per failure, the comparison of two
 * runs and the suspect commits of a new failure. All are reads over the results already recorded; the
 * signature of each failed attempt is `errorSignature` of its error.
 */

const MAX_LIMIT = 100;
const page = queryInteger({ min: 1, fallback: 1 });
const limit = queryInteger({ min: 1, max: MAX_LIMIT, fallback: 20 });
const Rfc3339 = z.preprocess(
  (value) => (typeof value === 'string' ? value.toUpperCase() : value),
  InstantInput,
);

/** Days of history a verdict looks back on, unless the project says otherwise. */
export const VERDICT_WINDOW_DAYS = 14;
/** The base branch of a run that names none, in a project that has not set one. */
export const DEFAULT_BASE_BRANCH = 'main';

// ---------------------------------------------------------------------------------------------------------
// Signatures as reads show them

export const SignatureRef = z.object({
  id: z.string().describe('12 hexadecimal characters'),
  text: z.string().describe("The normalised message's first line and where it was thrown"),
});
export type SignatureRef = z.infer<typeof SignatureRef>;

// ---------------------------------------------------------------------------------------------------------
// A verdict per failure

export const FailureVerdict = z
  .enum(['new', 'failing-on-base', 'known-flaky', 'quarantined'])
  .describe(
    "new: not failing with this signature on the base branch in the window; failing-on-base: the base branch's latest finished run before this one fails it too; known-flaky: it was flaky in the window (on any branch), or failed on the base branch with this signature while the base's latest run passed it; quarantined: the test was quarantined when the run ran, for this failure's signature (a failure with another signature gets its verdict as usual)",
  );
export type FailureVerdict = z.infer<typeof FailureVerdict>;

export const VerdictCounts = z.object({
  new: z.number().int(),
  failingOnBase: z.number().int(),
  knownFlaky: z.number().int(),
  quarantined: z.number().int(),
});
export type VerdictCounts = z.infer<typeof VerdictCounts>;

/** The quarantine of a failed test when the run ran (issue 32). */
export const FailureQuarantine = z.object({
  id: z.string(),
  ownerId: z.string(),
  expiresAt: z.string(),
  forgives: z
    .boolean()
    .describe(
      'true: the failure has one of the signatures it forgives (verdict quarantined); false: another signature, judged as usual — the quarantine would have masked it',
    ),
});
export type FailureQuarantine = z.infer<typeof FailureQuarantine>;

export const RunFailure = z.object({
  testCaseId: z.string(),
  title: z.string(),
  titlePath: z.array(z.string()),
  file: z.string(),
  project: z.string().nullable(),
  verdict: FailureVerdict,
  /** The signature of the test's last failed attempt; null when its error had no message. */
  signature: SignatureRef.nullable(),
  errorMessage: z.string().nullable(),
  /** The test's quarantine when the run ran (its finish, or now while it runs); null: not quarantined. */
  quarantine: FailureQuarantine.nullable(),
});
export type RunFailure = z.infer<typeof RunFailure>;

export const RunFailures = z.object({
  baseBranch: z.string().describe("The run's base: the branch it named, else the project's default branch"),
  baseRunId: z
    .string()
    .nullable()
    .describe("The base branch's latest finished run that started before this one"),
  windowDays: z.number().int(),
  counts: VerdictCounts,
  /** Every failed test of the run (outcome failed), in file and title order. */
  items: z.array(RunFailure),
});
export type RunFailures = z.infer<typeof RunFailures>;

// ---------------------------------------------------------------------------------------------------------
// Errors explorer

export const ERROR_SORT_KEYS = ['occurrences', 'tests', 'firstSeen', 'lastSeen'] as const;

export const ErrorsQuery = z
  .strictObject({
    page,
    limit,
    start_date: Rfc3339.optional().describe(
      'RFC 3339; sent together with end_date; default: the last 30 days',
    ),
    end_date: Rfc3339.optional().describe('RFC 3339; sent together with start_date'),
    branch: z.string().min(1).max(500).optional(),
    environment: z.string().min(1).max(200).optional(),
    search: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe('Case-insensitive substring of the signature, a sample message or the frame'),
    sortBy: z.enum(ERROR_SORT_KEYS).default('occurrences'),
    sortOrder: z.enum(['asc', 'desc']).default('desc'),
  })
  .superRefine((query, ctx) => {
    if ((query.start_date === undefined) !== (query.end_date === undefined)) {
      const missing = query.start_date === undefined ? 'start_date' : 'end_date';
      const other = missing === 'start_date' ? 'end_date' : 'start_date';
      ctx.addIssue({ code: 'custom', path: [missing], message: `is required with ${other}` });
    }
    if (query.start_date && query.end_date && Date.parse(query.end_date) < Date.parse(query.start_date)) {
      ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'must not be before start_date' });
    }
  });
export type ErrorsQuery = z.infer<typeof ErrorsQuery>;

export const ErrorGroup = z.object({
  signatureId: z.string(),
  signature: z.string().describe('The readable form: message and frame'),
  message: z.string().describe('The normalised message'),
  frame: ErrorFrame.nullable(),
  sampleMessage: z.string().describe('The latest raw message of the group, first 2,000 characters'),
  occurrences: z.number().int().describe('Failed attempts with this signature in the range'),
  testsAffected: z.number().int(),
  runs: z.number().int(),
  branches: z.array(z.string()).describe('At most 20, most frequent first'),
  firstSeenAt: z.string(),
  lastSeenAt: z.string(),
  daily: z
    .array(z.object({ day: z.string(), count: z.number().int() }))
    .describe('Every day of the range, oldest first'),
});
export type ErrorGroup = z.infer<typeof ErrorGroup>;

export const ErrorGroupPath = z.object({
  projectId: z.string().min(1),
  signatureId: z.string().regex(/^[0-9a-f]{12}$/, { error: 'must be 12 hexadecimal characters' }),
});

export const ErrorGroupQuery = z.strictObject({
  start_date: Rfc3339.optional(),
  end_date: Rfc3339.optional(),
  branch: z.string().min(1).max(500).optional(),
  environment: z.string().min(1).max(200).optional(),
});
export type ErrorGroupQuery = z.infer<typeof ErrorGroupQuery>;

export const ErrorGroupDetail = ErrorGroup.extend({
  tests: z
    .array(
      z.object({
        testCaseId: z.string(),
        title: z.string(),
        file: z.string(),
        project: z.string().nullable(),
        occurrences: z.number().int(),
        lastSeenAt: z.string(),
      }),
    )
    .describe('The tests it hit, most recently hit first, at most 100'),
  hits: z
    .array(
      z.object({
        runId: z.string(),
        counter: z.number().int(),
        branch: z.string().nullable(),
        environment: z.string().nullable(),
        commit: RunCommit.nullable(),
        startedAt: z.string(),
        occurrences: z.number().int(),
      }),
    )
    .describe('The runs it hit, newest first, at most 100'),
});
export type ErrorGroupDetail = z.infer<typeof ErrorGroupDetail>;

// ---------------------------------------------------------------------------------------------------------
// Run comparison

export const COMPARE_DEFAULTS = { durationRatio: 1.5, durationFloorMs: 1_000, limit: 100 } as const;

const positiveNumber = (fallback: number, min: number) =>
  z.preprocess(
    (value) => (value === undefined || value === '' ? undefined : Number(value)),
    z.number().min(min).max(1_000_000).default(fallback),
  );

export const CompareQuery = z
  .strictObject({
    base: z.string().min(1).max(200).optional().describe('The run to compare with'),
    baseBranch: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe('Compare with the latest finished run on this branch that started before this one'),
    durationRatio: positiveNumber(COMPARE_DEFAULTS.durationRatio, 1).describe(
      'A test is slower when its duration is more than this many times the base (default 1.5) …',
    ),
    durationFloorMs: positiveNumber(COMPARE_DEFAULTS.durationFloorMs, 0).describe(
      '… and longer by more than this many milliseconds (default 1000)',
    ),
    limit: queryInteger({ min: 1, max: 1_000, fallback: COMPARE_DEFAULTS.limit }).describe(
      'Items listed per category (counts are always complete)',
    ),
  })
  .superRefine((query, ctx) => {
    if (query.base !== undefined && query.baseBranch !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['baseBranch'], message: 'cannot be sent with base' });
    }
  });
export type CompareQuery = z.infer<typeof CompareQuery>;

export const CompareRun = z.object({
  id: z.string(),
  counter: z.number().int(),
  status: z.enum(['running', 'finished']),
  outcome: z.enum(['passed', 'failed']).nullable(),
  branch: z.string().nullable(),
  commit: RunCommit.nullable(),
  startedAt: z.string(),
});
export type CompareRun = z.infer<typeof CompareRun>;

export const CompareItem = z.object({
  testCaseId: z.string(),
  title: z.string(),
  titlePath: z.array(z.string()),
  file: z.string(),
  project: z.string().nullable(),
  outcome: Outcome.nullable().describe('In the run; null for a removed test'),
  baseOutcome: Outcome.nullable().describe('In the base; null for an added test'),
  durationMs: z.number().nullable(),
  baseDurationMs: z.number().nullable(),
  signature: SignatureRef.nullable().describe("The failure's signature in the run, where it failed"),
});
export type CompareItem = z.infer<typeof CompareItem>;

const Category = z.object({ count: z.number().int(), items: z.array(CompareItem) });

export const COMPARE_CATEGORIES = [
  'newFailures',
  'fixed',
  'stillFailing',
  'newlyFlaky',
  'added',
  'removed',
  'slower',
] as const;
export type CompareCategory = (typeof COMPARE_CATEGORIES)[number];

export const RunComparison = z.object({
  run: CompareRun,
  base: CompareRun.nullable(),
  baseBranch: z.string().nullable(),
  /** Why there is no base (then every category is empty); null when there is one. */
  noBaseReason: z.string().nullable(),
  thresholds: z.object({ durationRatio: z.number(), durationFloorMs: z.number() }),
  newFailures: Category.describe('Failed here, passed, flaky or skipped in the base'),
  fixed: Category.describe('Failed in the base, passed or flaky here'),
  stillFailing: Category.describe('Failed in both'),
  newlyFlaky: Category.describe('Flaky here, passed in the base'),
  added: Category.describe('In this run only'),
  removed: Category.describe('In the base only'),
  slower: Category.describe('Passed in both and slower by more than both thresholds'),
});
export type RunComparison = z.infer<typeof RunComparison>;

// ---------------------------------------------------------------------------------------------------------
// Suspect commits

export const SuspectsQuery = z.strictObject({
  branch: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe("Default: the branch of the test's latest execution"),
});
export type SuspectsQuery = z.infer<typeof SuspectsQuery>;

export const SuspectRun = z.object({
  runId: z.string(),
  counter: z.number().int(),
  outcome: Outcome,
  commit: RunCommit.nullable(),
  startedAt: z.string(),
});
export type SuspectRun = z.infer<typeof SuspectRun>;

export const SuspectCommits = z.object({
  branch: z.string().nullable(),
  newFailure: z
    .boolean()
    .describe("True when the test's latest execution on the branch failed and the one before it did not"),
  failingRuns: z
    .number()
    .int()
    .min(0)
    .describe(
      'The runs in a row on the branch, the latest included, where the test failed; 0 when its latest execution there did not fail',
    ),
  lastPass: SuspectRun.nullable().describe(
    'The last run on the branch where the test passed (or was flaky) before it started failing',
  ),
  firstFail: SuspectRun.nullable().describe('The first run of its latest failing streak on the branch'),
  between: z
    .array(SuspectRun)
    .describe('Runs between the two that skipped the test, oldest first, at most 50'),
});
export type SuspectCommits = z.infer<typeof SuspectCommits>;

// ---------------------------------------------------------------------------------------------------------
// Answers

export const ErrorsResponse = listEnvelope(ErrorGroup);
export const ErrorGroupResponse = successEnvelope(ErrorGroupDetail);
export const RunComparisonResponse = successEnvelope(RunComparison);
export const SuspectCommitsResponse = successEnvelope(SuspectCommits);
