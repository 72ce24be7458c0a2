/**
 * The base rows of the analytics read model, fed by the test-results events: `runs` (each with its stats)
 * and `case_runs` (one execution: a test case on one platform in one run, with the attempts it has counted,
 * its outcome over them and its run's environment, branch and commit). Every derived row (case days, new
 * failures, commit conflicts, usage) is counted from these.
 *
 * Invariants: rows are upserts by natural key, an attempt counted once per execution; filing a batch
 * returns each execution written with its row before, so derived rows move by the difference.
 */
import { testCaseIdOf, type TestResultsEvent, keptInstant } from '@verdict/contracts';
import type { SqlExecutor } from '@verdict/platform';
import { errorLineOf } from './attemptErrors';

/** Platform of a result sent without `project`, environment or branch of a run without one. */
export const NONE = '';

/** The base tables and their indexes, in schema `s`. */
export function executionTables(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.runs (
       id text PRIMARY KEY,
       project_id text NOT NULL,
       created boolean NOT NULL DEFAULT false,
       counter integer NOT NULL DEFAULT 0,
       title text,
       branch text NOT NULL DEFAULT '',
       environment text NOT NULL DEFAULT '',
       commit_sha text,
       started_at timestamptz,
       finished_at timestamptz,
       reported_status text,
       total integer NOT NULL DEFAULT 0,
       passed integer NOT NULL DEFAULT 0,
       failed integer NOT NULL DEFAULT 0,
       flaky integer NOT NULL DEFAULT 0,
       skipped integer NOT NULL DEFAULT 0
     )`,
    `CREATE INDEX IF NOT EXISTS runs_project_started ON ${s}.runs (project_id, started_at DESC)`,
    // The runs of a commit, then their executions by primary key: cheaper than one more index on case_runs.
    `CREATE INDEX IF NOT EXISTS runs_commit ON ${s}.runs (project_id, commit_sha)`,
    `CREATE TABLE IF NOT EXISTS ${s}.case_runs (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       project_id text NOT NULL,
       outcome text NOT NULL,
       attempts integer NOT NULL,
       -- The attempts already counted (so one applied twice is not) and what they said: some went as the
       -- runner expected (ok), some went wrong (bad); the outcome follows from the two.
       attempt_numbers integer[] NOT NULL,
       ok boolean NOT NULL,
       bad boolean NOT NULL,
       duration_ms double precision NOT NULL,
       started_at timestamptz NOT NULL,
       day date NOT NULL,
       environment text NOT NULL,
       branch text NOT NULL,
       commit_sha text,
       PRIMARY KEY (run_id, case_id, platform)
     )`,
    `CREATE INDEX IF NOT EXISTS case_runs_group ON ${s}.case_runs
       (project_id, case_id, environment, branch, platform, started_at, run_id)`,
    // Failures are a few percent of executions: these small indexes answer "did it fail there?" cheaply.
    `CREATE INDEX IF NOT EXISTS case_runs_failed_commit ON ${s}.case_runs (project_id, case_id, commit_sha)
       WHERE outcome = 'failed'`,
    `CREATE INDEX IF NOT EXISTS case_runs_failed_group ON ${s}.case_runs
       (project_id, case_id, environment, branch, platform, started_at) WHERE outcome = 'failed'`,
  ];
}

export type Of<T extends TestResultsEvent['type']> = Extract<TestResultsEvent, { type: T }>;

export interface ResultRow {
  run_id: string;
  case_id: string;
  platform: string;
  attempt: number;
  project_id: string;
  file: string;
  title: string;
  full_title: string;
  status: string;
  expected_status: string | null;
  duration_ms: number;
  started_at: string;
  tags: string[];
  /** The first line of the attempt's error, when it failed with one (the PDF report lists it). */
  error_line: string | null;
}

/** What a batch changed: executions, by key, whose derived rows must be recomputed. */
export interface ExecutionKey {
  run_id: string;
  case_id: string;
  platform: string;
  project_id: string;
  environment: string;
  branch: string;
  commit_sha: string | null;
  started_at: string;
  day: string;
}

const EXECUTION_KEY_COLUMNS = `run_id, case_id, platform, project_id, environment, branch, commit_sha,
  to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS started_at, day::text AS day`;

export async function keysOfExecutions(
  tx: SqlExecutor,
  s: string,
  where: string,
  params: unknown[],
): Promise<ExecutionKey[]> {
  const { rows } = await tx.query<ExecutionKey>(
    `SELECT ${EXECUTION_KEY_COLUMNS} FROM ${s}.case_runs WHERE ${where}`,
    params,
  );
  return rows;
}

export async function applyRunCreated(
  tx: SqlExecutor,
  s: string,
  data: Of<'run.created'>['data'],
): Promise<ExecutionKey[]> {
  await tx.query(
    `INSERT INTO ${s}.runs (id, project_id, created, counter, title, branch, environment, commit_sha, started_at)
     VALUES ($1, $2, true, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (id) DO UPDATE SET created = true, counter = EXCLUDED.counter, title = EXCLUDED.title,
       branch = EXCLUDED.branch, environment = EXCLUDED.environment, commit_sha = EXCLUDED.commit_sha,
       started_at = EXCLUDED.started_at`,
    [
      data.runId,
      data.projectId,
      data.counter,
      data.title,
      data.branch ?? NONE,
      data.environment ?? NONE,
      data.commit?.sha ?? null,
      keptInstant(data.startedAt),
    ],
  );
  // Results that came before their run.created were filed without environment, branch and commit.
  const before = await keysOfExecutions(tx, s, 'run_id = $1', [data.runId]);
  if (before.length === 0) return [];
  await tx.query(
    `UPDATE ${s}.case_runs SET environment = $2, branch = $3, commit_sha = $4
     WHERE run_id = $1 AND (environment, branch, commit_sha) IS DISTINCT FROM ($2, $3, $4)`,
    [data.runId, data.environment ?? NONE, data.branch ?? NONE, data.commit?.sha ?? null],
  );
  return [...before, ...(await keysOfExecutions(tx, s, 'run_id = $1', [data.runId]))];
}

export async function applyRunFinished(
  tx: SqlExecutor,
  s: string,
  projectId: string,
  data: Of<'run.finished'>['data'],
) {
  await tx.query(
    `INSERT INTO ${s}.runs (id, project_id, finished_at, reported_status) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET finished_at = EXCLUDED.finished_at, reported_status = EXCLUDED.reported_status`,
    [data.runId, projectId, keptInstant(data.finishedAt), data.status],
  );
}

/**
 * The outcome of an execution from what its attempts said: some attempt as the runner expected (passed
 * unless it said otherwise) → passed, or flaky when another attempt went wrong; only wrong attempts →
 * failed; only skipped attempts → skipped.
 */
const outcomeOf = (
  ok: string,
  bad: string,
) => `CASE WHEN ${ok} THEN CASE WHEN ${bad} THEN 'flaky' ELSE 'passed' END
    WHEN ${bad} THEN 'failed' ELSE 'skipped' END`;

/** One execution a batch wrote: its row after the batch, and before it when it existed. */
export interface Change extends ExecutionKey {
  outcome: string;
  duration_ms: number;
  existed: boolean;
  inserted: boolean;
  old_outcome: string | null;
  old_duration: number | null;
  old_started_at: string | null;
  old_day: string | null;
  /** A later failed execution in its (case, environment, branch, platform): its new-failure status may change. */
  later_failed: boolean;
  /** A failed execution of the same test case on the same commit in another run: this pass makes a conflict. */
  failed_on_commit: boolean;
}

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Files the results' attempts into their executions (case_runs) in one statement: attempts already counted
 * are skipped, the rest merged into the flags, duration and start of their execution. Returns every
 * execution written, with its row before, so derived rows move by the difference.
 */
export async function applyResults(tx: SqlExecutor, s: string, rows: ResultRow[]): Promise<Change[]> {
  if (rows.length === 0) return [];
  const column = <K extends keyof ResultRow>(key: K) => rows.map((r) => r[key]);
  const ok = `i.status <> 'skipped' AND i.status = coalesce(i.expected_status, 'passed')`;
  const bad = `i.status <> 'skipped' AND i.status <> coalesce(i.expected_status, 'passed')`;
  const { rows: changes } = await tx.query<Change>(
    `WITH input AS (
       SELECT DISTINCT ON (run_id, case_id, platform, attempt) *
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::float8[],
         $8::timestamptz[], $9::text[])
         AS i(run_id, case_id, platform, attempt, status, expected_status, duration_ms, started_at, project_id)
     ),
     existing AS (
       SELECT c.run_id, c.case_id, c.platform, c.attempt_numbers, c.outcome, c.duration_ms, c.started_at, c.day
       FROM ${s}.case_runs c
       WHERE (c.run_id, c.case_id, c.platform) IN (SELECT run_id, case_id, platform FROM input)
       FOR UPDATE
     ),
     fresh AS (
       SELECT i.run_id, i.case_id, i.platform, min(i.project_id) AS project_id,
         array_agg(i.attempt ORDER BY i.attempt) AS attempt_numbers, count(*)::int AS attempts,
         bool_or(${ok}) AS ok, bool_or(${bad}) AS bad, sum(i.duration_ms) AS duration_ms,
         min(i.started_at) AS started_at
       FROM input i LEFT JOIN existing e USING (run_id, case_id, platform)
       WHERE e.run_id IS NULL OR NOT (i.attempt = ANY(e.attempt_numbers))
       GROUP BY i.run_id, i.case_id, i.platform
     ),
     written AS (
       INSERT INTO ${s}.case_runs AS c (run_id, case_id, platform, project_id, outcome, attempts, attempt_numbers,
         ok, bad, duration_ms, started_at, day, environment, branch, commit_sha)
       SELECT f.run_id, f.case_id, f.platform, f.project_id, ${outcomeOf('f.ok', 'f.bad')}, f.attempts,
         f.attempt_numbers, f.ok, f.bad, f.duration_ms, f.started_at, (f.started_at AT TIME ZONE 'UTC')::date,
         coalesce(r.environment, ''), coalesce(r.branch, ''), r.commit_sha
       FROM fresh f LEFT JOIN ${s}.runs r ON r.id = f.run_id
       ON CONFLICT (run_id, case_id, platform) DO UPDATE SET
         attempt_numbers = ARRAY(SELECT unnest(c.attempt_numbers || EXCLUDED.attempt_numbers) ORDER BY 1),
         attempts = c.attempts + EXCLUDED.attempts, ok = c.ok OR EXCLUDED.ok, bad = c.bad OR EXCLUDED.bad,
         outcome = ${outcomeOf('(c.ok OR EXCLUDED.ok)', '(c.bad OR EXCLUDED.bad)')},
         duration_ms = c.duration_ms + EXCLUDED.duration_ms, started_at = least(c.started_at, EXCLUDED.started_at),
         day = (least(c.started_at, EXCLUDED.started_at) AT TIME ZONE 'UTC')::date
       RETURNING c.run_id, c.case_id, c.platform, c.project_id, c.environment, c.branch, c.commit_sha, c.outcome,
         c.duration_ms, c.started_at, c.day, (c.xmax::text = '0') AS inserted
     )
     SELECT w.run_id, w.case_id, w.platform, w.project_id, w.environment, w.branch, w.commit_sha, w.outcome,
       w.duration_ms, ${ISO('w.started_at')} AS started_at, w.day::text AS day, w.inserted,
       e.run_id IS NOT NULL AS existed, e.outcome AS old_outcome, e.duration_ms AS old_duration,
       ${ISO('e.started_at')} AS old_started_at, e.day::text AS old_day,
       EXISTS (SELECT 1 FROM ${s}.case_runs l WHERE l.outcome = 'failed' AND l.project_id = w.project_id
         AND l.case_id = w.case_id AND l.environment = w.environment AND l.branch = w.branch
         AND l.platform = w.platform AND l.started_at > w.started_at) AS later_failed,
       -- OFFSET 0 keeps this a lookup per row: PostgreSQL otherwise may hash every failed execution of
       -- every project (a plan that grows with the table) to answer a thousand rows.
       w.commit_sha IS NOT NULL AND w.outcome IN ('passed', 'flaky') AND EXISTS (
         SELECT 1 FROM ${s}.case_runs l WHERE l.outcome = 'failed' AND l.project_id = w.project_id
           AND l.case_id = w.case_id AND l.commit_sha = w.commit_sha AND l.run_id <> w.run_id
           OFFSET 0) AS failed_on_commit
     FROM written w LEFT JOIN existing e USING (run_id, case_id, platform)`,
    [
      column('run_id'),
      column('case_id'),
      column('platform'),
      column('attempt'),
      column('status'),
      column('expected_status'),
      column('duration_ms'),
      column('started_at'),
      column('project_id'),
    ],
  );
  return changes;
}

/** The stats of each run move by the difference of every execution, whatever it changed. */
export async function moveRunCounts(tx: SqlExecutor, s: string, changes: Change[]): Promise<void> {
  if (changes.length === 0) return;
  await tx.query(
    `UPDATE ${s}.runs AS run SET total = run.total + x.total, passed = run.passed + x.passed,
       failed = run.failed + x.failed, flaky = run.flaky + x.flaky, skipped = run.skipped + x.skipped
     FROM (
       SELECT run_id, count(*) FILTER (WHERE old_outcome IS NULL)::int AS total,
         (count(*) FILTER (WHERE outcome = 'passed') - count(*) FILTER (WHERE old_outcome = 'passed'))::int AS passed,
         (count(*) FILTER (WHERE outcome = 'failed') - count(*) FILTER (WHERE old_outcome = 'failed'))::int AS failed,
         (count(*) FILTER (WHERE outcome = 'flaky') - count(*) FILTER (WHERE old_outcome = 'flaky'))::int AS flaky,
         (count(*) FILTER (WHERE outcome = 'skipped') - count(*) FILTER (WHERE old_outcome = 'skipped'))::int AS skipped
       FROM unnest($1::text[], $2::text[], $3::text[]) AS x(run_id, outcome, old_outcome)
       GROUP BY run_id
     ) AS x
     WHERE run.id = x.run_id`,
    [changes.map((c) => c.run_id), changes.map((c) => c.outcome), changes.map((c) => c.old_outcome)],
  );
}
/** The items once each by `key`, the last of each kept. */
export function unique<T>(items: T[], key: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [key(item), item])).values()];
}

/** Recounts the stats of every touched run from its executions. */
export async function recomputeRunStats(tx: SqlExecutor, s: string, runIds: string[]): Promise<void> {
  if (runIds.length === 0) return;
  await tx.query(
    `UPDATE ${s}.runs AS run SET total = x.total, passed = x.passed, failed = x.failed, flaky = x.flaky,
       skipped = x.skipped
     FROM (
       SELECT ids.id, count(c.outcome)::int AS total,
         count(*) FILTER (WHERE c.outcome = 'passed')::int AS passed,
         count(*) FILTER (WHERE c.outcome = 'failed')::int AS failed,
         count(*) FILTER (WHERE c.outcome = 'flaky')::int AS flaky,
         count(*) FILTER (WHERE c.outcome = 'skipped')::int AS skipped
       FROM unnest($1::text[]) AS ids(id) LEFT JOIN ${s}.case_runs c ON c.run_id = ids.id
       GROUP BY ids.id
     ) AS x
     WHERE run.id = x.id`,
    [runIds],
  );
}

export function resultRow(projectId: string, data: Of<'test.result-recorded'>['data']): ResultRow {
  const { item } = data;
  return {
    run_id: data.runId,
    case_id: testCaseIdOf(item),
    platform: item.project ?? NONE,
    attempt: item.attempt,
    project_id: projectId,
    file: item.file,
    title: item.titlePath.at(-1) ?? '',
    full_title: item.titlePath.join(' > '),
    status: item.status,
    expected_status: item.expectedStatus ?? null,
    duration_ms: item.durationMs,
    started_at: keptInstant(item.startedAt),
    tags: item.tags ?? [],
    error_line: errorLineOf(item.error?.message),
  };
}
