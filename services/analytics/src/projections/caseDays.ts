/**
 * Executions per test case and UTC day: `case_days` (per platform, environment and branch),
 * `case_day_totals` (every platform, environment and branch of the day) and `case_week_totals` (the same per
 * week), so that the explorer, the dashboard and the summary read a few rows per test case instead of its
 * executions. They move by the difference each execution made in a batch; an execution that moved (another
 * day or group) has its rows recounted from the executions instead.
 */
import type { SqlExecutor } from '@verdict/platform';
import { weekOf } from '../queries/window';
import { dayDeltas, type DayDelta } from './dayDeltas';
import { unique, type Change, type ExecutionKey } from './executions';

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

/** The day and week tables and their indexes, in schema `s`. */
export function caseDayTables(s: string): string[] {
  return [
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
  ];
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
export async function applyDeltas(tx: SqlExecutor, s: string, changes: Change[]): Promise<void> {
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

/** case_week_totals rows summed from day totals rows (`source`, with their `week`). */
const weekTotalsOf = (source: string) => `(project_id, week, case_id, ${TOTALS_COLUMNS})
  SELECT c.project_id, c.week, c.case_id, sum(c.executions), sum(c.passed), sum(c.failed), sum(c.flaky),
    sum(c.skipped), sum(c.duration_sum), max(c.duration_max), max(c.last_at),
    (array_agg(c.last_run_id ORDER BY c.last_at DESC, c.last_run_id DESC))[1],
    (array_agg(c.last_outcome ORDER BY c.last_at DESC, c.last_run_id DESC))[1]
  FROM (${source}) c
  GROUP BY c.project_id, c.week, c.case_id`;

/** Recounts case_days of every (project, day, case, platform, environment, branch) touched. */
export async function recomputeCaseDays(tx: SqlExecutor, s: string, keys: ExecutionKey[]): Promise<void> {
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
