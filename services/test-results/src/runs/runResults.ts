/**
 * The run results: every attempt of every test in a run, as the runner reported it (error, steps, output,
 * attachments). Serves a run's errors (`include=errors`) and the debug bundle's attempts. An attempt is
 * inserted once by its key, so applying it again changes nothing.
 */
import { keptInstant } from '@verdict/contracts';
import type { RunErrors } from '@verdict/contracts';
import type { Projection, SqlExecutor } from '@verdict/platform';
import {
  NO_PLATFORM,
  platformOrNull,
  resultsOf,
  type RecordedResult,
  type TestResultsReadStore,
} from '../readStore';

// The attempt's JSON parts are json, kept as the text they came in: they are read whole, never searched
// inside, and turning every attempt's parts into jsonb was a sixth of the projector's time.
async function setup(tx: SqlExecutor, s: string): Promise<void> {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.results (
    run_id text NOT NULL, test_case_id text NOT NULL, project text NOT NULL, attempt integer NOT NULL,
    project_id text NOT NULL, status text NOT NULL, expected_status text,
    duration_ms double precision NOT NULL, started_at timestamptz NOT NULL, error json, steps json,
    stdout json, stderr json, attachments json, annotations json, tags text[] NOT NULL, location json,
    worker json,
    PRIMARY KEY (run_id, test_case_id, project, attempt))`);
}

/** The batch's attempts in one statement; the same result sent twice carries the same data: the first stays. */
async function insertAttempts(tx: SqlExecutor, s: string, results: readonly RecordedResult[]): Promise<void> {
  if (results.length === 0) return;
  const rows = results.map(({ projectId, runId, testCaseId, item }) => ({
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
    worker: item.worker ?? null,
  }));
  await tx.query(
    `INSERT INTO ${s}.results (run_id, test_case_id, project, attempt, project_id, status, expected_status,
       duration_ms, started_at, error, steps, stdout, stderr, attachments, annotations, tags, location, worker)
     SELECT DISTINCT ON (run_id, test_case_id, project, attempt)
       run_id, test_case_id, project, attempt, project_id, status, expected_status, duration_ms, started_at,
       error, steps, stdout, stderr, attachments, annotations, tags, location, worker
     FROM json_to_recordset($1::json) AS r(run_id text, test_case_id text, project text, attempt integer,
       project_id text, status text, expected_status text, duration_ms double precision, started_at timestamptz,
       error json, steps json, stdout json, stderr json, attachments json, annotations json, tags text[],
       location json, worker json)
     ON CONFLICT (run_id, test_case_id, project, attempt) DO NOTHING`,
    [JSON.stringify(rows)],
  );
}

/** @example createProjector({ db, projections: [runResultsProjection('test_results_read_results'), …], … }); */
export function runResultsProjection(name: string): Projection {
  return {
    name,
    // 2: each attempt keeps its worker (index, parallelIndex, ordinal).
    version: 2,
    canHandle: ['test.result-recorded'],
    setup,
    apply: (tx, events, s) => insertAttempts(tx, s, resultsOf(events)),
  };
}

const MAX_ERROR_GROUPS = 100;
const MAX_STACKS = 10;
const MAX_TESTS_PER_ERROR = 100;

/**
 * The run's failed attempts grouped by error message, most frequent first.
 *
 * @example const errors = await runErrors(store, runId);
 */
export async function runErrors({ db, schemas }: TestResultsReadStore, runId: string): Promise<RunErrors> {
  const { rows } = await db.query<{
    message: string;
    count: number;
    stacks: string[] | null;
    tests: { testCaseId: string; title: string; file: string; project: string; attempts: number[] }[];
  }>(
    // An attempt is numbered as the debug bundle numbers it, by its order among the test's attempts on its
    // platform in the run (the runner's own numbers may skip), so `attempt=N` there shows this one.
    `WITH failing AS (
       SELECT r.error->>'message' AS message, r.error->>'stack' AS stack, r.test_case_id, r.project,
              (SELECT count(*)::int FROM ${schemas.runResults}.results x
               WHERE x.run_id = r.run_id AND x.test_case_id = r.test_case_id AND x.project = r.project
                 AND x.attempt < r.attempt) AS attempt,
              c.title, c.file
       FROM ${schemas.runResults}.results r
       JOIN ${schemas.caseHistory}.test_cases c ON c.project_id = r.project_id AND c.id = r.test_case_id
       WHERE r.run_id = $1 AND r.error IS NOT NULL
     ),
     per_test AS (
       SELECT message, test_case_id, project, min(title) AS title, min(file) AS file,
              array_agg(attempt ORDER BY attempt) AS attempts
       FROM failing GROUP BY message, test_case_id, project
     )
     SELECT g.message, g.count,
       (SELECT array_agg(stack) FROM (SELECT DISTINCT stack FROM failing f
          WHERE f.message = g.message AND f.stack IS NOT NULL ORDER BY stack LIMIT ${MAX_STACKS}) s) AS stacks,
       (SELECT coalesce(jsonb_agg(jsonb_build_object('testCaseId', test_case_id, 'title', title, 'file', file,
                 'project', project, 'attempts', to_jsonb(attempts)) ORDER BY file, title, project), '[]'::jsonb)
        FROM (SELECT * FROM per_test p WHERE p.message = g.message
              ORDER BY file, title, project LIMIT ${MAX_TESTS_PER_ERROR}) t) AS tests
     FROM (SELECT message, count(*)::int AS count FROM failing GROUP BY message) g
     ORDER BY g.count DESC, g.message
     LIMIT ${MAX_ERROR_GROUPS}`,
    [runId],
  );
  const total = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${schemas.runResults}.results WHERE run_id = $1 AND error IS NOT NULL`,
    [runId],
  );
  return {
    total: total.rows[0]?.total ?? 0,
    groups: rows.map((row) => ({
      message: row.message,
      count: row.count,
      stacks: row.stacks ?? [],
      tests: row.tests.map((test) => ({ ...test, project: platformOrNull(test.project) })),
    })),
  };
}
