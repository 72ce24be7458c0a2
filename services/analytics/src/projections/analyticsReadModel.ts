/**
 * The analytics read model, fed only by the test-results events. Base rows: `runs`, `test_cases`, and
 * `case_runs` (one execution: a test case on one platform in one run, with the attempts it has counted, its
 * outcome over them and its run's environment, branch and commit). Derived rows, so that queries over a
 * million results stay small: `case_days` (executions per test case, platform, environment, branch and UTC
 * day, `case_day_totals` over every platform, environment and branch of the day, and `case_week_totals`
 * the same per week), `new_failures` (failed executions whose previous execution in the same environment,
 * branch and platform passed, or that had none), `commit_conflicts` (failed executions of a test case that
 * also passed on the same commit in another run) and `usage_hours` (executions per project and hour, for billing periods).
 *
 * Invariants: base rows are upserts by natural key, an attempt counted once per execution. Derived counts
 * move by the difference between an execution's row before and after the batch (so an event applied twice
 * moves nothing); an execution that moved (run.created after its results, an earlier attempt arriving late)
 * has its derived rows recounted from the base rows instead. New failures and commit conflicts are
 * re-decided only where a failure is involved. So an event applied twice, results before their run.created,
 * or attempts out of order all end in the same tables.
 */
import { createHash } from 'node:crypto';
import {
  parseTestResultsEvent,
  testCaseKey,
  type ResultItem,
  type TestResultsEvent,
  keptInstant,
} from '@verdict/contracts';
import { eventProjectId, type Projection, type SqlExecutor } from '@verdict/platform';
import { weekOf } from '../queries/window';
import { dayDeltas, type DayDelta } from './dayDeltas';

/** The default name of the projection, hence of the schema that holds its tables. */
export const ANALYTICS_READ_MODEL = 'analytics';

/** The version of the read model's tables: raising it rebuilds them from position 0 at start. */
export const ANALYTICS_READ_MODEL_VERSION = 2;

/** Platform of a result sent without `project`, environment or branch of a run without one. */
export const NONE = '';

/** The id of a test case across runs: the same hash of (file, titlePath) the test-results service uses. */
export function testCaseIdOf(item: Pick<ResultItem, 'file' | 'titlePath'>): string {
  return createHash('sha256').update(testCaseKey(item)).digest('hex').slice(0, 32);
}

/** The columns of the per-test-case totals over every platform, environment and branch, after the key. */
const TOTALS_COLUMNS = `executions, passed, failed, flaky, skipped, duration_sum, duration_max, last_at,
  last_run_id, last_outcome`;

/** What the day and week tables count, and their latest execution, in the order both declare them. */
const SUMMED_COLUMNS = `executions integer NOT NULL, passed integer NOT NULL, failed integer NOT NULL,
     flaky integer NOT NULL, skipped integer NOT NULL, duration_sum double precision NOT NULL,
     duration_max double precision NOT NULL, last_at timestamptz NOT NULL, last_run_id text NOT NULL`;

/** A table of per-test-case totals by `period` (a day, or the Monday of a week). */
const totalsTable = (s: string, table: string, period: 'day' | 'week') =>
  `CREATE TABLE IF NOT EXISTS ${s}.${table} (
     project_id text NOT NULL,
     ${period} date NOT NULL,
     case_id text NOT NULL,
     ${SUMMED_COLUMNS},
     last_outcome text NOT NULL,
     PRIMARY KEY (project_id, ${period}, case_id)
   )`;

function tableDefinitions(s: string): string[] {
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
    `CREATE TABLE IF NOT EXISTS ${s}.test_cases (
       project_id text NOT NULL,
       case_id text NOT NULL,
       file text NOT NULL,
       title text NOT NULL,
       full_title text NOT NULL,
       platforms text[] NOT NULL,
       tags text[] NOT NULL,
       PRIMARY KEY (project_id, case_id)
     )`,
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
    `CREATE TABLE IF NOT EXISTS ${s}.case_days (
       project_id text NOT NULL,
       day date NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       environment text NOT NULL,
       branch text NOT NULL,
       ${SUMMED_COLUMNS},
       last_duration double precision NOT NULL,
       last_outcome text NOT NULL,
       PRIMARY KEY (project_id, day, case_id, platform, environment, branch)
     )`,
    totalsTable(s, 'case_day_totals', 'day'),
    // case_day_totals summed per test case and week (Monday, UTC): a window of 30 days reads about a third
    // of the rows through it (the whole weeks inside it, and the days at its ends from case_day_totals).
    totalsTable(s, 'case_week_totals', 'week'),
    // Every batch updates the day rows of the cases it saw, about five times a row over a day. Room on each
    // page lets an update stay on its page without a new index entry (HOT), which keeps the tables compact
    // for the summary's scans and the updates cheap (at the default of 100 the table grew to 3 times its
    // compacted size and 4% of updates were HOT). Takes effect on pages written from now on.
    `ALTER TABLE ${s}.case_days SET (fillfactor = 70)`,
    `ALTER TABLE ${s}.case_day_totals SET (fillfactor = 70)`,
    `ALTER TABLE ${s}.case_week_totals SET (fillfactor = 70)`,
    // The days a case failed or was flaky, a few percent of the rows: the summary's flaky list reads only
    // these instead of every day row of the lookback.
    `CREATE INDEX IF NOT EXISTS case_day_totals_failing ON ${s}.case_day_totals (project_id, day)
       INCLUDE (case_id, flaky) WHERE flaky > 0 OR failed > 0`,
    `CREATE INDEX IF NOT EXISTS case_days_failing ON ${s}.case_days (project_id, day)
       INCLUDE (case_id, flaky, environment, branch) WHERE flaky > 0 OR failed > 0`,
    // The first line of each failed attempt's error: a few percent of attempts, read by the run report.
    // Written with its attempt, so an attempt applied twice writes nothing new.
    `CREATE TABLE IF NOT EXISTS ${s}.attempt_errors (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       attempt integer NOT NULL,
       project_id text NOT NULL,
       error_line text NOT NULL,
       PRIMARY KEY (run_id, case_id, platform, attempt)
     )`,
    `CREATE TABLE IF NOT EXISTS ${s}.new_failures (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       project_id text NOT NULL,
       environment text NOT NULL,
       branch text NOT NULL,
       started_at timestamptz NOT NULL,
       day date NOT NULL,
       PRIMARY KEY (run_id, case_id, platform)
     )`,
    `CREATE INDEX IF NOT EXISTS new_failures_group ON ${s}.new_failures
       (project_id, case_id, environment, branch, platform, started_at)`,
    `CREATE INDEX IF NOT EXISTS new_failures_day ON ${s}.new_failures (project_id, day)`,
    `CREATE TABLE IF NOT EXISTS ${s}.commit_conflicts (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       project_id text NOT NULL,
       commit_sha text NOT NULL,
       environment text NOT NULL,
       branch text NOT NULL,
       day date NOT NULL,
       -- Both sides of a conflict: the failed executions and the passes (in other runs) they contradict,
       -- so that a window can ask for both in it.
       failed boolean NOT NULL DEFAULT true,
       PRIMARY KEY (run_id, case_id, platform)
     )`,
    `CREATE INDEX IF NOT EXISTS commit_conflicts_commit ON ${s}.commit_conflicts (project_id, case_id, commit_sha)`,
    `CREATE INDEX IF NOT EXISTS commit_conflicts_day ON ${s}.commit_conflicts (project_id, day)`,
    `CREATE TABLE IF NOT EXISTS ${s}.usage_hours (
       project_id text NOT NULL,
       hour timestamptz NOT NULL,
       executions integer NOT NULL,
       PRIMARY KEY (project_id, hour)
     )`,
  ];
}

type Of<T extends TestResultsEvent['type']> = Extract<TestResultsEvent, { type: T }>;

interface ResultRow {
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
interface ExecutionKey {
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

async function keysOfExecutions(
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

async function applyRunCreated(
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

async function applyRunFinished(
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
interface Change extends ExecutionKey {
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
async function applyResults(tx: SqlExecutor, s: string, rows: ResultRow[]): Promise<Change[]> {
  if (rows.length === 0) return [];
  const column = <K extends keyof ResultRow>(key: K) => rows.map((r) => r[key]);
  await upsertTestCases(tx, s, rows);
  await recordErrors(tx, s, rows);
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

/** Keeps the error line of each failed attempt of the batch (attempt_errors). */
async function recordErrors(tx: SqlExecutor, s: string, rows: ResultRow[]): Promise<void> {
  const failed = rows.filter((row) => row.error_line !== null);
  if (failed.length === 0) return;
  const column = <K extends keyof ResultRow>(key: K) => failed.map((r) => r[key]);
  await tx.query(
    `INSERT INTO ${s}.attempt_errors (run_id, case_id, platform, attempt, project_id, error_line)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[])
     ON CONFLICT DO NOTHING`,
    [
      column('run_id'),
      column('case_id'),
      column('platform'),
      column('attempt'),
      column('project_id'),
      column('error_line'),
    ],
  );
}

const SEPARATOR = '\u001f';

/** Files new test cases, and new platforms and tags of known ones; a batch of known ones writes nothing. */
async function upsertTestCases(tx: SqlExecutor, s: string, rows: ResultRow[]): Promise<void> {
  const cases = new Map<string, ResultRow & { platforms: Set<string>; tagSet: Set<string> }>();
  for (const row of rows) {
    const key = `${row.project_id}${SEPARATOR}${row.case_id}`;
    const seen = cases.get(key) ?? { ...row, platforms: new Set<string>(), tagSet: new Set<string>() };
    if (row.platform !== NONE) seen.platforms.add(row.platform);
    for (const tag of row.tags) seen.tagSet.add(tag);
    cases.set(key, seen);
  }
  const list = [...cases.values()];
  const joined = (values: Set<string>) => [...values].join(SEPARATOR);
  await tx.query(
    `INSERT INTO ${s}.test_cases AS t (project_id, case_id, file, title, full_title, platforms, tags)
     SELECT u.project_id, u.case_id, u.file, u.title, u.full_title,
       ARRAY(SELECT DISTINCT p FROM unnest(string_to_array(u.platforms, E'\\x1f')) AS p WHERE p <> '' ORDER BY 1),
       ARRAY(SELECT DISTINCT x FROM unnest(string_to_array(u.tags, E'\\x1f')) AS x WHERE x <> '' ORDER BY 1)
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
       AS u(project_id, case_id, file, title, full_title, platforms, tags)
     WHERE NOT EXISTS (
       SELECT 1 FROM ${s}.test_cases k WHERE k.project_id = u.project_id AND k.case_id = u.case_id
         AND k.platforms @> coalesce(string_to_array(nullif(u.platforms, ''), E'\\x1f'), '{}')
         AND k.tags @> coalesce(string_to_array(nullif(u.tags, ''), E'\\x1f'), '{}'))
     ON CONFLICT (project_id, case_id) DO UPDATE SET
       platforms = ARRAY(SELECT DISTINCT p FROM unnest(t.platforms || EXCLUDED.platforms) AS p ORDER BY 1),
       tags = ARRAY(SELECT DISTINCT x FROM unnest(t.tags || EXCLUDED.tags) AS x ORDER BY 1)
     WHERE NOT (t.platforms @> EXCLUDED.platforms AND t.tags @> EXCLUDED.tags)`,
    [
      list.map((c) => c.project_id),
      list.map((c) => c.case_id),
      list.map((c) => c.file),
      list.map((c) => c.title),
      list.map((c) => c.full_title),
      list.map((c) => joined(c.platforms)),
      list.map((c) => joined(c.tagSet)),
    ],
  );
}

/** The summed columns of a day row, in the order both day tables list them. */
const DAY_SUMS = [
  'executions',
  'passed',
  'failed',
  'flaky',
  'skipped',
  'duration_sum',
  'duration_max',
] as const satisfies readonly (keyof DayDelta)[];

/**
 * Moves case_days, case_day_totals and case_week_totals by the difference each execution made (row after minus row before),
 * for executions that kept their day and start: then an execution's latest state only ever replaces itself
 * as the latest of its day, and its duration only grows (attempts add up). One statement for the three tables.
 */
async function applyDeltas(tx: SqlExecutor, s: string, changes: Change[]): Promise<void> {
  if (changes.length === 0) return;
  const days = dayDeltas(changes, (c) => [
    c.project_id,
    c.day,
    c.case_id,
    c.platform,
    c.environment,
    c.branch,
  ]);
  const totals = dayDeltas(changes, (c) => [c.project_id, c.day, c.case_id]);
  const weeks = dayDeltas(changes, (c) => [c.project_id, weekOf(c.day), c.case_id]);
  const added = (table: string) => `executions = ${table}.executions + EXCLUDED.executions,
      passed = ${table}.passed + EXCLUDED.passed, failed = ${table}.failed + EXCLUDED.failed,
      flaky = ${table}.flaky + EXCLUDED.flaky, skipped = ${table}.skipped + EXCLUDED.skipped,
      duration_sum = ${table}.duration_sum + EXCLUDED.duration_sum,
      duration_max = greatest(${table}.duration_max, EXCLUDED.duration_max)`;
  const latest = (table: string, columns: string[]) =>
    columns
      .map(
        (
          c,
        ) => `${c} = CASE WHEN (EXCLUDED.last_at, EXCLUDED.last_run_id) >= (${table}.last_at, ${table}.last_run_id)
          THEN EXCLUDED.${c} ELSE ${table}.${c} END`,
      )
      .join(', ');
  // Parameters $first.. are the arrays of arraysOf(rows, 3, ['last_at', 'last_run_id', 'last_outcome']).
  const upsertTotals = (table: string, period: 'day' | 'week', first: number) => {
    // The key (project, period, case), the sums, then the latest execution.
    const types = 'text date text int int int int int float8 float8 timestamptz text text'.split(' ');
    const arrays = types.map((type, i) => `$${first + i}::${type}[]`).join(', ');
    return `INSERT INTO ${s}.${table} AS d (project_id, ${period}, case_id, ${TOTALS_COLUMNS})
       SELECT * FROM unnest(${arrays})
       ON CONFLICT (project_id, ${period}, case_id) DO UPDATE SET ${added('d')},
         ${latest('d', ['last_outcome', 'last_run_id', 'last_at'])}`;
  };
  // unnest's arrays for a table's rows: each key column, the sums, then the latest execution's columns.
  const arraysOf = (rows: DayDelta[], keyColumns: number, latest: readonly (keyof DayDelta)[]) => [
    ...Array.from({ length: keyColumns }, (_, i) => rows.map((r) => r.key[i])),
    ...DAY_SUMS.map((k) => rows.map((r) => r[k])),
    ...latest.map((k) => rows.map((r) => r[k])),
  ];
  await tx.query(
    `WITH days AS (
       INSERT INTO ${s}.case_days AS d (project_id, day, case_id, platform, environment, branch, executions,
         passed, failed, flaky, skipped, duration_sum, duration_max, last_at, last_run_id, last_duration,
         last_outcome)
       SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
         $8::int[], $9::int[], $10::int[], $11::int[], $12::float8[], $13::float8[], $14::timestamptz[],
         $15::text[], $16::float8[], $17::text[])
       ON CONFLICT (project_id, day, case_id, platform, environment, branch) DO UPDATE SET ${added('d')},
         ${latest('d', ['last_duration', 'last_outcome', 'last_run_id', 'last_at'])}
     ),
     totals AS (${upsertTotals('case_day_totals', 'day', 18)})
     ${upsertTotals('case_week_totals', 'week', 31)}`,
    [
      ...arraysOf(days, 6, ['last_at', 'last_run_id', 'last_duration', 'last_outcome']),
      ...arraysOf(totals, 3, ['last_at', 'last_run_id', 'last_outcome']),
      ...arraysOf(weeks, 3, ['last_at', 'last_run_id', 'last_outcome']),
    ],
  );
}

/** Usage and run stats move by the difference of every execution, whatever it changed. */
async function applyCounts(tx: SqlExecutor, s: string, changes: Change[]): Promise<void> {
  if (changes.length === 0) return;
  const fresh = changes.filter((c) => !c.existed);
  if (fresh.length > 0) {
    await tx.query(
      `INSERT INTO ${s}.usage_hours AS u (project_id, hour, executions)
       SELECT project_id, date_trunc('hour', started_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)::int
       FROM unnest($1::text[], $2::timestamptz[]) AS x(project_id, started_at)
       GROUP BY 1, 2 ORDER BY 1, 2
       ON CONFLICT (project_id, hour) DO UPDATE SET executions = u.executions + EXCLUDED.executions`,
      [fresh.map((c) => c.project_id), fresh.map((c) => c.started_at)],
    );
  }
  const moved = changes.filter(
    (c) => c.old_started_at !== null && c.old_started_at.slice(0, 13) !== c.started_at.slice(0, 13),
  );
  if (moved.length > 0) {
    // An attempt that started earlier than those counted can move its execution to an earlier hour.
    await tx.query(
      `INSERT INTO ${s}.usage_hours AS u (project_id, hour, executions)
       SELECT project_id, date_trunc('hour', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', sum(n)::int
       FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[]) AS x(project_id, before, after),
         LATERAL (VALUES (before, -1), (after, 1)) AS m(at, n)
       GROUP BY 1, 2 ORDER BY 1, 2
       ON CONFLICT (project_id, hour) DO UPDATE SET executions = u.executions + EXCLUDED.executions`,
      [moved.map((c) => c.project_id), moved.map((c) => c.old_started_at), moved.map((c) => c.started_at)],
    );
  }
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

function unique<T>(items: T[], key: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [key(item), item])).values()];
}

/** case_week_totals rows summed from day totals rows (`source`, with their `week`). */
const weekTotalsOf = (source: string) => `(project_id, week, case_id, ${TOTALS_COLUMNS})
  SELECT c.project_id, c.week, c.case_id, sum(c.executions), sum(c.passed), sum(c.failed), sum(c.flaky),
    sum(c.skipped), sum(c.duration_sum), max(c.duration_max), max(c.last_at),
    (array_agg(c.last_run_id ORDER BY c.last_at DESC, c.last_run_id DESC))[1],
    (array_agg(c.last_outcome ORDER BY c.last_at DESC, c.last_run_id DESC))[1]
  FROM (${source}) c
  GROUP BY c.project_id, c.week, c.case_id`;

/** Recounts case_days of every (project, day, case, platform, environment, branch) touched. */
async function recomputeCaseDays(tx: SqlExecutor, s: string, keys: ExecutionKey[]): Promise<void> {
  const days = unique(keys, (k) =>
    [k.project_id, k.day, k.case_id, k.platform, k.environment, k.branch].join('\u0000'),
  );
  if (days.length === 0) return;
  const json = JSON.stringify(
    days.map(({ project_id, day, case_id, platform, environment, branch }) => ({
      project_id,
      day,
      case_id,
      platform,
      environment,
      branch,
    })),
  );
  const dirty = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, day date, case_id text,
    platform text, environment text, branch text)`;
  await tx.query(
    `DELETE FROM ${s}.case_days c USING (${dirty}) d
     WHERE (c.project_id, c.day, c.case_id, c.platform, c.environment, c.branch)
         = (d.project_id, d.day, d.case_id, d.platform, d.environment, d.branch)`,
    [json],
  );
  await tx.query(
    `INSERT INTO ${s}.case_days (project_id, day, case_id, platform, environment, branch, executions, passed,
       failed, flaky, skipped, duration_sum, duration_max, last_at, last_run_id, last_duration, last_outcome)
     SELECT d.project_id, d.day, d.case_id, d.platform, d.environment, d.branch, count(*)::int,
       count(*) FILTER (WHERE c.outcome = 'passed')::int, count(*) FILTER (WHERE c.outcome = 'failed')::int,
       count(*) FILTER (WHERE c.outcome = 'flaky')::int, count(*) FILTER (WHERE c.outcome = 'skipped')::int,
       sum(c.duration_ms), max(c.duration_ms), max(c.started_at),
       (array_agg(c.run_id ORDER BY c.started_at DESC, c.run_id DESC))[1],
       (array_agg(c.duration_ms ORDER BY c.started_at DESC, c.run_id DESC))[1],
       (array_agg(c.outcome ORDER BY c.started_at DESC, c.run_id DESC))[1]
     FROM (${dirty}) d
     JOIN ${s}.case_runs c ON c.project_id = d.project_id AND c.case_id = d.case_id
       AND c.environment = d.environment AND c.branch = d.branch AND c.platform = d.platform
       AND c.started_at >= d.day::timestamp AT TIME ZONE 'UTC'
       AND c.started_at < (d.day + 1)::timestamp AT TIME ZONE 'UTC'
     GROUP BY d.project_id, d.day, d.case_id, d.platform, d.environment, d.branch`,
    [json],
  );
  const totals = JSON.stringify(
    unique(days, (k) => [k.project_id, k.day, k.case_id].join('\u0000')).map(
      ({ project_id, day, case_id }) => ({
        project_id,
        day,
        case_id,
      }),
    ),
  );
  const dirtyTotals = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, day date, case_id text)`;
  await tx.query(
    `DELETE FROM ${s}.case_day_totals c USING (${dirtyTotals}) d
     WHERE c.project_id = d.project_id AND c.day = d.day AND c.case_id = d.case_id`,
    [totals],
  );
  await tx.query(
    `INSERT INTO ${s}.case_day_totals (project_id, day, case_id, executions, passed, failed, flaky, skipped,
       duration_sum, duration_max, last_at, last_run_id, last_outcome)
     SELECT c.project_id, c.day, c.case_id, sum(c.executions), sum(c.passed), sum(c.failed), sum(c.flaky),
       sum(c.skipped), sum(c.duration_sum), max(c.duration_max), max(c.last_at),
       (array_agg(c.last_run_id ORDER BY c.last_at DESC, c.last_run_id DESC))[1],
       (array_agg(c.last_outcome ORDER BY c.last_at DESC, c.last_run_id DESC))[1]
     FROM (${dirtyTotals}) d
     JOIN ${s}.case_days c ON c.project_id = d.project_id AND c.day = d.day AND c.case_id = d.case_id
     GROUP BY c.project_id, c.day, c.case_id`,
    [totals],
  );
  const weeks = JSON.stringify(
    unique(days, (k) => [k.project_id, weekOf(k.day), k.case_id].join('\u0000')).map(
      ({ project_id, day, case_id }) => ({ project_id, week: weekOf(day), case_id }),
    ),
  );
  const dirtyWeeks = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, week date, case_id text)`;
  await tx.query(
    `DELETE FROM ${s}.case_week_totals c USING (${dirtyWeeks}) d
     WHERE c.project_id = d.project_id AND c.week = d.week AND c.case_id = d.case_id`,
    [weeks],
  );
  // The seven days of each week by primary key, rather than a scan of every case's days of the week.
  await tx.query(
    `INSERT INTO ${s}.case_week_totals ${weekTotalsOf(
      `SELECT c.*, d.week FROM (${dirtyWeeks}) d
       CROSS JOIN LATERAL generate_series(0, 6) AS g(n)
       JOIN ${s}.case_day_totals c ON c.project_id = d.project_id AND c.day = d.week + g.n
         AND c.case_id = d.case_id`,
    )}`,
    [weeks],
  );
}

/**
 * Re-decides new failures in every touched (case, environment, branch, platform) group from the earliest
 * touched execution on: each failed execution whose previous non-skipped execution of the group passed
 * (or was flaky), or that has none, is a new failure.
 */
async function recomputeNewFailures(tx: SqlExecutor, s: string, keys: ExecutionKey[]): Promise<void> {
  const groups = new Map<string, ExecutionKey>();
  for (const k of keys) {
    const id = [k.project_id, k.case_id, k.environment, k.branch, k.platform].join('\u0000');
    const seen = groups.get(id);
    if (!seen || k.started_at < seen.started_at) groups.set(id, k);
  }
  if (groups.size === 0) return;
  const json = JSON.stringify(
    [...groups.values()].map(({ project_id, case_id, environment, branch, platform, started_at }) => ({
      project_id,
      case_id,
      environment,
      branch,
      platform,
      since: started_at,
    })),
  );
  const dirty = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, case_id text,
    environment text, branch text, platform text, since timestamptz)`;
  const sameGroup = `c.project_id = d.project_id AND c.case_id = d.case_id AND c.environment = d.environment
    AND c.branch = d.branch AND c.platform = d.platform`;
  await tx.query(
    `DELETE FROM ${s}.new_failures c USING (${dirty}) d WHERE ${sameGroup} AND c.started_at >= d.since`,
    [json],
  );
  await tx.query(
    `INSERT INTO ${s}.new_failures (run_id, case_id, platform, project_id, environment, branch, started_at, day)
     SELECT run_id, case_id, platform, project_id, environment, branch, started_at, day
     FROM (
       SELECT c.*, d.since,
         lag(c.outcome) OVER (PARTITION BY c.project_id, c.case_id, c.environment, c.branch, c.platform
                              ORDER BY c.started_at, c.run_id) AS previous
       FROM (${dirty}) d
       -- Only a group that failed since then can hold a new failure; most groups stop at this lookup.
       CROSS JOIN LATERAL (
         SELECT 1 FROM ${s}.case_runs c WHERE ${sameGroup} AND c.outcome = 'failed' AND c.started_at >= d.since
         LIMIT 1
       ) failed
       CROSS JOIN LATERAL (
         (SELECT c.* FROM ${s}.case_runs c WHERE ${sameGroup} AND c.outcome <> 'skipped' AND c.started_at < d.since
          ORDER BY c.started_at DESC, c.run_id DESC LIMIT 1)
         UNION ALL
         (SELECT c.* FROM ${s}.case_runs c WHERE ${sameGroup} AND c.outcome <> 'skipped' AND c.started_at >= d.since)
       ) c
     ) ordered
     WHERE started_at >= since AND outcome = 'failed' AND (previous IS NULL OR previous IN ('passed', 'flaky'))
     ON CONFLICT DO NOTHING`,
    [json],
  );
}

/** Re-decides, for every touched (case, commit), which failed executions contradict a pass on that commit. */
async function recomputeCommitConflicts(tx: SqlExecutor, s: string, keys: ExecutionKey[]): Promise<void> {
  if (keys.length === 0) return;
  const commits = unique(
    keys.filter((k) => k.commit_sha !== null),
    (k) => [k.project_id, k.case_id, k.commit_sha].join('\u0000'),
  ).map(({ project_id, case_id, commit_sha }) => ({ project_id, case_id, commit_sha }));
  // Executions moved off a commit (run.created after its results) leave conflicts keyed by run to clear.
  const runs = unique(keys, (k) => [k.run_id, k.case_id, k.platform].join('\u0000')).map(
    ({ run_id, case_id, platform }) => ({ run_id, case_id, platform }),
  );
  await tx.query(
    `DELETE FROM ${s}.commit_conflicts c USING jsonb_to_recordset($1::jsonb) AS d(run_id text, case_id text, platform text)
     WHERE (c.run_id, c.case_id, c.platform) = (d.run_id, d.case_id, d.platform)`,
    [JSON.stringify(runs)],
  );
  if (commits.length === 0) return;
  const json = JSON.stringify(commits);
  const dirty = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, case_id text, commit_sha text)`;
  await tx.query(
    `DELETE FROM ${s}.commit_conflicts c USING (${dirty}) d
     WHERE (c.project_id, c.case_id, c.commit_sha) = (d.project_id, d.case_id, d.commit_sha)`,
    [json],
  );
  await tx.query(
    `WITH failures AS (
       SELECT c.run_id, c.case_id, c.platform, c.project_id, c.commit_sha, c.environment, c.branch, c.day
       FROM (${dirty}) d
       -- Looked up per commit (OFFSET 0 keeps it a lookup): the failures of a project are too many to hash.
       CROSS JOIN LATERAL (
         SELECT * FROM ${s}.case_runs c WHERE c.project_id = d.project_id AND c.case_id = d.case_id
           AND c.commit_sha = d.commit_sha AND c.outcome = 'failed' OFFSET 0
       ) c
     ),
     passes AS (
       SELECT p.run_id, p.case_id, p.platform, p.project_id, p.commit_sha, p.environment, p.branch, p.day
       FROM (SELECT DISTINCT project_id, case_id, commit_sha FROM failures) d
       JOIN ${s}.runs r ON r.project_id = d.project_id AND r.commit_sha = d.commit_sha
       JOIN ${s}.case_runs p ON p.run_id = r.id AND p.case_id = d.case_id AND p.commit_sha = d.commit_sha
       WHERE p.outcome IN ('passed', 'flaky')
     )
     INSERT INTO ${s}.commit_conflicts (run_id, case_id, platform, project_id, commit_sha, environment, branch,
       day, failed)
     -- A failure and a pass in different runs: a pass and a failure within one run (two platforms) are not
     -- a conflict.
     SELECT f.*, true FROM failures f
     WHERE EXISTS (SELECT 1 FROM passes p WHERE (p.project_id, p.case_id, p.commit_sha) = (f.project_id,
       f.case_id, f.commit_sha) AND p.run_id <> f.run_id)
     UNION ALL
     SELECT p.*, false FROM passes p
     WHERE EXISTS (SELECT 1 FROM failures f WHERE (p.project_id, p.case_id, p.commit_sha) = (f.project_id,
       f.case_id, f.commit_sha) AND p.run_id <> f.run_id)
     ON CONFLICT DO NOTHING`,
    [json],
  );
}

/** Recounts the stats of every touched run from its executions. */
async function recomputeRunStats(tx: SqlExecutor, s: string, runIds: string[]): Promise<void> {
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

function resultRow(projectId: string, data: Of<'test.result-recorded'>['data']): ResultRow {
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

/** An error's first non-empty line, colours removed and cut to 500 characters; null without a message. */
export function errorLineOf(message: string | undefined): string | null {
  if (message === undefined) return null;
  // eslint-disable-next-line no-control-regex
  const plain = message.replace(/\u001b\[[0-9;]*m/g, '');
  const line =
    plain
      .split('\n')
      .find((part) => part.trim() !== '')
      ?.trim() ?? '';
  return line === '' ? null : line.slice(0, 500);
}

/**
 * The projection, for createProjector. An event that is not a test-results event fails the batch, so the
 * bus dead-letters it instead of the model silently skipping it.
 *
 * @example const projector = createProjector({ db, projection: analyticsProjection(), logger });
 */
export function analyticsProjection(name: string = ANALYTICS_READ_MODEL): Projection {
  return {
    name,
    // 2: the weekly totals, and both sides of a commit conflict (its `failed` column). A read model of an
    // earlier version is rebuilt from position 0 at start rather than altered in place.
    version: ANALYTICS_READ_MODEL_VERSION,
    async setup(tx, schema) {
      for (const statement of tableDefinitions(schema)) await tx.query(statement);
    },
    async apply(tx, events, schema) {
      // Executions whose derived rows are recounted from the base rows (moved to another day or group),
      // whose group's new failures and whose commit's conflicts are re-decided, and runs recounted.
      const recount: ExecutionKey[] = [];
      const decide: ExecutionKey[] = [];
      const conflicts: ExecutionKey[] = [];
      const runIds = new Set<string>();
      let results: ResultRow[] = [];
      // Lifecycle events apply in order, after the results before them, so a run.created later in the
      // batch finds those results' executions.
      const flush = async () => {
        const changes = await applyResults(tx, schema, results);
        results = [];
        const moved = (c: Change) => ({
          ...c,
          started_at: c.old_started_at ?? c.started_at,
          day: c.old_day ?? c.day,
        });
        const fast: Change[] = [];
        for (const change of changes) {
          // Kept its start (hence its day), or is new: its derived rows move by the difference. Written by
          // another transaction meanwhile (not inserted here, yet not seen before): recounted.
          const kept = change.existed ? change.old_started_at === change.started_at : change.inserted;
          const failing = change.outcome === 'failed' || change.old_outcome === 'failed';
          if (kept) fast.push(change);
          else {
            recount.push(change, moved(change));
            runIds.add(change.run_id);
          }
          // Only failures are new failures, and only a failure's neighbours decide it.
          if (!kept || failing || change.later_failed) decide.push(change, moved(change));
          if (!kept || failing || change.failed_on_commit) conflicts.push(change);
        }
        await applyDeltas(tx, schema, fast);
        await applyCounts(
          tx,
          schema,
          changes.filter((c) => c.existed || c.inserted),
        );
      };
      for (const stored of events) {
        const event = parseTestResultsEvent(stored);
        switch (event.type) {
          case 'test.result-recorded':
            results.push(resultRow(eventProjectId(stored), event.data));
            break;
          case 'run.created': {
            await flush();
            const keys = await applyRunCreated(tx, schema, event.data);
            recount.push(...keys);
            decide.push(...keys);
            conflicts.push(...keys);
            runIds.add(event.data.runId);
            break;
          }
          case 'run.finished':
            await flush();
            await applyRunFinished(tx, schema, eventProjectId(stored), event.data);
            break;
          default:
            break;
        }
      }
      await flush();
      await recomputeCaseDays(tx, schema, recount);
      await recomputeNewFailures(tx, schema, decide);
      await recomputeCommitConflicts(tx, schema, conflicts);
      await recomputeRunStats(tx, schema, [...runIds].sort());
    },
  };
}
