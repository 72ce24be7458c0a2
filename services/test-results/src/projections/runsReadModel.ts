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
  touchedRuns: Set<string>;
}

function projectOf(event: StoredEvent): string {
  // The write side records every run event with its project; one without has no place in this model.
  if (event.projectId === null) throw new Error(`Event ${event.eventId} (${event.type}) has no projectId`);
  return event.projectId;
}

function sortBatch(events: StoredEvent[]): Batch {
  const batch: Batch = { lifecycle: [], results: [], artifacts: [], coverage: [], touchedRuns: new Set() };
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
        break;
      // Shards, ci-run claims and counters change nothing a read serves: run.finished closes the run.
      default:
        continue;
    }
    batch.touchedRuns.add(event.data.runId);
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

/** One multi-row upsert of the batch's results, then their test cases and run_tests rows. */
async function applyResults(tx: SqlExecutor, schema: string, results: Batch['results']): Promise<void> {
  if (results.length === 0) return;
  const rows = results.map(({ projectId, data: { runId, item } }) => ({
    run_id: runId,
    test_case_id: testCaseIdOf(item),
    project: item.project ?? NO_PLATFORM,
    attempt: item.attempt,
    project_id: projectId,
    file: item.file,
    title_path: item.titlePath,
    title: item.titlePath.at(-1) ?? '',
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
  const json = JSON.stringify(rows);
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
    [json],
  );
  await upsertTestCases(tx, schema, json);
  await recomputeRunTests(tx, schema, json);
}

/** Test cases seen in the batch: platforms and tags grow, first/last seen widen; never shrink. */
async function upsertTestCases(tx: SqlExecutor, schema: string, json: string): Promise<void> {
  await tx.query(
    `INSERT INTO ${schema}.test_cases (project_id, id, file, title_path, title, platforms, tags, first_seen_at, last_seen_at)
     SELECT project_id, test_case_id, min(file),
       ARRAY(SELECT jsonb_array_elements_text(min(title_path::text)::jsonb)),
       min(title),
       ARRAY(SELECT DISTINCT p FROM unnest(array_agg(project)) AS p WHERE p <> '' ORDER BY 1),
       ARRAY(SELECT DISTINCT t FROM jsonb_array_elements(jsonb_agg(tags)) AS j(x),
             jsonb_array_elements_text(j.x) AS t ORDER BY 1),
       min(started_at), max(started_at)
     FROM jsonb_to_recordset($1::jsonb) AS r(project_id text, test_case_id text, file text, title_path jsonb,
       title text, project text, tags jsonb, started_at timestamptz)
     GROUP BY project_id, test_case_id
     ON CONFLICT (project_id, id) DO UPDATE SET
       platforms = ARRAY(SELECT DISTINCT p FROM unnest(test_cases.platforms || EXCLUDED.platforms) AS p ORDER BY 1),
       tags = ARRAY(SELECT DISTINCT t FROM unnest(test_cases.tags || EXCLUDED.tags) AS t ORDER BY 1),
       first_seen_at = LEAST(test_cases.first_seen_at, EXCLUDED.first_seen_at),
       last_seen_at = GREATEST(test_cases.last_seen_at, EXCLUDED.last_seen_at)`,
    [json],
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

/** Rebuilds the run_tests rows of the tests the batch touched from all their stored attempts. */
async function recomputeRunTests(tx: SqlExecutor, schema: string, json: string): Promise<void> {
  await tx.query(
    `WITH touched AS (
       SELECT DISTINCT run_id, test_case_id, project, file
       FROM jsonb_to_recordset($1::jsonb) AS r(run_id text, test_case_id text, project text, file text)
     )
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
       error_file = EXCLUDED.error_file, error_line = EXCLUDED.error_line`,
    [json],
  );
}

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
 * Recounts the stats of the runs the batch touched from their run_tests rows, and judges finished runs:
 * failed when a test failed or the runner reported anything but passed, else passed. A count over one
 * run's tests per batch keeps the stats exact whatever order or repetition the events came in.
 */
async function recomputeRunStats(tx: SqlExecutor, schema: string, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  // Waits for a concurrent batch of the same run to commit, so the count below (a new snapshot) sees its
  // run_tests rows; ordered by id so two batches never wait on each other.
  await tx.query(`SELECT id FROM ${schema}.runs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [runIds]);
  await tx.query(
    `UPDATE ${schema}.runs AS run SET
       total = s.total, passed = s.passed, failed = s.failed, flaky = s.flaky, skipped = s.skipped,
       outcome = CASE WHEN run.status <> 'finished' THEN NULL
                      WHEN s.failed > 0 OR coalesce(run.reported_status, 'passed') <> 'passed' THEN 'failed'
                      ELSE 'passed' END
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
      for (const event of batch.lifecycle) await applyLifecycle(tx, schema, event);
      await applyResults(tx, schema, batch.results);
      await applyArtifacts(tx, schema, batch.artifacts);
      await applyCoverage(tx, schema, batch.coverage);
      await recomputeRunStats(tx, schema, [...batch.touchedRuns]);
    },
  };
}
