/**
 * The analytics summary (spec §2, §4.7). Definitions (docs/reads.md "Analytics", OpenAPI): a flaky test case had,
 * within the last `days` days, a flaky execution (failed, then passed on a retry in one run) or a failed
 * execution on a commit it also passed on in another run within those days; a new failure is a failed execution in the range whose previous
 * execution (same environment, branch and platform) passed or that had none; duration thresholds are the
 * 50th, 75th and 90th percentiles of the mean durations of the project's test cases that ran (not only
 * skipped) in the range.
 */
import type { AnalyticsSummary, SummaryQuery, SummaryUniqueTest } from '@verdict/contracts';
import { bindings, caseTotalsOver } from './caseTotals';
import { byCodePoint, type ReadStore } from '@verdict/platform';
import { dateWindow, fileNameOf, lastDays, percent, round2, type DayWindow } from './window';

interface Filter {
  sql: string;
  params: unknown[];
}

/**
 * environment / environmentBranches as SQL over columns `environment` and `branch` (of the table `alias`
 * names, when given), from `$next`.
 */
function environmentFilter(query: SummaryQuery, next: number, alias = ''): Filter {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (query.environment !== undefined) {
    params.push(query.environment);
    parts.push(`${alias}environment = $${next + params.length - 1}`);
  }
  if (query.environmentBranches !== undefined) {
    params.push(query.environmentBranches);
    parts.push(`${alias}branch = ANY($${next + params.length - 1}::text[])`);
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(''), params };
}

interface UniqueRow {
  file: string;
  title: string;
  /**
   * The days as PostgreSQL aggregated them, comma-separated: in no order, a day more than once with an
   * environment. Text rather than an array: the driver parses an array a character at a time, and the
   * garbage of thousands of them was the summary's largest cost in Node.
   */
  days: string;
}

/** The days sorted and without repeats, in place: the lists hold thousands of them. */
function distinctInOrder(days: string[]): string[] {
  days.sort();
  let kept = 0;
  for (const day of days) if (kept === 0 || days[kept - 1] !== day) days[kept++] = day;
  days.length = kept;
  return days;
}

/**
 * The list, each test's days distinct and in order, most days first, then by file and title. Sorted here
 * rather than in SQL: the database would sort every failing row to order each test's days, and on two
 * cores that sort competed with the summary's other statements (about a quarter of the lists' time).
 */
function uniqueTests(rows: UniqueRow[]): SummaryUniqueTest[] {
  const tests = rows.map((row) => {
    const dates = distinctInOrder(row.days.split(','));
    return {
      title: row.title,
      fileName: fileNameOf(row.file),
      filePath: row.file,
      failedInDays: dates.length,
      dates,
    };
  });
  return tests.sort(
    (a, b) =>
      b.failedInDays - a.failedInDays || byCodePoint(a.filePath, b.filePath) || byCodePoint(a.title, b.title),
  );
}

/** @example const summary = await analyticsSummary(store, projectId, query, clock.now()); */
export async function analyticsSummary(
  store: ReadStore,
  projectId: string,
  query: SummaryQuery,
  now: Date,
): Promise<AnalyticsSummary> {
  const s = store.schema;
  const range: DayWindow = dateWindow(now, query, 30);
  const lookback = lastDays(now, query.days);
  const env = environmentFilter(query, 4);
  const dayParams = (w: DayWindow) => [projectId, w.firstDay, w.lastDay, ...env.params];
  const inDays = `project_id = $1 AND day >= $2::date AND day <= $3::date${env.sql}`;
  // Without an environment, the per-day totals of each test case are enough, and far fewer rows.
  const days = env.params.length > 0 ? `${s}.case_days` : `${s}.case_day_totals`;

  const runs = store.db.query<{
    total: number;
    passed: number;
    failed: number;
    avg_ms: number | null;
  }>(
    `SELECT count(*)::int AS total,
       count(*) FILTER (WHERE finished_at IS NOT NULL AND failed = 0
                          AND coalesce(reported_status, 'passed') = 'passed')::int AS passed,
       count(*) FILTER (WHERE finished_at IS NOT NULL AND (failed > 0
                          OR coalesce(reported_status, 'passed') <> 'passed'))::int AS failed,
       -- An end reported a little before the start (two clocks) is a run of 0 ms, as the run detail says.
       avg(greatest(0, EXTRACT(EPOCH FROM (finished_at - started_at)) * 1000))
         FILTER (WHERE finished_at IS NOT NULL)::float8 AS avg_ms
     FROM ${s}.runs
     WHERE project_id = $1 AND created AND started_at >= $2::date::timestamp AT TIME ZONE 'UTC'
       AND started_at < ($3::date + 1)::timestamp AT TIME ZONE 'UTC'${env.sql}`,
    // Bounds as days: the end of a range ending 9999-12-31 is a timestamp PostgreSQL reads, not one in JSON.
    dayParams(range),
  );
  // Per test case: its mean duration over the range, and whether it ran in the lookback. Without an
  // environment, from the weekly and daily totals; with one, from the day rows of that environment.
  const totalsOver = (window: DayWindow) => {
    const { params, param } = bindings([projectId]);
    if (env.params.length === 0) return { sql: caseTotalsOver(s, window, param), params };
    return {
      sql: `SELECT case_id, executions, skipped, duration_sum FROM ${s}.case_days WHERE ${inDays}`,
      params: dayParams(window),
    };
  };
  const inRange = totalsOver(range);
  const cases = store.db.query<{
    total: number;
    fast: number | null;
    medium: number | null;
    slow: number | null;
  }>(
    // A test case only skipped in the range has no duration of its own (0 ms): it has no mean, and the
    // percentiles (which pass over nulls) are those of the test cases that ran.
    `SELECT count(*)::int AS total,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY mean)::float8 AS fast,
       percentile_cont(0.75) WITHIN GROUP (ORDER BY mean)::float8 AS medium,
       percentile_cont(0.9) WITHIN GROUP (ORDER BY mean)::float8 AS slow
     FROM (
       SELECT case_id, CASE WHEN sum(executions) > sum(skipped) THEN sum(duration_sum) / sum(executions) END AS mean
       FROM (${inRange.sql}) x GROUP BY case_id
     ) m`,
    inRange.params,
  );
  // By default the lookback is the range (30 days each): the test cases that ran in it are then the ones
  // with a mean duration, already counted, and a second pass over the same totals would be wasted.
  const sameWindow = lookback.firstDay === range.firstDay && lookback.lastDay === range.lastDay;
  const testCasesIn = (window: DayWindow) => {
    const source = totalsOver(window);
    return store.db.query<{ total: number }>(
      `SELECT count(DISTINCT case_id)::int AS total FROM (${source.sql}) x`,
      source.params,
    );
  };
  const ranInLookback = sameWindow ? null : testCasesIn(lookback);
  // The days that failed or were flaky are a few percent of the rows: only they are read into the lists. A
  // test case is flaky if one of them was, or if it failed on a commit it also passed on in another run,
  // the failure and the pass both in the lookback.
  const flaky = store.db.query<UniqueRow>(
    // Case ids are hex: grouped in byte order (COLLATE "C"), the sort skips the locale's comparisons.
    `WITH failing AS (
       SELECT case_id COLLATE "C" AS case_id, string_agg(day::text, ',') AS days, bool_or(flaky > 0) AS flaky
       FROM ${days} WHERE ${inDays} AND (flaky > 0 OR failed > 0)
       GROUP BY 1
     ),
     -- Asked only of the failing test cases not already flaky by a retry. A commit whose rows in the
     -- lookback hold a failure, a pass and more than one run has a failure and a pass in different runs
     -- (were all in one run, there would be one run): one grouped pass, where a self-join cost twice as much.
     conflicted AS (
       SELECT c.case_id FROM failing f
       JOIN ${s}.commit_conflicts c ON c.project_id = $1 AND c.case_id = f.case_id AND c.day >= $2::date
         AND c.day <= $3::date${environmentFilter(query, 4, 'c.').sql}
       WHERE NOT f.flaky
       GROUP BY c.case_id, c.commit_sha
       HAVING bool_or(c.failed) AND bool_or(NOT c.failed) AND min(c.run_id) <> max(c.run_id)
     )
     SELECT t.file, t.title, f.days
     FROM failing f JOIN ${s}.test_cases t ON t.project_id = $1 AND t.case_id = f.case_id
     WHERE f.flaky OR f.case_id IN (SELECT case_id FROM conflicted)`,
    dayParams(lookback),
  );
  const newFailures = store.db.query<UniqueRow>(
    `SELECT t.file, t.title, n.days
     FROM (
       SELECT case_id COLLATE "C" AS case_id, string_agg(day::text, ',') AS days FROM ${s}.new_failures
       WHERE project_id = $1 AND day >= $2::date AND day <= $3::date${env.sql}
       GROUP BY 1
     ) n
     JOIN ${s}.test_cases t ON t.project_id = $1 AND t.case_id = n.case_id`,
    dayParams(range),
  );
  const [r, c, l, f, n] = await Promise.all([runs, cases, ranInLookback, flaky, newFailures]);
  const run = r.rows[0] ?? { total: 0, passed: 0, failed: 0, avg_ms: null };
  const caseStats = c.rows[0] ?? { total: 0, fast: null, medium: null, slow: null };
  const lookbackTotal = l === null ? caseStats.total : (l.rows[0]?.total ?? 0);
  return {
    metrics: {
      totalRuns: run.total,
      totalTestCases: caseStats.total,
      avgRunsPerDay: round2(run.total / range.days),
      failedRuns: run.failed,
      passedRuns: run.passed,
      flaky: {
        totalFlakyTestCases: f.rows.length,
        flakinessPercentage: percent(f.rows.length, lookbackTotal),
      },
      newFailures: {
        totalNewFailures: n.rows.length,
        newFailuresPercentage: percent(n.rows.length, caseStats.total),
      },
      avgExecutionTime: round2(run.avg_ms ?? 0),
      durationThresholds: {
        fast: round2(caseStats.fast ?? 0),
        medium: round2(caseStats.medium ?? 0),
        slow: round2(caseStats.slow ?? 0),
      },
    },
    uniqueFlakyTests: uniqueTests(f.rows),
    uniqueNewFailures: uniqueTests(n.rows),
    range: {
      from: range.from.toISOString(),
      to: range.to.toISOString(),
      days: range.days,
      flakyLookbackDays: query.days,
    },
  };
}
