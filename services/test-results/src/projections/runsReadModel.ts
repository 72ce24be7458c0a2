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
import { createHash } from 'node:crypto';
import {
  parseTestResultsEvent,
  testCaseKey,
  type ResultItem,
  type TestResultsEvent,
} from '@verdict/contracts';
import type { Projection, SqlExecutor, StoredEvent } from '@verdict/platform';

/** The default name of the projection, hence of the schema that holds its tables. */
export const RUNS_READ_MODEL = 'test_results_read';

/** Platform of a result sent without `project`; stored as '' so it can take part in primary keys. */
export const NO_PLATFORM = '';

/**
 * The stable id of a test case across runs: a hash of (file, titlePath).
 *
 * @example const caseId = testCaseIdOf({ file: 'tests/cart.spec.ts', titlePath: ['Cart', 'adds'] });
 */
export function testCaseIdOf(item: Pick<ResultItem, 'file' | 'titlePath'>): string {
  return createHash('sha256').update(testCaseKey(item)).digest('hex').slice(0, 32);
}

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
       attempts integer NOT NULL,
       duration_ms double precision NOT NULL,
       started_at timestamptz NOT NULL,
       error_message text,
       error_file text,
       error_line integer,
       PRIMARY KEY (run_id, test_case_id, project)
     )`,
    `CREATE INDEX IF NOT EXISTS run_tests_history ON ${schema}.run_tests (project_id, test_case_id, started_at DESC)`,
    `CREATE INDEX IF NOT EXISTS run_tests_file ON ${schema}.run_tests (project_id, file)`,
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
       error jsonb,
       steps jsonb,
       stdout jsonb,
       stderr jsonb,
       attachments jsonb,
       annotations jsonb,
       tags text[] NOT NULL,
       location jsonb,
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

function projectOf(event: StoredEvent): string {
  // The write side records every run event with its project; one without has no place in this model.
  if (event.projectId === null) throw new Error(`Event ${event.eventId} (${event.type}) has no projectId`);
  return event.projectId;
}

function sortBatch(events: StoredEvent[]): Batch {
  const batch: Batch = { lifecycle: [], results: [], artifacts: [], coverage: [], recountedRuns: new Set() };
  for (const stored of events) {
    const event = parseTestResultsEvent(stored);
    switch (event.type) {
      case 'test.result-recorded':
        batch.results.push({ projectId: projectOf(stored), data: event.data });
        break;
      case 'run.artifact-added':
        batch.artifacts.push({ projectId: projectOf(stored), data: event.data });
        break;
      case 'run.coverage-added':
        batch.coverage.push({ projectId: projectOf(stored), data: event.data });
        break;
      case 'run.created':
      case 'run.finished':
        batch.lifecycle.push({ ...event, projectId: stored.projectId });
        batch.recountedRuns.add(event.data.runId);
        break;
      // Shards, ci-run claims and counters change nothing a read serves: run.finished closes the run.
      default:
        continue;
    }
  }
  return batch;
}

async function applyLifecycle(tx: SqlExecutor, schema: string, event: Event): Promise<void> {
  if (event.type === 'run.created') {
    const d = event.data;
    await tx.query(
      `INSERT INTO ${schema}.runs (id, project_id, counter, status, ci_run_id, title, branch, environment,
         commit, ci, framework, tags, started_at)
       VALUES ($1, $2, $3, 'running', $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb, $11::text[], $12)
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
        d.startedAt,
      ],
    );
  } else if (event.type === 'run.finished') {
    await tx.query(
      `UPDATE ${schema}.runs SET status = 'finished', finished_at = $2, reported_status = $3,
         duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM ($2::timestamptz - started_at)) * 1000)::bigint)
       WHERE id = $1`,
      [event.data.runId, event.data.finishedAt, event.data.status],
    );
  }
}

const jsonOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);

/**
 * The batch's results in three statements whatever its size: the rows themselves (parsed from one JSON
 * document), their test cases (aggregated here, sent as compact arrays), and the run_tests rows of the
 * tests they touched with the runs' stats moved by the difference. The rows' JSON is parsed by PostgreSQL
 * once, not once per statement, and no statement reads a whole run: a batch costs the same at the 500th
 * result of a run as at its 50,000th.
 */
async function applyResults(tx: SqlExecutor, schema: string, results: Batch['results']): Promise<void> {
  if (results.length === 0) return;
  const rows = results.map(({ projectId, data: { runId, item } }) => ({
    run_id: runId,
    test_case_id: testCaseIdOf(item),
    project: item.project ?? NO_PLATFORM,
    attempt: item.attempt,
    project_id: projectId,
    status: item.status,
    expected_status: item.expectedStatus ?? null,
    duration_ms: item.durationMs,
    started_at: item.startedAt,
    error: item.error ?? null,
    steps: item.steps ?? null,
    stdout: item.stdout ?? null,
    stderr: item.stderr ?? null,
    attachments: item.attachments ?? null,
    annotations: item.annotations ?? null,
    tags: item.tags ?? [],
    location: item.location ?? null,
  }));
  // The same result sent twice carries the same data (its event id is derived from its key): keep the first.
  await tx.query(
    `INSERT INTO ${schema}.results (run_id, test_case_id, project, attempt, project_id, status, expected_status,
       duration_ms, started_at, error, steps, stdout, stderr, attachments, annotations, tags, location)
     SELECT DISTINCT ON (run_id, test_case_id, project, attempt)
       run_id, test_case_id, project, attempt, project_id, status, expected_status, duration_ms, started_at,
       error, steps, stdout, stderr, attachments, annotations, ARRAY(SELECT jsonb_array_elements_text(tags)), location
     FROM jsonb_to_recordset($1::jsonb) AS r(run_id text, test_case_id text, project text, attempt integer,
       project_id text, status text, expected_status text, duration_ms double precision, started_at timestamptz,
       error jsonb, steps jsonb, stdout jsonb, stderr jsonb, attachments jsonb, annotations jsonb, tags jsonb,
       location jsonb)
     ON CONFLICT (run_id, test_case_id, project, attempt) DO NOTHING`,
    [JSON.stringify(rows)],
  );
  await upsertTestCases(tx, schema, results);
  await recomputeRunTests(tx, schema, results);
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
function testCasesOf(results: Batch['results']): SeenTestCase[] {
  const seen = new Map<string, SeenTestCase>();
  for (const { projectId, data } of results) {
    const { item } = data;
    const id = testCaseIdOf(item);
    const key = `${projectId}\u0000${id}`;
    const at = new Date(item.startedAt).toISOString();
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
  return [...seen.values()];
}

/** Test cases seen in the batch: platforms and tags grow, first/last seen widen; never shrink. */
async function upsertTestCases(tx: SqlExecutor, schema: string, results: Batch['results']): Promise<void> {
  const cases = testCasesOf(results);
  const sorted = (values: Set<string>) => [...values].sort();
  await tx.query(
    `INSERT INTO ${schema}.test_cases (project_id, id, file, title_path, title, platforms, tags, first_seen_at, last_seen_at)
     SELECT c.project_id, c.id, c.file, ARRAY(SELECT jsonb_array_elements_text(c.title_path)),
       c.title_path->>-1, ARRAY(SELECT jsonb_array_elements_text(c.platforms)),
       ARRAY(SELECT jsonb_array_elements_text(c.tags)), c.first_seen_at, c.last_seen_at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[], $6::jsonb[], $7::timestamptz[],
       $8::timestamptz[]) AS c(project_id, id, file, title_path, platforms, tags, first_seen_at, last_seen_at)
     ON CONFLICT (project_id, id) DO UPDATE SET
       platforms = ARRAY(SELECT DISTINCT p FROM unnest(test_cases.platforms || EXCLUDED.platforms) AS p ORDER BY 1),
       tags = ARRAY(SELECT DISTINCT t FROM unnest(test_cases.tags || EXCLUDED.tags) AS t ORDER BY 1),
       first_seen_at = LEAST(test_cases.first_seen_at, EXCLUDED.first_seen_at),
       last_seen_at = GREATEST(test_cases.last_seen_at, EXCLUDED.last_seen_at)`,
    [
      cases.map((c) => c.projectId),
      cases.map((c) => c.id),
      cases.map((c) => c.file),
      cases.map((c) => JSON.stringify(c.titlePath)),
      cases.map((c) => JSON.stringify(sorted(c.platforms))),
      cases.map((c) => JSON.stringify(sorted(c.tags))),
      cases.map((c) => c.firstSeenAt),
      cases.map((c) => c.lastSeenAt),
    ],
  );
}

/**
 * The outcome of a test in a run from all its attempts so far. An attempt went as expected when its status
 * is the expected one (passed unless the runner said otherwise, e.g. Playwright's test.fail()); skipped
 * attempts count for nothing but a test that was only skipped.
 */
const OUTCOME_OF_ATTEMPTS = `CASE
    WHEN bool_or(status <> 'skipped' AND status = coalesce(expected_status, 'passed'))
      THEN CASE WHEN bool_or(status <> 'skipped' AND status <> coalesce(expected_status, 'passed'))
        THEN 'flaky' ELSE 'passed' END
    WHEN bool_or(status <> 'skipped') THEN 'failed'
    ELSE 'skipped' END`;

const OUTCOMES = ['passed', 'failed', 'flaky', 'skipped'] as const;

/**
 * Rebuilds the run_tests rows of the tests the batch touched from all their stored attempts, and moves
 * each run's stats by the difference between those rows' outcomes before and after. The batch holds its
 * runs' locks (lockRuns): a concurrent batch of the same run has committed before this statement takes its
 * snapshot, so "before" is exact.
 */
async function recomputeRunTests(tx: SqlExecutor, schema: string, results: Batch['results']): Promise<void> {
  const touched = new Map<string, { runId: string; testCaseId: string; project: string; file: string }>();
  for (const { data } of results) {
    const testCaseId = testCaseIdOf(data.item);
    const project = data.item.project ?? NO_PLATFORM;
    touched.set(`${data.runId}\u0000${testCaseId}\u0000${project}`, {
      runId: data.runId,
      testCaseId,
      project,
      file: data.item.file,
    });
  }
  const keys = [...touched.values()];
  const counts = OUTCOMES.map((outcome) => `sum(sign) FILTER (WHERE outcome = '${outcome}') AS ${outcome}`);
  await tx.query(
    `WITH touched AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(run_id, test_case_id, project, file)
     ),
     before AS (
       SELECT rt.run_id, rt.outcome FROM ${schema}.run_tests rt JOIN touched t USING (run_id, test_case_id, project)
     ),
     after AS (
       INSERT INTO ${schema}.run_tests (run_id, test_case_id, project, project_id, file, outcome, attempts,
         duration_ms, started_at, error_message, error_file, error_line)
       SELECT r.run_id, r.test_case_id, r.project, min(r.project_id), min(t.file), ${OUTCOME_OF_ATTEMPTS},
         count(*)::int, sum(r.duration_ms), min(r.started_at),
         (array_agg(r.error->>'message' ORDER BY r.attempt DESC) FILTER (WHERE r.error IS NOT NULL))[1],
         (array_agg(r.error->'location'->>'file' ORDER BY r.attempt DESC) FILTER (WHERE r.error IS NOT NULL))[1],
         (array_agg((r.error->'location'->>'line')::int ORDER BY r.attempt DESC) FILTER (WHERE r.error IS NOT NULL))[1]
       FROM ${schema}.results r
       JOIN touched t USING (run_id, test_case_id, project)
       GROUP BY r.run_id, r.test_case_id, r.project
       ON CONFLICT (run_id, test_case_id, project) DO UPDATE SET
         outcome = EXCLUDED.outcome, attempts = EXCLUDED.attempts, duration_ms = EXCLUDED.duration_ms,
         started_at = EXCLUDED.started_at, error_message = EXCLUDED.error_message,
         error_file = EXCLUDED.error_file, error_line = EXCLUDED.error_line
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
    [
      keys.map((k) => k.runId),
      keys.map((k) => k.testCaseId),
      keys.map((k) => k.project),
      keys.map((k) => k.file),
    ],
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
       SELECT ids.id,
         count(t.outcome)::int AS total,
         count(*) FILTER (WHERE t.outcome = 'passed')::int AS passed,
         count(*) FILTER (WHERE t.outcome = 'failed')::int AS failed,
         count(*) FILTER (WHERE t.outcome = 'flaky')::int AS flaky,
         count(*) FILTER (WHERE t.outcome = 'skipped')::int AS skipped
       FROM unnest($1::text[]) AS ids(id)
       LEFT JOIN ${schema}.run_tests t ON t.run_id = ids.id
       GROUP BY ids.id
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
