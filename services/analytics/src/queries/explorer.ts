/**
 * The test case explorer (spec §4.6): per test case metrics over a window of days, read from the weekly and
 * daily aggregates (`case_week_totals`, `case_day_totals`, `case_days`), or from the executions themselves
 * when the request names runs.
 *
 * `status` (spec: "aggregated status such as passed, failed, flaky") is the status over that window, not
 * the latest execution's outcome: a test that flaked on Monday and passed since is what a user filtering for
 * flaky tests is looking for. WINDOW_STATUS says what each value means.
 */
import {
  keptInstant,
  paginationOf,
  type ExplorerData,
  type ExplorerQuery,
  type ExplorerSort,
  type ExplorerTestCase,
  type Outcome,
} from '@verdict/contracts';
import type { ReadStore } from '@verdict/platform';
import { bindings, caseTotalsOver } from './caseTotals';
import { betweenDays, dateWindow, lastDays, percent, round2, type DayWindow } from './window';

const SORT_COLUMNS: Record<ExplorerSort, string> = {
  lastExecution: 'last_at',
  failRate: 'failed::float8 / executions',
  avgDuration: 'duration_sum / executions',
  flakyRate: 'flaky::float8 / executions',
};

/** Precedence: dateRange, then fromDate/toDate, then days. */
export function explorerWindow(now: Date, query: ExplorerQuery): DayWindow {
  if (query.dateRange !== undefined) return dateWindow(now, { dateRange: query.dateRange }, query.days);
  if (query.fromDate !== undefined && query.toDate !== undefined)
    return betweenDays(query.fromDate, query.toDate);
  return lastDays(now, query.days);
}

/** Executions in the window that passed at the first attempt (every outcome is one of four). */
const PASSED = '(a.executions - a.failed - a.flaky - a.skipped)';

/**
 * What each `status` means over the window (the filter), as SQL over the window's counts. A test case may
 * match `flaky` and `failed` both; the status it shows is the first of these four that it matches.
 */
export const WINDOW_STATUS: Record<Outcome, string> = {
  // Flaked (failed, then passed on a retry) in some execution, or passed in one and failed in another.
  flaky: `(a.flaky > 0 OR (${PASSED} > 0 AND a.failed > 0))`,
  // Failed (every attempt) in some execution.
  failed: 'a.failed > 0',
  // Ran, and never failed nor flaked: every execution that was not skipped passed.
  passed: `(a.failed = 0 AND a.flaky = 0 AND ${PASSED} > 0)`,
  // Every execution was skipped.
  skipped: 'a.executions = a.skipped',
};

const SHOWN_STATUS = `CASE WHEN ${WINDOW_STATUS.flaky} THEN 'flaky' WHEN ${WINDOW_STATUS.failed} THEN 'failed'
  WHEN ${WINDOW_STATUS.passed} THEN 'passed' ELSE 'skipped' END`;

interface Row {
  case_id: string;
  file: string;
  title: string;
  full_title: string;
  tags: string[];
  executions: number;
  failed: number;
  flaky: number;
  status: Outcome;
  duration_sum: number;
  platforms: string[];
  last_at: Date | string;
  last_run_id: string;
  last_duration: number;
  last_status: Outcome;
  counter: number | null;
  branch: string | null;
  environment: string | null;
  total: number;
}

/**
 * The latest execution of a test case of the page (`page.case_id`, `page.last_at`), within what the request
 * selected. Named runs: looked up among their executions. A window: it started at `page.last_at`, the latest
 * start in the window, so it is the latest of the case's per-day rows of that day, which keep their latest
 * execution; a few rows instead of every execution of the case in the window.
 */
function latestExecution(s: string, runIds: string | null, rowFilters: string[]): string {
  const filters = rowFilters.map((f) => `AND c.${f}`).join(' ');
  return runIds !== null
    ? `SELECT c.run_id, c.duration_ms, c.outcome FROM ${s}.case_runs c
       WHERE c.project_id = $1 AND c.case_id = page.case_id AND c.run_id = ANY(${runIds}::text[]) ${filters}
       ORDER BY c.started_at DESC, c.run_id DESC LIMIT 1`
    : `SELECT c.last_run_id AS run_id, c.last_duration AS duration_ms, c.last_outcome AS outcome
       FROM ${s}.case_days c
       WHERE c.project_id = $1 AND c.day = (page.last_at AT TIME ZONE 'UTC')::date AND c.case_id = page.case_id
         ${filters}
       ORDER BY c.last_at DESC, c.last_run_id DESC LIMIT 1`;
}

/**
 * @example const data = await explore(store, projectId, query, clock.now());
 */
export async function explore(
  store: ReadStore,
  projectId: string,
  query: ExplorerQuery,
  now: Date,
): Promise<ExplorerData> {
  const s = store.schema;
  const window = explorerWindow(now, query);
  const { params, param } = bindings([projectId]);
  const runIds = [...(query.testRunId ? [query.testRunId] : []), ...(query.testRunIds ?? [])];
  const rowFilters: string[] = [];
  if (query.platform !== undefined) rowFilters.push(`platform = ${param(query.platform)}`);
  if (query.environment !== undefined) rowFilters.push(`environment = ${param(query.environment)}`);
  // Named runs: their executions, whatever the window. Otherwise the aggregates of the window: per test
  // case and week or day when nothing narrows the executions (the usual request, the fewest rows), per day,
  // platform and environment when something does.
  const windowDays = () => `day >= ${param(window.firstDay)}::date AND day <= ${param(window.lastDay)}::date`;
  const source =
    runIds.length > 0
      ? `SELECT case_id, 1 AS executions, (outcome = 'failed')::int AS failed, (outcome = 'flaky')::int AS flaky,
           (outcome = 'skipped')::int AS skipped, duration_ms AS duration_sum, started_at AS last_at,
           outcome AS last_outcome, run_id AS last_run_id
         FROM ${s}.case_runs WHERE project_id = $1 AND run_id = ANY(${param(runIds)}::text[])
         ${rowFilters.map((f) => `AND ${f}`).join(' ')}`
      : rowFilters.length > 0
        ? `SELECT case_id, executions, failed, flaky, skipped, duration_sum, last_at, last_outcome, last_run_id
           FROM ${s}.case_days WHERE project_id = $1 AND ${windowDays()} AND ${rowFilters.join(' AND ')}`
        : caseTotalsOver(s, window, param);
  const caseFilters: string[] = [];
  if (query.specFilePath !== undefined) caseFilters.push(`t.file = ${param(query.specFilePath)}`);
  if (query.tags !== undefined) caseFilters.push(`t.tags && ${param(query.tags)}::text[]`);
  if (query.search !== undefined) {
    const like = param(`%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    caseFilters.push(`(t.full_title ILIKE ${like} OR t.file ILIKE ${like})`);
  }
  if (query.status !== undefined) caseFilters.push(WINDOW_STATUS[query.status]);
  const order = [
    `${SORT_COLUMNS[query.sortBy]} ${query.order.toUpperCase()}`,
    ...(query.sortBy2 ? [`${SORT_COLUMNS[query.sortBy2]} ${query.order2.toUpperCase()}`] : []),
    'case_id ASC',
  ].join(', ');
  const counted = `WITH a AS (
       SELECT case_id, sum(executions)::int AS executions, sum(failed)::int AS failed, sum(flaky)::int AS flaky,
         sum(skipped)::int AS skipped, sum(duration_sum)::float8 AS duration_sum, max(last_at) AS last_at
       FROM (${source}) src GROUP BY case_id
     )
     SELECT a.*, ${SHOWN_STATUS} AS status, t.file, t.title, t.full_title, t.tags, t.platforms
     FROM a JOIN ${s}.test_cases t ON t.project_id = $1 AND t.case_id = a.case_id
     ${caseFilters.length > 0 ? `WHERE ${caseFilters.join(' AND ')}` : ''}`;
  const countedParams = [...params];
  const limit = param(query.limit);
  const offset = param((query.page - 1) * query.limit);
  const { rows } = await store.db.query<Row>(
    `WITH page AS (
       SELECT *, count(*) OVER ()::int AS total FROM (${counted}) x ORDER BY ${order}
       LIMIT ${limit} OFFSET ${offset}
     )
     SELECT page.*, last.run_id AS last_run_id, last.duration_ms AS last_duration, last.outcome AS last_status,
       r.counter, r.branch, r.environment
     FROM page
     LEFT JOIN LATERAL (${latestExecution(s, runIds.length > 0 ? param(runIds) : null, rowFilters)}) last ON true
     LEFT JOIN LATERAL (SELECT counter, branch, environment FROM ${s}.runs WHERE id = last.run_id) r ON true
     ORDER BY ${order}`,
    params,
  );
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && query.page > 1) {
    // Past the last page: the count still matters to the client.
    const { rows: all } = await store.db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM (${counted}) x`,
      countedParams,
    );
    total = all[0]?.total ?? 0;
  }
  const testCases: ExplorerTestCase[] = rows.map((row) => ({
    testCaseId: row.case_id,
    fullTitle: row.full_title,
    title: row.title,
    specName: row.file,
    executions: row.executions,
    platforms: row.platforms,
    failureRate: percent(row.failed, row.executions),
    flakyRate: percent(row.flaky, row.executions),
    avgDuration: row.executions > 0 ? round2(row.duration_sum / row.executions) : 0,
    tags: row.tags,
    status: row.status,
    lastRun: {
      status: row.last_status,
      duration: row.last_duration,
      timestamp: keptInstant(row.last_at),
      testRunId: row.last_run_id,
      counter: row.counter ?? 0,
      branch: row.branch ?? '',
      environment: row.environment ?? '',
    },
  }));
  return {
    testCases,
    pagination: paginationOf(query.page, query.limit, total),
    appliedFilters: {
      status: query.status ?? null,
      specFilePath: query.specFilePath ?? null,
      platform: query.platform ?? null,
      environment: query.environment ?? null,
      tags: query.tags ?? [],
      days: query.days,
      dateRange: query.dateRange ?? null,
      fromDate: query.fromDate ?? null,
      toDate: query.toDate ?? null,
      search: query.search ?? null,
      sortBy: query.sortBy,
      sortBy2: query.sortBy2 ?? null,
      order: query.order,
      order2: query.order2,
      testRunId: query.testRunId ?? null,
      testRunIds: query.testRunIds ?? [],
    },
  };
}
