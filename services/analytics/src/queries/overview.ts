/** The dashboard, the filters and execution performance (API.md), over the analytics read model. */
import {
  keptInstant,
  Outcome,
  type AnalyticsRunBrief,
  type Dashboard,
  type ExecutionPerformance,
  type ExecutionPerformanceQuery,
  type ProjectFilters,
  type RankedTestCase,
} from '@verdict/contracts';
import { bindings } from './caseTotals';
import type { ReadStore } from '@verdict/platform';
import { dateWindow, fileNameOf, lastDays, percent, round2, type DayWindow } from './window';

interface RunRow {
  id: string;
  counter: number;
  title: string | null;
  branch: string;
  environment: string;
  started_at: Date | string;
  finished_at: Date | string | null;
  reported_status: string | null;
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
}

const RUN_COLUMNS = `id, counter, title, branch, environment, started_at, finished_at, reported_status, total, passed,
  failed, flaky, skipped`;

export function runBriefOf(row: RunRow): AnalyticsRunBrief {
  const finished = row.finished_at !== null;
  const startedAt = new Date(row.started_at);
  return {
    id: row.id,
    counter: row.counter,
    title: row.title,
    branch: row.branch === '' ? null : row.branch,
    environment: row.environment === '' ? null : row.environment,
    status: finished ? 'finished' : 'running',
    outcome: !finished
      ? null
      : row.failed > 0 || (row.reported_status ?? 'passed') !== 'passed'
        ? 'failed'
        : 'passed',
    startedAt: keptInstant(startedAt),
    durationMs: finished
      ? Math.max(0, new Date(row.finished_at as string).getTime() - startedAt.getTime())
      : null,
    stats: {
      total: row.total,
      passed: row.passed,
      failed: row.failed,
      flaky: row.flaky,
      skipped: row.skipped,
    },
  };
}

export async function findRun(
  store: ReadStore,
  projectId: string,
  runId: string,
): Promise<AnalyticsRunBrief | null> {
  const { rows } = await store.db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM ${store.schema}.runs WHERE project_id = $1 AND id = $2 AND created`,
    [projectId, runId],
  );
  return rows[0] ? runBriefOf(rows[0]) : null;
}

interface DayRow {
  day: string;
  executions: number;
  passed: number;
  flaky: number;
  skipped: number;
  duration_sum: number;
}

/** Executions, pass rate and flaky rate per day of the window; every day present, empty ones with zeros. */
/** Narrows a trend to an environment, a branch and a platform (the runs that executed tests on it). */
export interface TrendFilter {
  environment?: string;
  branch?: string;
  platform?: string;
}

export async function passRateTrend(
  store: ReadStore,
  projectId: string,
  window: DayWindow,
  filter: TrendFilter = {},
) {
  const s = store.schema;
  const { params, param } = bindings([projectId, window.firstDay, window.lastDay]);
  let executions = '';
  let runs = '';
  for (const column of ['environment', 'branch'] as const) {
    const value = filter[column];
    if (value === undefined) continue;
    const placeholder = param(value);
    executions += ` AND c.${column} = ${placeholder}`;
    runs += ` AND r.${column} = ${placeholder}`;
  }
  if (filter.platform !== undefined) {
    const placeholder = param(filter.platform);
    executions += ` AND c.platform = ${placeholder}`;
    runs += ` AND EXISTS (SELECT 1 FROM ${s}.case_runs x WHERE x.run_id = r.id AND x.platform = ${placeholder})`;
  }
  const { rows } = await store.db.query<DayRow & { runs: number; run_ms: number | null }>(
    `SELECT d::date::text AS day,
       coalesce(sum(c.executions), 0)::int AS executions, coalesce(sum(c.passed), 0)::int AS passed,
       coalesce(sum(c.flaky), 0)::int AS flaky, coalesce(sum(c.skipped), 0)::int AS skipped,
       coalesce(sum(c.duration_sum), 0)::float8 AS duration_sum,
       (SELECT count(*)::int FROM ${s}.runs r WHERE r.project_id = $1 AND r.created
          AND r.started_at >= d AND r.started_at < d + interval '1 day'${runs}) AS runs,
       (SELECT avg(greatest(0, EXTRACT(EPOCH FROM (r.finished_at - r.started_at)) * 1000))::float8 FROM ${s}.runs r
          WHERE r.project_id = $1 AND r.created AND r.finished_at IS NOT NULL
          AND r.started_at >= d AND r.started_at < d + interval '1 day'${runs}) AS run_ms
     FROM generate_series($2::date::timestamp, $3::date::timestamp, interval '1 day') AS d
     LEFT JOIN ${s}.case_days c ON c.project_id = $1 AND c.day = d::date${executions}
     GROUP BY d ORDER BY d`,
    params,
  );
  return rows.map((row) => {
    const decided = row.executions - row.skipped;
    return {
      date: row.day,
      runs: row.runs,
      executions: row.executions,
      // A day without a decided execution has no rate, and one without a finished run no run duration:
      // null, not 0, which a chart would draw as a day that failed everything in no time.
      passRate: decided > 0 ? percent(row.passed + row.flaky, decided) : null,
      flakyRate: decided > 0 ? percent(row.flaky, decided) : null,
      avgRunDurationMs: row.run_ms === null ? null : round2(row.run_ms),
      avgTestDurationMs: row.executions > 0 ? round2(row.duration_sum / row.executions) : null,
      counts: { decided, passedOrFlaky: row.passed + row.flaky, flaky: row.flaky },
    };
  });
}

async function ranked(
  store: ReadStore,
  projectId: string,
  window: DayWindow,
  column: 'flaky' | 'failed',
  limit: number,
): Promise<RankedTestCase[]> {
  const { rows } = await store.db.query<{
    case_id: string;
    title: string;
    file: string;
    executions: number;
    count: number;
  }>(
    `SELECT c.case_id, t.title, t.file, sum(c.executions)::int AS executions, sum(c.${column})::int AS count
     FROM ${store.schema}.case_days c JOIN ${store.schema}.test_cases t ON t.project_id = $1 AND t.case_id = c.case_id
     WHERE c.project_id = $1 AND c.day >= $2::date AND c.day <= $3::date
     GROUP BY c.case_id, t.title, t.file HAVING sum(c.${column}) > 0
     ORDER BY sum(c.${column}) DESC, c.case_id LIMIT $4`,
    [projectId, window.firstDay, window.lastDay, limit],
  );
  return rows.map((row) => ({
    testCaseId: row.case_id,
    title: row.title,
    filePath: row.file,
    executions: row.executions,
    count: row.count,
    rate: percent(row.count, row.executions),
  }));
}

/** The top flaky tests of a window; the PDF report uses it too. */
export const topFlaky = (store: ReadStore, projectId: string, window: DayWindow, limit: number) =>
  ranked(store, projectId, window, 'flaky', limit);

/** @example const dashboard = await dashboardOf(store, projectId, clock.now()); */
export async function dashboardOf(store: ReadStore, projectId: string, now: Date): Promise<Dashboard> {
  const s = store.schema;
  const window = lastDays(now, 30);
  const [totals, recent, trend, flaky, failing, last30] = await Promise.all([
    store.db.query<{ runs: number; test_cases: number; executions: number }>(
      `SELECT (SELECT count(*)::int FROM ${s}.runs WHERE project_id = $1 AND created) AS runs,
         (SELECT count(*)::int FROM ${s}.test_cases WHERE project_id = $1) AS test_cases,
         (SELECT coalesce(sum(executions), 0)::int FROM ${s}.usage_hours WHERE project_id = $1) AS executions`,
      [projectId],
    ),
    store.db.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ${s}.runs WHERE project_id = $1 AND created
       ORDER BY started_at DESC, id DESC LIMIT 10`,
      [projectId],
    ),
    passRateTrend(store, projectId, window),
    topFlaky(store, projectId, window, 5),
    ranked(store, projectId, window, 'failed', 5),
    store.db.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM ${s}.runs WHERE project_id = $1 AND created AND started_at >= $2 AND started_at < $3`,
      [projectId, window.from, window.to],
    ),
  ]);
  const runs = last30.rows.map(runBriefOf);
  const finished = runs.filter((run) => run.durationMs !== null);
  const count = (of: (day: (typeof trend)[number]['counts']) => number) =>
    trend.reduce((sum, day) => sum + of(day.counts), 0);
  const decided = count((day) => day.decided);
  return {
    totals: {
      runs: totals.rows[0]?.runs ?? 0,
      testCases: totals.rows[0]?.test_cases ?? 0,
      executions: totals.rows[0]?.executions ?? 0,
    },
    last30Days: {
      runs: runs.length,
      passedRuns: runs.filter((run) => run.outcome === 'passed').length,
      failedRuns: runs.filter((run) => run.outcome === 'failed').length,
      passRate: percent(
        count((day) => day.passedOrFlaky),
        decided,
      ),
      flakyRate: percent(
        count((day) => day.flaky),
        decided,
      ),
      avgRunDurationMs:
        finished.length > 0
          ? round2(finished.reduce((sum, run) => sum + (run.durationMs ?? 0), 0) / finished.length)
          : 0,
    },
    passRateTrend: trend.map(({ date, runs: count, executions: n, passRate, flakyRate }) => ({
      date,
      runs: count,
      executions: n,
      passRate,
      flakyRate,
    })),
    recentRuns: recent.rows.map(runBriefOf),
    topFlakyTests: flaky,
    topFailingTests: failing,
  };
}

/** @example const filters = await filtersOf(store, projectId); */
export async function filtersOf(store: ReadStore, projectId: string): Promise<ProjectFilters> {
  const s = store.schema;
  const [pairs, cases, outcomes] = await Promise.all([
    store.db.query<{ environment: string; branch: string }>(
      `SELECT DISTINCT environment, branch FROM ${s}.runs WHERE project_id = $1 AND created ORDER BY 1, 2`,
      [projectId],
    ),
    store.db.query<{ platforms: string[] | null; tags: string[] | null; files: string[] | null }>(
      `SELECT ARRAY(SELECT DISTINCT p FROM ${s}.test_cases, unnest(platforms) p WHERE project_id = $1 ORDER BY 1) AS platforms,
         ARRAY(SELECT DISTINCT t FROM ${s}.test_cases, unnest(tags) t WHERE project_id = $1 ORDER BY 1) AS tags,
         ARRAY(SELECT DISTINCT file FROM ${s}.test_cases WHERE project_id = $1 ORDER BY 1) AS files`,
      [projectId],
    ),
    // The outcomes the project's executions had: from the weekly totals, a few rows per test case and week.
    store.db.query<Record<(typeof Outcome.options)[number], boolean | null>>(
      `SELECT bool_or(passed > 0) AS passed, bool_or(failed > 0) AS failed, bool_or(flaky > 0) AS flaky,
         bool_or(skipped > 0) AS skipped
       FROM ${s}.case_week_totals WHERE project_id = $1`,
      [projectId],
    ),
  ]);
  const inUse = outcomes.rows[0];
  const environmentBranches: Record<string, string[]> = {};
  for (const { environment, branch } of pairs.rows) {
    if (environment === '') continue;
    const branches = (environmentBranches[environment] ??= []);
    if (branch !== '') branches.push(branch);
  }
  const sorted = (values: Iterable<string>) => [...new Set(values)].filter((v) => v !== '').sort();
  return {
    branches: sorted(pairs.rows.map((row) => row.branch)),
    environments: sorted(pairs.rows.map((row) => row.environment)),
    environmentBranches,
    platforms: cases.rows[0]?.platforms ?? [],
    tags: cases.rows[0]?.tags ?? [],
    specFiles: cases.rows[0]?.files ?? [],
    statuses: Outcome.options.filter((outcome) => inUse?.[outcome] === true),
  };
}

/** The slowest tests of a window (mean duration of an execution); the PDF report uses it too. */
export async function slowestTests(
  store: ReadStore,
  projectId: string,
  window: DayWindow,
  limit: number,
  filter: { sql: string; params: unknown[] } = { sql: '', params: [] },
) {
  const { rows } = await store.db.query<{
    case_id: string;
    title: string;
    full_title: string;
    file: string;
    executions: number;
    mean: number;
    max: number;
  }>(
    `SELECT c.case_id, t.title, t.full_title, t.file, sum(c.executions)::int AS executions,
       (sum(c.duration_sum) / sum(c.executions))::float8 AS mean, max(c.duration_max)::float8 AS max
     FROM ${store.schema}.case_days c JOIN ${store.schema}.test_cases t ON t.project_id = $1 AND t.case_id = c.case_id
     WHERE c.project_id = $1 AND c.day >= $2::date AND c.day <= $3::date${filter.sql}
     GROUP BY c.case_id, t.title, t.full_title, t.file
     ORDER BY mean DESC, c.case_id LIMIT $4`,
    [projectId, window.firstDay, window.lastDay, limit, ...filter.params],
  );
  return rows.map((row) => ({
    testCaseId: row.case_id,
    title: row.title,
    fullTitle: row.full_title,
    filePath: row.file,
    executions: row.executions,
    avgDurationMs: round2(row.mean),
    maxDurationMs: round2(row.max),
  }));
}

/** @example const performance = await executionPerformance(store, projectId, query, clock.now()); */
export async function executionPerformance(
  store: ReadStore,
  projectId: string,
  query: ExecutionPerformanceQuery,
  now: Date,
): Promise<ExecutionPerformance> {
  const s = store.schema;
  const window = dateWindow(now, query, 30);
  const params: unknown[] = [];
  const parts: string[] = [];
  for (const [column, value] of [
    ['environment', query.environment],
    ['branch', query.branch],
    ['platform', query.platform],
  ] as const) {
    if (value === undefined) continue;
    params.push(value);
    parts.push(` AND c.${column} = $${4 + params.length}`);
  }
  const filter = { sql: parts.join(''), params };
  const base = [projectId, window.firstDay, window.lastDay];
  const [trend, specs, tests, platforms] = await Promise.all([
    passRateTrend(store, projectId, window, {
      ...(query.environment !== undefined ? { environment: query.environment } : {}),
      ...(query.branch !== undefined ? { branch: query.branch } : {}),
      ...(query.platform !== undefined ? { platform: query.platform } : {}),
    }),
    store.db.query<{ file: string; executions: number; mean: number; total: number }>(
      `SELECT t.file, sum(c.executions)::int AS executions, (sum(c.duration_sum) / sum(c.executions))::float8 AS mean,
         sum(c.duration_sum)::float8 AS total
       FROM ${s}.case_days c JOIN ${s}.test_cases t ON t.project_id = $1 AND t.case_id = c.case_id
       WHERE c.project_id = $1 AND c.day >= $2::date AND c.day <= $3::date${filter.sql}
       GROUP BY t.file ORDER BY total DESC, t.file LIMIT $4`,
      [...base, query.limit, ...params],
    ),
    slowestTests(store, projectId, window, query.limit, filter),
    store.db.query<{ platform: string; executions: number; mean: number }>(
      `SELECT c.platform, sum(c.executions)::int AS executions, (sum(c.duration_sum) / sum(c.executions))::float8 AS mean
       FROM ${s}.case_days c WHERE c.project_id = $1 AND c.day >= $2::date AND c.day <= $3::date
         AND $4::int IS NOT NULL${filter.sql}
       GROUP BY c.platform ORDER BY c.platform`,
      [...base, query.limit, ...params],
    ),
  ]);
  return {
    range: { from: window.from.toISOString(), to: window.to.toISOString(), days: window.days },
    durationTrend: trend.map((day) => ({
      date: day.date,
      runs: day.runs,
      avgRunDurationMs: day.avgRunDurationMs,
      executions: day.executions,
      avgTestDurationMs: day.avgTestDurationMs,
    })),
    slowestSpecs: specs.rows.map((row) => ({
      filePath: row.file,
      fileName: fileNameOf(row.file),
      executions: row.executions,
      avgDurationMs: round2(row.mean),
      totalDurationMs: round2(row.total),
    })),
    slowestTests: tests,
    platforms: platforms.rows.map((row) => ({
      platform: row.platform,
      executions: row.executions,
      avgDurationMs: round2(row.mean),
    })),
  };
}
