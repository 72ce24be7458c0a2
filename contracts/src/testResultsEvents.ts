import { z } from 'zod';
import { GateRulesChanged, RunGateRecord } from './gates';
import { QUARANTINE_EVENTS, QuarantinePolicyChanged } from './quarantineEvents';
import { defineEvent, type EventOf } from './events';
import { RecordedResultItem } from './testResults';

/**
 * The events of automated test runs (version 1 each), recorded by the test-results service.
 *
 * Streams:
 * - `run-<runId>`: the lifecycle, small and folded on every decision: run.created, run.shard-started,
 *   run.shard-finished, run.finished.
 * - `run-<runId>-results`: one test.result-recorded per result, its event id derived from (runId, result
 *   key), so a result sent again is found by id and never recorded twice.
 * - `run-<runId>-artifacts`, `run-<runId>-coverage`: artifact metadata and coverage reports. Kept off the
 *   lifecycle stream because a run may have thousands of artifacts and a coverage report may list every
 *   file, and the lifecycle is read before every write to the run.
 * - `ci-run-<projectId>:<ciRunId>`: run.ci-run-claimed, appended once, so shards sending the same ciRunId
 *   join one run.
 * - `project-run-counter-<projectId>`: run.counter-allocated, one per run; the stream's version is the
 *   last run number of the project.
 *
 * Webhooks: the spec's `run.started` (RUN_STARTED) is `run.created`, recorded exactly once per run however
 * many shards join it; `run.finished` (RUN_FINISHED) is `run.finished`, recorded once, when the last shard
 * finished.
 */

const Timestamp = z.iso.datetime({ offset: true });
const Label = (max: number) => z.string().trim().min(1).max(max);

export const RunCommit = z.object({
  sha: Label(100),
  message: z.string().max(10_000).optional(),
  author: z.string().max(500).optional(),
});
export type RunCommit = z.infer<typeof RunCommit>;

export const RunCi = z.object({
  provider: Label(100).optional(),
  buildId: Label(200).optional(),
  url: z.url().max(2_000).optional(),
});
export type RunCi = z.infer<typeof RunCi>;

export const RunFramework = z.object({ name: Label(100), version: Label(100).optional() });
export type RunFramework = z.infer<typeof RunFramework>;

/** The most shards a run has. */
export const MAX_SHARDS = 1_000;

/** A shard's `current` is at most its `total`: checked once each is valid, so a refusal says one thing. */
const withinTotal = (shard: { current: number; total: number }) => shard.current <= shard.total;
const WITHIN_TOTAL = {
  error: 'must not be more than total',
  path: ['current'],
  when: (payload: z.core.ParsePayload) => payload.issues.length === 0,
};

/** One shard of a sharded run, 1-based as Playwright's `--shard=current/total`. */
export const Shard = z
  .object({ current: z.number().int().min(1), total: z.number().int().min(1).max(MAX_SHARDS) })
  .refine(withinTotal, WITHIN_TOTAL);

/**
 * A shard as a request sends it: `current` also states the bound `total` has, so that the document says
 * what the rule between them allows. The events keep `Shard`, the contract they were registered with
 * (the schema registry refuses a narrowed one).
 */
export const ShardInput = z
  .object({
    current: z.number().int().min(1).max(MAX_SHARDS),
    total: z.number().int().min(1).max(MAX_SHARDS),
  })
  .refine(withinTotal, WITHIN_TOTAL);
export type Shard = z.infer<typeof Shard>;

/**
 * The machine a run started on, as its reporter saw it at start: kept so that load-dependent failures can be
 * explained later. The machine's name never leaves it: `nameHash` is the first 16 hex digits of its sha256.
 */
export const RunHost = z.object({
  nameHash: z
    .string()
    .regex(/^[0-9a-f]{16}$/, { error: 'must be 16 lowercase hex digits (the start of a sha256)' })
    .optional(),
  os: Label(200).optional(),
  cpus: z.number().int().min(1).max(100_000).optional(),
  memoryMb: z.number().int().min(0).max(1_000_000_000).optional(),
  /** The 1, 5 and 15 minute load averages. */
  loadAverage: z
    .array(z.number().min(0))
    .length(3, { error: 'must be the 1, 5 and 15 minute load averages' })
    .optional(),
});
export type RunHost = z.infer<typeof RunHost>;

/** The runner's settings that decide which tests share a worker and in which order. */
export const RunSettings = z.object({
  workers: z.number().int().min(1).max(100_000).optional(),
  fullyParallel: z.boolean().optional(),
  shard: Shard.optional(),
  seed: Label(200).optional(),
});
export type RunSettings = z.infer<typeof RunSettings>;

/** How a run (or one shard of it) ended, as the test runner reports it. */
export const RunStatus = z.enum(['passed', 'failed', 'timedOut', 'interrupted']);
export type RunStatus = z.infer<typeof RunStatus>;

export const CoverageMetric = z
  .object({ total: z.number().int().min(0), covered: z.number().int().min(0) })
  .refine((metric) => metric.covered <= metric.total, {
    error: 'must not be more than total',
    path: ['covered'],
  });
export type CoverageMetric = z.infer<typeof CoverageMetric>;

/**
 * The four metrics of Istanbul's json-summary. Each may be absent: lcov has no statements, Cobertura has
 * lines and branches only, and a report (or a file of it) says what its tool measured and nothing more.
 * At least one must be there: an entry without any measures nothing.
 */
const CoverageMetrics = {
  lines: CoverageMetric.optional(),
  statements: CoverageMetric.optional(),
  functions: CoverageMetric.optional(),
  branches: CoverageMetric.optional(),
};
const METRIC_NAMES = ['lines', 'statements', 'functions', 'branches'] as const;
const measuresSomething = (entry: Partial<Record<(typeof METRIC_NAMES)[number], unknown>>) =>
  METRIC_NAMES.some((name) => entry[name] !== undefined);
const ONE_METRIC = 'needs at least one of lines, statements, functions, branches';

export const CoverageFile = z
  .object({ path: Label(1_024), ...CoverageMetrics })
  .refine(measuresSomething, { error: ONE_METRIC });
export type CoverageFile = z.infer<typeof CoverageFile>;

/**
 * A coverage summary (Istanbul's json-summary shape, any of its four metrics), with its files when the
 * runner sends them.
 */
export const CoverageReport = z
  .object({
    ...CoverageMetrics,
    files: z.array(CoverageFile).max(20_000).optional(),
  })
  .refine(measuresSomething, { error: ONE_METRIC });
export type CoverageReport = z.infer<typeof CoverageReport>;

/** What is known of an uploaded artifact: the blob itself lives in blob storage under `blobKey`. */
export const ArtifactRecord = z.object({
  id: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/, { error: 'must be an id (letters, digits, "-" and "_")' }),
  name: Label(500),
  contentType: Label(200),
  size: z.number().int().min(0),
  blobKey: Label(1_024),
  /** The result it belongs to, as the uploader named it; null for an artifact of the whole run. */
  resultRef: z.string().min(1).max(2_000).nullable(),
});
export type ArtifactRecord = z.infer<typeof ArtifactRecord>;

export const RunCreated = defineEvent(
  'run.created',
  1,
  z.object({
    runId: z.string(),
    projectId: z.string(),
    /** The project's run number: 1, 2, 3…, never reused. */
    counter: z.number().int().min(1),
    ciRunId: z.string().nullable(),
    title: z.string().nullable(),
    branch: z.string().nullable(),
    environment: z.string().nullable(),
    commit: RunCommit.nullable(),
    ci: RunCi.nullable(),
    framework: RunFramework.nullable(),
    /** Shards announced by the start that created the run; null: not (yet) sharded. */
    shardTotal: z.number().int().min(1).nullable(),
    startedAt: Timestamp,
    tags: z.array(z.string()),
    /**
     * The branch its failures are judged against: the one the start named, else the project's default
     * branch at that time. Absent from runs created before it was recorded: they use DEFAULT_BASE_BRANCH.
     */
    baseBranch: z.string().optional(),
    /** The host and runner settings of the start that created the run; absent when it sent none. */
    host: RunHost.optional(),
    settings: RunSettings.optional(),
  }),
);

export const RunShardStarted = defineEvent(
  'run.shard-started',
  1,
  z.object({ runId: z.string(), shard: Shard, startedAt: Timestamp }),
);

export const RunShardFinished = defineEvent(
  'run.shard-finished',
  1,
  z.object({
    runId: z.string(),
    shard: Shard,
    finishedAt: Timestamp,
    /** As the shard reported it; null when it did not say. */
    status: RunStatus.nullable(),
  }),
);

/** A verdict summary of a finished run's failures (failureAnalysis.ts defines each verdict). */
export const RunFinishedFailures = z.object({
  baseBranch: z.string(),
  baseRunId: z.string().nullable(),
  counts: z.object({
    new: z.number().int().min(0),
    failingOnBase: z.number().int().min(0),
    knownFlaky: z.number().int().min(0),
    quarantined: z.number().int().min(0),
  }),
  /** The run's new failures, in file and title order, at most 20. */
  newFailures: z
    .array(
      z.object({
        testCaseId: z.string(),
        title: z.string(),
        file: z.string(),
        project: z.string().nullable(),
        signatureId: z.string().nullable(),
      }),
    )
    .max(20),
});
export type RunFinishedFailures = z.infer<typeof RunFinishedFailures>;

export const RunFinished = defineEvent(
  'run.finished',
  1,
  z.object({
    runId: z.string(),
    finishedAt: Timestamp,
    /**
     * As given by a run without shards; for a sharded run, the worst its shards reported (failed, then
     * timedOut, then interrupted; passed only when every shard said passed). Null when unknown: read models
     * then judge the run by its results.
     */
    status: RunStatus.nullable(),
    /**
     * The verdicts of the run's failures against its base branch, decided from the read model when the run
     * finished (with shards: when the last one did). Absent from events recorded before it existed, and when
     * the read model could not say.
     */
    failures: RunFinishedFailures.optional(),
    /**
     * The project's quality gate judged when the run finished (issue 32), quarantined failures left out.
     * Absent when the project had no gate rules then, and from events recorded before gates existed.
     */
    gate: RunGateRecord.optional(),
  }),
);

export const RunCoverageAdded = defineEvent(
  'run.coverage-added',
  1,
  z.object({ runId: z.string(), coverage: CoverageReport, addedAt: Timestamp }),
);

export const RunArtifactAdded = defineEvent(
  'run.artifact-added',
  1,
  z.object({ runId: z.string(), artifact: ArtifactRecord, addedAt: Timestamp }),
);

/** One attempt of one test; recorded once per (file, titlePath, project, attempt) in its run. */
export const TestResultRecorded = defineEvent(
  'test.result-recorded',
  1,
  z.object({ runId: z.string(), item: RecordedResultItem }),
);

/** The first start that named this ciRunId in this project created `runId`; later starts join it. */
export const RunCiRunClaimed = defineEvent(
  'run.ci-run-claimed',
  1,
  z.object({ runId: z.string(), projectId: z.string(), ciRunId: z.string() }),
);

export const RunCounterAllocated = defineEvent(
  'run.counter-allocated',
  1,
  z.object({ runId: z.string(), counter: z.number().int().min(1) }),
);

/** Every test-results event type, for consumers that dispatch on type and version. */
export const TEST_RESULTS_EVENTS = [
  RunCreated,
  RunShardStarted,
  RunShardFinished,
  RunFinished,
  RunCoverageAdded,
  RunArtifactAdded,
  TestResultRecorded,
  RunCiRunClaimed,
  RunCounterAllocated,
  ...QUARANTINE_EVENTS,
  QuarantinePolicyChanged,
  GateRulesChanged,
] as const;

/** The events of a run's lifecycle stream. */
export type RunLifecycleEvent = EventOf<
  typeof RunCreated | typeof RunShardStarted | typeof RunShardFinished | typeof RunFinished
>;
export type TestResultsEvent = EventOf<(typeof TEST_RESULTS_EVENTS)[number]>;

/**
 * Parses an event (read back from the store or the bus) into the test-results union; throws a ZodError
 * when its data does not fit and an Error when its type or version is not a test-results event.
 *
 * @example const event = parseTestResultsEvent({ type: envelope.type, version: envelope.version, data: envelope.data });
 */
export function parseTestResultsEvent(event: {
  type: string;
  version: number;
  data: unknown;
}): TestResultsEvent {
  const known = TEST_RESULTS_EVENTS.find((candidate) => candidate.is(event));
  if (!known) throw new Error(`Not a test-results event: ${event.type} version ${event.version}`);
  return known.schema.parse(event);
}
