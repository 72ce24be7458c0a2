/**
 * What a PDF report shows (API.md "PDF report"): a run's figures and its slowest and flaky tests, or a
 * period's summary, pass-rate trend and top tests, read from the analytics read model.
 */
import { daysOfRange, type ReportRequest } from '@verdict/contracts';
import { NotFoundError, type ReadStore } from '@verdict/platform';
import { findRun, passRateTrend, slowestTests, topFlaky } from '../queries/overview';
import { analyticsSummary } from '../queries/summary';
import { fileNameOf, lastDays, round2 } from '../queries/window';
import type { ReportContent } from './pdf';

/** A test's full title, and its platform (Playwright project) when it has one. */
const onPlatform = (row: { title: string; platform: string }) =>
  row.platform === '' ? row.title : `${row.title} [${row.platform}]`;

/** A test's page in the web app (the same form as the debug bundle's `links.uiUrl`). */
function testPageUrl(publicUrl: string, projectId: string, runId: string, caseId: string, platform: string) {
  const page = `${publicUrl.replace(/\/+$/, '')}/projects/${encodeURIComponent(projectId)}/runs/${encodeURIComponent(runId)}/tests/${encodeURIComponent(caseId)}`;
  return platform === '' ? page : `${page}?project=${encodeURIComponent(platform)}`;
}

/** The run's failed executions, by file and title, each with the error line of its latest failed attempt. */
async function failingTests(store: ReadStore, runId: string, publicUrl: string, projectId: string) {
  const { rows } = await store.db.query<{
    case_id: string;
    title: string;
    platform: string;
    error_line: string | null;
  }>(
    `SELECT c.case_id, t.full_title AS title, c.platform,
       (SELECT e.error_line FROM ${store.schema}.attempt_errors e
         WHERE e.run_id = c.run_id AND e.case_id = c.case_id AND e.platform = c.platform
         ORDER BY e.attempt DESC LIMIT 1) AS error_line
     FROM ${store.schema}.case_runs c
     JOIN ${store.schema}.test_cases t ON t.project_id = c.project_id AND t.case_id = c.case_id
     WHERE c.run_id = $1 AND c.outcome = 'failed'
     ORDER BY t.file, t.full_title, c.platform
     LIMIT ${MAX_REPORTED_FAILURES + 1}`,
    [runId],
  );
  return rows.map((row) => ({
    title: row.title,
    platform: row.platform === '' ? null : row.platform,
    errorLine: row.error_line,
    url: testPageUrl(publicUrl, projectId, runId, row.case_id, row.platform),
  }));
}

/** A run report lists at most this many failing tests (and says how many more there are). */
const MAX_REPORTED_FAILURES = 200;

/** The report of one run; its failing tests link to their pages in the web app at `publicUrl`. */
export async function runReport(
  store: ReadStore,
  projectId: string,
  runId: string,
  now: Date,
  publicUrl: string,
): Promise<ReportContent> {
  const run = await findRun(store, projectId, runId);
  if (!run) throw new NotFoundError(`Test run ${runId} not found`);
  const failures = await failingTests(store, runId, publicUrl, projectId);
  const { rows } = await store.db.query<{
    title: string;
    platform: string;
    outcome: string;
    attempts: number;
    duration_ms: number;
  }>(
    `SELECT t.full_title AS title, c.platform, c.outcome, c.attempts, c.duration_ms
     FROM ${store.schema}.case_runs c JOIN ${store.schema}.test_cases t ON t.project_id = c.project_id AND t.case_id = c.case_id
     WHERE c.run_id = $1 ORDER BY c.duration_ms DESC, t.full_title`,
    [runId],
  );
  const trendEnd = new Date(Math.min(now.getTime(), new Date(run.startedAt).getTime()));
  const trend = await passRateTrend(store, projectId, lastDays(trendEnd, 30));
  return {
    title: `Run #${run.counter}${run.title ? ` — ${run.title}` : ''}`,
    subtitle: [
      run.branch && `branch ${run.branch}`,
      run.environment && `environment ${run.environment}`,
      `started ${run.startedAt}`,
      run.outcome ? `outcome ${run.outcome}` : 'running',
    ]
      .filter(Boolean)
      .join(' · '),
    figures: [
      { label: 'Tests', value: String(run.stats.total) },
      { label: 'Passed', value: String(run.stats.passed) },
      { label: 'Failed', value: String(run.stats.failed) },
      { label: 'Flaky', value: String(run.stats.flaky) },
      { label: 'Skipped', value: String(run.stats.skipped) },
      { label: 'Duration', value: run.durationMs === null ? '—' : `${round2(run.durationMs / 1000)} s` },
    ],
    failing: {
      tests: failures.slice(0, MAX_REPORTED_FAILURES),
      total: run.stats.failed,
    },
    trend,
    flakyHeading: 'Flaky tests (attempts in this run)',
    flaky: rows
      .filter((row) => row.outcome === 'flaky')
      .slice(0, 10)
      .map((row) => ({ title: onPlatform(row), value: row.attempts })),
    // One bar per execution: a test run on two platforms is two bars, each named with its platform.
    slowest: rows.slice(0, 10).map((row) => ({ title: onPlatform(row), value: round2(row.duration_ms) })),
    generatedAt: now,
  };
}

/** The report of the last days of `range`. */
export async function periodReport(
  store: ReadStore,
  projectId: string,
  range: NonNullable<ReportRequest['dateRange']>,
  now: Date,
): Promise<ReportContent> {
  const window = lastDays(now, daysOfRange(range));
  const [summary, trend, flaky, slowest] = await Promise.all([
    analyticsSummary(store, projectId, { dateRange: range, days: daysOfRange(range) }, now),
    passRateTrend(store, projectId, window),
    topFlaky(store, projectId, window, 10),
    slowestTests(store, projectId, window, 10),
  ]);
  const m = summary.metrics;
  return {
    title: `Test report — last ${daysOfRange(range)} days`,
    subtitle: `${window.firstDay} to ${window.lastDay} (UTC)`,
    figures: [
      { label: 'Runs', value: String(m.totalRuns) },
      { label: 'Passed runs', value: String(m.passedRuns) },
      { label: 'Failed runs', value: String(m.failedRuns) },
      { label: 'Test cases', value: String(m.totalTestCases) },
      {
        label: 'Flaky test cases',
        value: `${m.flaky.totalFlakyTestCases} (${m.flaky.flakinessPercentage}%)`,
      },
      { label: 'New failures', value: String(m.newFailures.totalNewFailures) },
      { label: 'Avg run duration', value: `${round2(m.avgExecutionTime / 1000)} s` },
      { label: 'Runs a day', value: String(m.avgRunsPerDay) },
    ],
    trend,
    // Not the flaky test cases of the figures above, which also count failing and passing on one commit:
    // the bars count what a chart can, executions that failed and then passed on a retry.
    flakyHeading: 'Flaky executions per test (failed, then passed on a retry)',
    flaky: flaky.map((test) => ({
      title: `${fileNameOf(test.filePath)} > ${test.title}`,
      value: test.count,
    })),
    slowest: slowest.map((test) => ({
      title: `${fileNameOf(test.filePath)} > ${test.title}`,
      value: test.avgDurationMs,
    })),
    generatedAt: now,
  };
}
