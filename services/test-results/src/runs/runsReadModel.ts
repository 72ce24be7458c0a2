/**
 * The runs read model: runs, test cases, each test's outcome per run and platform (run_tests), every
 * attempt (results), artifacts and the latest coverage per run, fed by the test-results events.
 *
 * Invariants: every write is an upsert by natural key, and whatever is derived (a run_tests row, a run's
 * stats and outcome) is recomputed from the rows it derives from, so applying an event twice, results of a
 * run in many batches, or attempts out of order all end in the same tables. Results, artifacts and coverage
 * carry no project in their data: it comes from the envelope, so they may be applied before run.created
 * (another stream) and still land in their project.
 */
import {
  keptInstant,
  parseTestResultsEvent,
  testCaseIdOf,
  type ResultItem,
  type TestResultsEvent,
} from '@verdict/contracts';
import { eventProjectId, type Projection, type SqlExecutor, type StoredEvent } from '@verdict/platform';

/** The default name of the projection, hence of the schema that holds its tables. */
export const RUNS_READ_MODEL = 'test_results_read';

/** Platform of a result sent without `project`; stored as '' so it can take part in primary keys. */
export const NO_PLATFORM = '';

function tableDefinitions(schema: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${schema}.runs (
       id text PRIMARY KEY,
       project_id text NOT NULL,
       counter integer NOT NULL,
       status text NOT NULL,
       reported_status text,
       outcome text,
       ci_run_id text,
       title text,
       branch text,
       environment text,
       commit jsonb,
       ci jsonb,
       framework jsonb,
       tags text[] NOT NULL,
       started_at timestamptz NOT NULL,
       finished_at timestamptz,
       duration_ms bigint,
       total integer NOT NULL DEFAULT 0,
       passed integer NOT NULL DEFAULT 0,
       failed integer NOT NULL DEFAULT 0,
       flaky integer NOT NULL DEFAULT 0,
       skipped integer NOT NULL DEFAULT 0
     )`,
    `CREATE INDEX IF NOT EXISTS runs_project_started ON ${schema}.runs (project_id, started_at DESC, id DESC)`,
    // A sharded run's shards (run.created's total, run.shard-started and -finished); NULL without shards and
    // in rows written before these columns. Adding them is instant whatever the table's size.
    `ALTER TABLE ${schema}.runs ADD COLUMN IF NOT EXISTS shard_total integer,
       ADD COLUMN IF NOT EXISTS shards_started integer[], ADD COLUMN IF NOT EXISTS shards_finished integer[]`,
    `CREATE TABLE IF NOT EXISTS ${schema}.test_cases (
       project_id text NOT NULL,
       id text NOT NULL,
       file text NOT NULL,
       title_path text[] NOT NULL,
       title text NOT NULL,
       platforms text[] NOT NULL,
       tags text[] NOT NULL,
       first_seen_at timestamptz NOT NULL,
       last_seen_at timestamptz NOT NULL,
       PRIMARY KEY (project_id, id)
     )`,
    `CREATE INDEX IF NOT EXISTS test_cases_file ON ${schema}.test_cases (project_id, file)`,
    `CREATE TABLE IF NOT EXISTS ${schema}.run_tests (
       run_id text NOT NULL,
       test_case_id text NOT NULL,
       project text NOT NULL,
       project_id text NOT NULL,
       file text NOT NULL,
       outcome text NOT NULL,
       -- Some attempt went as expected / some did not (not counting skips); NULL in rows written before
       -- these columns.
       as_expected boolean,
       unexpected boolean,
       attempts integer NOT NULL,
       duration_ms double precision NOT NULL,
       started_at timestamptz NOT NULL,
       -- The attempt whose error is kept: -1 when none failed, NULL in rows written before this column.
       error_attempt integer,
       error_message text,
       error_file text,
       error_line integer,
       PRIMARY KEY (run_id, test_case_id, project)
     )`,
    // Tables made before run_tests kept what its attempts add up to get the columns; adding them is instant
    // whatever the table's size. Their rows hold NULL there and merge from their outcome (exact: computed
    // from the same two facts) and stored attempts (legacyErrorAttempt).
    `ALTER TABLE ${schema}.run_tests ADD COLUMN IF NOT EXISTS as_expected boolean,
       ADD COLUMN IF NOT EXISTS unexpected boolean, ADD COLUMN IF NOT EXISTS error_attempt integer`,
    `CREATE INDEX IF NOT EXISTS run_tests_history ON ${schema}.run_tests (project_id, test_case_id, started_at DESC)`,
    `CREATE INDEX IF NOT EXISTS run_tests_file ON ${schema}.run_tests (project_id, file)`,
    // The attempt's JSON parts are json, kept as the text they came in: they are read whole, never searched
    // inside, and turning every attempt's parts into jsonb was a sixth of the projector's time. Tables made
    // with jsonb keep it; PostgreSQL casts on insert.
    `CREATE TABLE IF NOT EXISTS ${schema}.results (
       run_id text NOT NULL,
       test_case_id text NOT NULL,
       project text NOT NULL,
       attempt integer NOT NULL,
       project_id text NOT NULL,
       status text NOT NULL,
       expected_status text,
       duration_ms double precision NOT NULL,
       started_at timestamptz NOT NULL,
       error json,
       steps json,
       stdout json,
       stderr json,
       attachments json,
       annotations json,
       tags text[] NOT NULL,
       location json,
       PRIMARY KEY (run_id, test_case_id, project, attempt)
     )`,
    `CREATE TABLE IF NOT EXISTS ${schema}.artifacts (
       run_id text NOT NULL,
       id text NOT NULL,
       project_id text NOT NULL,
       name text NOT NULL,
       content_type text NOT NULL,
       size bigint NOT NULL,
       blob_key text NOT NULL,
       result_ref text,
       added_at timestamptz NOT NULL,
       PRIMARY KEY (run_id, id)
     )`,
    `CREATE TABLE IF NOT EXISTS ${schema}.coverage (
       run_id text PRIMARY KEY,
       project_id text NOT NULL,
       report jsonb NOT NULL,
       added_at timestamptz NOT NULL
     )`,
  ];
}

type Event = TestResultsEvent & { projectId: string | null };
type Of<T extends TestResultsEvent['type']> = Extract<TestResultsEvent, { type: T }>;

/** The events of one batch, sorted by what they write. */
interface Batch {
  lifecycle: Event[];
  results: { projectId: string; data: Of<'test.result-recorded'>['data'] }[];
  artifacts: { projectId: string; data: Of<'run.artifact-added'>['data'] }[];
  coverage: { projectId: string; data: Of<'run.coverage-added'>['data'] }[];
  /** Runs that started or finished in the batch: their stats are recounted (results move them by deltas). */
  recountedRuns: Set<string>;
}

function sortBatch(events: StoredEvent[]): Batch {
  const batch: Batch = { lifecycle: [], results: [], artifacts: [], coverage: [], recountedRuns: new Set() };
  for (const stored of events) {
    const event = parseTestResultsEvent(stored);
    switch (event.type) {
      case 'test.result-recorded':
        batch.results.push({ projectId: eventProjectId(stored), data: event.data });
        break;
      case 'run.artifact-added':
        batch.artifacts.push({ projectId: eventProjectId(stored), data: event.data });
        break;
      case 'run.coverage-added':
        batch.coverage.push({ projectId: eventProjectId(stored), data: event.data });
        break;
      case 'run.created':
      case 'run.finished':
        batch.lifecycle.push({ ...event, projectId: stored.projectId });
        batch.recountedRuns.add(event.data.runId);
        break;
      case 'run.shard-started':
      case 'run.shard-finished':
        batch.lifecycle.push({ ...event, projectId: stored.projectId });
        break;
      // Ci-run claims and counters change nothing a read serves: run.finished closes the run.
      default:
        continue;
    }
  }
  return batch;
}

/** Adds a shard to a run's list of started or finished shards, once, keeping the list sorted. */
const addShard = (column: 'shards_started' | 'shards_finished') =>
  `${column} = ARRAY(SELECT DISTINCT s FROM unnest(coalesce(${column}, '{}'::int[]) || $2::int) AS s ORDER BY s)`;

async function applyLifecycle(tx: SqlExecutor, schema: string, event: Event): Promise<void> {
  if (event.type === 'run.shard-started' || event.type === 'run.shard-finished') {
    const { runId, shard } = event.data;
    const column = event.type === 'run.shard-started' ? 'shards_started' : 'shards_finished';
    await tx.query(
      `UPDATE ${schema}.runs SET shard_total = greatest(coalesce(shard_total, 0), $3), ${addShard(column)}
       WHERE id = $1`,
      [runId, shard.current, shard.total],
    );
    return;
  }
  if (event.type === 'run.created') {
    const d = event.data;
    await tx.query(
      `INSERT INTO ${schema}.runs (id, project_id, counter, status, ci_run_id, title, branch, environment,
         commit, ci, framework, tags, started_at, shard_total)
       VALUES ($1, $2, $3, 'running', $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb, $11::text[], $12, $13)
       ON CONFLICT (id) DO NOTHING`,
      [
        d.runId,
        d.projectId,
        d.counter,
        d.ciRunId,
        d.title,
        d.branch,
        d.environment,
        jsonOrNull(d.commit),
        jsonOrNull(d.ci),
        jsonOrNull(d.framework),
        d.tags,
        keptInstant(d.startedAt),
        d.shardTotal,
      ],
    );
  } else if (event.type === 'run.finished') {
    await tx.query(
      `UPDATE ${schema}.runs SET status = 'finished', finished_at = $2, reported_status = $3,
         duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM ($2::timestamptz - started_at)) * 1000)::bigint)
       WHERE id = $1`,
      [event.data.runId, keptInstant(event.data.finishedAt), event.data.status],
    );
  }
}

const jsonOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);

/** A result of the batch with its test case id, computed once (a SHA-256 of its key). */
interface KeyedResult {
  projectId: string;
  runId: string;
  testCaseId: string;
  item: ResultItem;
}

function keyed(results: Batch['results']): KeyedResult[] {
  return results.map(({ projectId, data: { runId, item } }) => ({
    projectId,
    runId,
    testCaseId: testCaseIdOf(item),
    item,
  }));
}

/**
 * The batch's results in two statements whatever its size: the rows themselves with the run_tests rows and
 * run stats they move, and their test cases. The rows' JSON is parsed by PostgreSQL once, and no statement
 * reads a whole run or the stored attempts again: a batch costs the same at the 500th result of a run as at
 * its 50,000th.
 */
async function applyResults(tx: SqlExecutor, schema: string, results: Batch['results']): Promise<void> {
  if (results.length === 0) return;
  const batch = keyed(results);
  await recordAttempts(tx, schema, batch);
  await upsertTestCases(tx, schema, batch);
}

/**
 * A test's outcome in a run from what its attempts so far add up to. An attempt went as expected when its
 * status is the expected one (passed unless the runner said otherwise, e.g. Playwright's test.fail());
 * skipped attempts count for nothing but a test that was only skipped.
 */
const OUTCOME_OF = (asExpected: string, unexpected: string) => `CASE
    WHEN ${asExpected} THEN CASE WHEN ${unexpected} THEN 'flaky' ELSE 'passed' END
    WHEN ${unexpected} THEN 'failed'
    ELSE 'skipped' END`;

const OUTCOMES = ['passed', 'failed', 'flaky', 'skipped'] as const;

/**
 * The latest failed attempt of a run_tests row written before the row kept it (error_attempt NULL), from
 * the stored attempts. Inside the statement that inserts new attempts it sees only the ones stored before.
 */
const legacyErrorAttempt = (schema: string) => `(SELECT max(r.attempt) FROM ${schema}.results r
    WHERE r.run_id = run_tests.run_id AND r.test_case_id = run_tests.test_case_id
      AND r.project = run_tests.project AND r.error IS NOT NULL)`;

/**
 * Inserts the batch's attempts and folds the ones that are new into their tests' run_tests rows, then moves
 * each run's stats by the difference between those rows' outcomes before and after. A run_tests row keeps
 * what its attempts add up to (any as expected, any not, their count and durations, the error of the
 * latest failed attempt), and each of those merges without the other attempts: an attempt already stored
 * is not returned by the insert, so a batch applied twice or attempts in any order end in the same row. The
 * batch holds its runs' locks (lockRuns): a concurrent batch of the same run has committed before this
 * statement takes its snapshot, so "before" is exact.
 */
async function recordAttempts(tx: SqlExecutor, schema: string, batch: KeyedResult[]): Promise<void> {
  const rows = batch.map(({ projectId, runId, testCaseId, item }) => ({
    run_id: runId,
    test_case_id: testCaseId,
    project: item.project ?? NO_PLATFORM,
    attempt: item.attempt,
    project_id: projectId,
    status: item.status,
    expected_status: item.expectedStatus ?? null,
    duration_ms: item.durationMs,
    started_at: keptInstant(item.startedAt),
    error: item.error ?? null,
    steps: item.steps ?? null,
    stdout: item.stdout ?? null,
    stderr: item.stderr ?? null,
    attachments: item.attachments ?? null,
    annotations: item.annotations ?? null,
    tags: item.tags ?? [],
    location: item.location ?? null,
  }));
  // A test case id is a hash of its file and title path: one file per id.
  const files = new Map(batch.map(({ testCaseId, item }) => [testCaseId, item.file]));
  const counts = OUTCOMES.map((outcome) => `sum(sign) FILTER (WHERE outcome = '${outcome}') AS ${outcome}`);
  const asExpected = `coalesce(run_tests.as_expected, run_tests.outcome IN ('passed', 'flaky')) OR EXCLUDED.as_expected`;
  const unexpected = `coalesce(run_tests.unexpected, run_tests.outcome IN ('failed', 'flaky')) OR EXCLUDED.unexpected`;
  const storedErrorAttempt = `coalesce(run_tests.error_attempt, ${legacyErrorAttempt(schema)}, -1)`;
  const latestError = (column: string) =>
    `CASE WHEN EXCLUDED.error_attempt > ${storedErrorAttempt} THEN EXCLUDED.${column} ELSE run_tests.${column} END`;
  // The same result sent twice carries the same data (its event id is derived from its key): keep the first.
  await tx.query(
    `WITH inserted AS (
       INSERT INTO ${schema}.results (run_id, test_case_id, project, attempt, project_id, status, expected_status,
         duration_ms, started_at, error, steps, stdout, stderr, attachments, annotations, tags, location)
       SELECT DISTINCT ON (run_id, test_case_id, project, attempt)
         run_id, test_case_id, project, attempt, project_id, status, expected_status, duration_ms, started_at,
         error, steps, stdout, stderr, attachments, annotations, tags, location
       FROM json_to_recordset($1::json) AS r(run_id text, test_case_id text, project text, attempt integer,
         project_id text, status text, expected_status text, duration_ms double precision, started_at timestamptz,
         error json, steps json, stdout json, stderr json, attachments json, annotations json, tags text[],
         location json)
       ON CONFLICT (run_id, test_case_id, project, attempt) DO NOTHING
       RETURNING run_id, test_case_id, project, attempt, project_id, status, expected_status, duration_ms,
         started_at, error
     ),
     fresh AS (
       SELECT i.run_id, i.test_case_id, i.project, min(i.project_id) AS project_id, min(f.file) AS file,
         bool_or(i.status <> 'skipped' AND i.status = coalesce(i.expected_status, 'passed')) AS as_expected,
         bool_or(i.status <> 'skipped' AND i.status <> coalesce(i.expected_status, 'passed')) AS unexpected,
         count(*)::int AS attempts, sum(i.duration_ms) AS duration_ms, min(i.started_at) AS started_at,
         coalesce(max(i.attempt) FILTER (WHERE i.error IS NOT NULL), -1) AS error_attempt,
         (array_agg(i.error->>'message' ORDER BY i.attempt DESC) FILTER (WHERE i.error IS NOT NULL))[1] AS error_message,
         (array_agg(i.error->'location'->>'file' ORDER BY i.attempt DESC) FILTER (WHERE i.error IS NOT NULL))[1] AS error_file,
         (array_agg((i.error->'location'->>'line')::int ORDER BY i.attempt DESC) FILTER (WHERE i.error IS NOT NULL))[1] AS error_line
       FROM inserted i JOIN unnest($2::text[], $3::text[]) AS f(test_case_id, file) USING (test_case_id)
       GROUP BY i.run_id, i.test_case_id, i.project
     ),
     before AS (
       -- One index lookup per test: the planner cannot tell how few rows "fresh" holds.
       SELECT f.run_id, b.outcome FROM fresh f CROSS JOIN LATERAL (
         SELECT rt.outcome FROM ${schema}.run_tests rt
         WHERE rt.run_id = f.run_id AND rt.test_case_id = f.test_case_id AND rt.project = f.project
       ) b
     ),
     after AS (
       INSERT INTO ${schema}.run_tests AS run_tests (run_id, test_case_id, project, project_id, file, outcome,
         as_expected, unexpected, attempts, duration_ms, started_at, error_attempt, error_message, error_file,
         error_line)
       SELECT run_id, test_case_id, project, project_id, file, ${OUTCOME_OF('as_expected', 'unexpected')},
         as_expected, unexpected, attempts, duration_ms, started_at, error_attempt, error_message, error_file,
         error_line
       FROM fresh
       ON CONFLICT (run_id, test_case_id, project) DO UPDATE SET
         outcome = ${OUTCOME_OF(`(${asExpected})`, `(${unexpected})`)},
         as_expected = ${asExpected},
         unexpected = ${unexpected},
         attempts = run_tests.attempts + EXCLUDED.attempts,
         duration_ms = run_tests.duration_ms + EXCLUDED.duration_ms,
         started_at = LEAST(run_tests.started_at, EXCLUDED.started_at),
         error_message = ${latestError('error_message')},
         error_file = ${latestError('error_file')},
         error_line = ${latestError('error_line')},
         error_attempt = GREATEST(${storedErrorAttempt}, EXCLUDED.error_attempt)
       RETURNING run_id, outcome
     ),
     delta AS (
       SELECT run_id, sum(sign) AS total, ${counts.join(', ')}
       FROM (SELECT run_id, outcome, 1 AS sign FROM after UNION ALL SELECT run_id, outcome, -1 FROM before) AS moves
       GROUP BY run_id
     )
     UPDATE ${schema}.runs AS run SET
       total = run.total + d.total,
       ${OUTCOMES.map((o) => `${o} = run.${o} + coalesce(d.${o}, 0)`).join(',\n       ')},
       outcome = ${RUN_OUTCOME('run.failed + coalesce(d.failed, 0)')}
     FROM delta d
     WHERE run.id = d.run_id`,
    [JSON.stringify(rows), [...files.keys()], [...files.values()]],
  );
}

interface SeenTestCase {
  projectId: string;
  id: string;
  file: string;
  titlePath: string[];
  platforms: Set<string>;
  tags: Set<string>;
  firstSeenAt: string;
  lastSeenAt: string;
}

/** The batch's test cases, one entry each: platforms and tags united, first and last seen widened. */
function testCasesOf(batch: KeyedResult[]): SeenTestCase[] {
  const seen = new Map<string, SeenTestCase>();
  for (const { projectId, testCaseId: id, item } of batch) {
    const key = `${projectId}\u0000${id}`;
    const at = keptInstant(item.startedAt);
    let entry = seen.get(key);
    if (entry === undefined) {
      entry = {
        projectId,
        id,
        file: item.file,
        titlePath: item.titlePath,
        platforms: new Set(),
        tags: new Set(),
        firstSeenAt: at,
        lastSeenAt: at,
      };
      seen.set(key, entry);
    }
    if (item.project) entry.platforms.add(item.project);
    for (const tag of item.tags ?? []) entry.tags.add(tag);
    if (at < entry.firstSeenAt) entry.firstSeenAt = at;
    if (at > entry.lastSeenAt) entry.lastSeenAt = at;
  }
  // In key order: batches of two runs of a project, written inline by concurrent appends, then lock the
  // test cases they share in the same order and never wait on each other in a cycle.
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry);
}

/** Test cases seen in the batch: platforms and tags grow, first/last seen widen; never shrink. */
async function upsertTestCases(tx: SqlExecutor, schema: string, batch: KeyedResult[]): Promise<void> {
  const cases = testCasesOf(batch).map((c) => ({
    project_id: c.projectId,
    id: c.id,
    file: c.file,
    title_path: c.titlePath,
    platforms: [...c.platforms].sort(),
    tags: [...c.tags].sort(),
    first_seen_at: c.firstSeenAt,
    last_seen_at: c.lastSeenAt,
  }));
  await tx.query(
    `INSERT INTO ${schema}.test_cases (project_id, id, file, title_path, title, platforms, tags, first_seen_at, last_seen_at)
     SELECT c.project_id, c.id, c.file, c.title_path, c.title_path[cardinality(c.title_path)], c.platforms, c.tags,
       c.first_seen_at, c.last_seen_at
     FROM json_to_recordset($1::json) AS c(project_id text, id text, file text, title_path text[],
       platforms text[], tags text[], first_seen_at timestamptz, last_seen_at timestamptz)
     ON CONFLICT (project_id, id) DO UPDATE SET
       platforms = ARRAY(SELECT DISTINCT p FROM unnest(test_cases.platforms || EXCLUDED.platforms) AS p ORDER BY 1),
       tags = ARRAY(SELECT DISTINCT t FROM unnest(test_cases.tags || EXCLUDED.tags) AS t ORDER BY 1),
       first_seen_at = LEAST(test_cases.first_seen_at, EXCLUDED.first_seen_at),
       last_seen_at = GREATEST(test_cases.last_seen_at, EXCLUDED.last_seen_at)`,
    [JSON.stringify(cases)],
  );
}

/** A finished run failed when a test failed or its runner reported anything but passed; running: null. */
const RUN_OUTCOME = (failed: string) => `CASE WHEN run.status <> 'finished' THEN NULL
                      WHEN ${failed} > 0 OR coalesce(run.reported_status, 'passed') <> 'passed' THEN 'failed'
                      ELSE 'passed' END`;

async function applyArtifacts(tx: SqlExecutor, schema: string, artifacts: Batch['artifacts']): Promise<void> {
  if (artifacts.length === 0) return;
  const rows = artifacts.map(({ projectId, data: { runId, artifact, addedAt } }) => ({
    run_id: runId,
    project_id: projectId,
    added_at: addedAt,
    ...artifact,
  }));
  await tx.query(
    `INSERT INTO ${schema}.artifacts (run_id, id, project_id, name, content_type, size, blob_key, result_ref, added_at)
     SELECT DISTINCT ON (run_id, id) run_id, id, project_id, name, "contentType", size, "blobKey", "resultRef", added_at
     FROM jsonb_to_recordset($1::jsonb) AS a(run_id text, id text, project_id text, name text, "contentType" text,
       size bigint, "blobKey" text, "resultRef" text, added_at timestamptz)
     ON CONFLICT (run_id, id) DO NOTHING`,
    [JSON.stringify(rows)],
  );
}

/** Keeps the latest report of each run; a report of the same instant as the stored one replaces it. */
async function applyCoverage(tx: SqlExecutor, schema: string, coverage: Batch['coverage']): Promise<void> {
  for (const { projectId, data } of coverage) {
    await tx.query(
      `INSERT INTO ${schema}.coverage (run_id, project_id, report, added_at) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (run_id) DO UPDATE SET report = EXCLUDED.report, added_at = EXCLUDED.added_at
       WHERE coverage.added_at <= EXCLUDED.added_at`,
      [data.runId, projectId, JSON.stringify(data.coverage), data.addedAt],
    );
  }
}

/**
 * Locks the rows of the runs a batch touches, in id order so two batches never wait on each other: a
 * concurrent batch of the same run commits first, and every statement after this one sees its rows.
 */
async function lockRuns(tx: SqlExecutor, schema: string, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await tx.query(`SELECT id FROM ${schema}.runs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [
    [...runIds].sort(),
  ]);
}

/**
 * Recounts the stats of runs that started or finished in the batch from their run_tests rows, and judges
 * finished runs: failed when a test failed or the runner reported anything but passed, else passed. Once
 * per run start and finish, whatever order or repetition the events came in; results in between move the
 * stats by deltas.
 */
async function recomputeRunStats(tx: SqlExecutor, schema: string, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await tx.query(
    `UPDATE ${schema}.runs AS run SET
       total = s.total, passed = s.passed, failed = s.failed, flaky = s.flaky, skipped = s.skipped,
       outcome = ${RUN_OUTCOME('s.failed')}
     FROM (
       -- Counted per run through the primary key: as a join, the planner took each run for a large share of
       -- the table and scanned all of run_tests (1.2 s at 1.3 million rows, in every batch that started or
       -- finished a run).
       SELECT ids.id, c.*
       FROM unnest($1::text[]) AS ids(id)
       CROSS JOIN LATERAL (
         SELECT count(t.outcome)::int AS total,
           count(*) FILTER (WHERE t.outcome = 'passed')::int AS passed,
           count(*) FILTER (WHERE t.outcome = 'failed')::int AS failed,
           count(*) FILTER (WHERE t.outcome = 'flaky')::int AS flaky,
           count(*) FILTER (WHERE t.outcome = 'skipped')::int AS skipped
         FROM ${schema}.run_tests t WHERE t.run_id = ids.id
       ) c
     ) AS s
     WHERE run.id = s.id`,
    [runIds],
  );
}

/**
 * The projection, for createProjector. An event that is not a test-results event fails the batch, so the
 * bus dead-letters it instead of the model silently skipping it.
 *
 * @example const projector = createProjector({ db, projection: runsProjection(), logger });
 */
export function runsProjection(name: string = RUNS_READ_MODEL): Projection {
  return {
    name,
    async setup(tx, schema) {
      for (const statement of tableDefinitions(schema)) await tx.query(statement);
    },
    async apply(tx, events, schema) {
      const batch = sortBatch(events);
      const runIds = new Set([...batch.recountedRuns, ...batch.results.map(({ data }) => data.runId)]);
      await lockRuns(tx, schema, [...runIds]);
      for (const event of batch.lifecycle) await applyLifecycle(tx, schema, event);
      await applyResults(tx, schema, batch.results);
      await applyArtifacts(tx, schema, batch.artifacts);
      await applyCoverage(tx, schema, batch.coverage);
      await recomputeRunStats(tx, schema, [...batch.recountedRuns]);
    },
  };
}
