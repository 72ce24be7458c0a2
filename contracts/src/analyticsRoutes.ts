import { defineRoutes, READER_ROLES, WRITER_ROLES } from './http';
import { ErrorEnvelope } from './envelope';
import {
  AnalyticsPath,
  AnalyticsSummaryResponse,
  DashboardResponse,
  ExecutionPerformanceQuery,
  ExecutionPerformanceResponse,
  ExplorerQuery,
  ExplorerResponse,
  FiltersResponse,
  AnalyticsNoQuery,
  ReportRequest,
  SummaryQuery,
  UsageResponse,
} from './analytics';

/** The definitions every analytics answer uses; docs/reads.md ("Analytics") says the same. */
const DEFINITIONS = [
  'An execution is one test case (file + title path) on one platform in one run; retries are attempts of the same execution.',
  'Outcome of an execution: passed (first attempt), flaky (failed, then passed on a retry), failed (every attempt failed), skipped.',
  'Rates are percentages (0 to 100, two decimals) of executions.',
].join(' ');

/** The analytics routes (spec §4.6–§4.8, API.md), served by the analytics service. */
export const analyticsRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/test-case-explorer',
    summary: 'Test cases with their metrics over a lookback window',
    description: `${DEFINITIONS} The window is the last \`days\` days (default 30), or \`dateRange\`, or \`fromDate\`..\`toDate\` (precedence in that order: dateRange, fromDate/toDate, days). \`status\` is the outcome of the test case's latest execution in the window. failureRate = failed executions / executions, flakyRate = flaky executions / executions, avgDuration = mean duration in ms of an execution (all its attempts). \`pagination\` is inside \`data\` (spec §4.6); \`appliedFilters\` echoes every filter: as sent; when not sent, the default of those that have one (days, sortBy, order, order2; days even when dateRange or fromDate/toDate set the window), null or [] for the others.`,
    tag: 'Test Case Explorer',
    security: 'bearer',
    roles: READER_ROLES,
    params: AnalyticsPath,
    query: ExplorerQuery,
    responses: { 200: { description: 'OK', schema: ExplorerResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/analytics/summary',
    summary: 'Runs, flakiness, new failures and durations over a date range',
    description: `${DEFINITIONS} Range: \`dateRange\` (wins), else \`startDate\`..\`endDate\` (inclusive days, UTC), else the last 30 days. Runs count by their start. Flaky test case (over the last \`days\` days, independent of the range): it had a flaky execution (failed, then passed on a retry within one run), or it both passed and failed on the same commit, in different runs, both within those days. flakinessPercentage: flaky test cases / test cases that ran in those days. New failure: a test case with a failed execution in the range whose previous execution (same environment, branch and platform; skipped ones do not count) passed or was flaky, or that never ran before. failedInDays/dates: the UTC days on which the test case failed at least one attempt (flaky) or had a new failure. Both lists: one entry per test case, most days first, then by file path and title; dates ascending. avgExecutionTime: mean duration in ms of the finished runs in the range. durationThresholds: from the project's own distribution — the 50th, 75th and 90th percentiles (fast, medium, slow) of its test cases' mean execution durations in the range, in ms (an execution's duration is the sum of its attempts; a test case only skipped in the range has no mean and is left out).`,
    tag: 'Analytics',
    security: 'bearer',
    roles: READER_ROLES,
    params: AnalyticsPath,
    query: SummaryQuery,
    responses: { 200: { description: 'OK', schema: AnalyticsSummaryResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/analytics/execution-performance',
    summary: 'Durations over time, slowest specs and tests, durations per platform',
    description:
      'Range as the analytics summary (dateRange, else startDate..endDate, else the last 30 days). Durations in ms; a run counts on the day it started.',
    tag: 'Analytics',
    security: 'bearer',
    roles: READER_ROLES,
    params: AnalyticsPath,
    query: ExecutionPerformanceQuery,
    responses: { 200: { description: 'OK', schema: ExecutionPerformanceResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/usage',
    summary: "The organization's test case executions in the current billing period",
    description:
      'Counts test case executions (one per test case, platform and run; retries are not counted again) started within the billing period, by the organization and by project. Without a subscription the free tier applies: 5,000 a month (calendar month, UTC) and 1 project. A plan period that has ended rolls over into the next one of a month. Ingest never refuses results past the limit: nothing is lost, and usage shows the overage (orgUsed above orgLimit, orgRemaining 0). unallocatedPool is the limit less every project allocation; a project without an allocation draws on it. No query parameters: any is a 400.',
    tag: 'Usage',
    security: 'bearer',
    roles: READER_ROLES,
    params: AnalyticsPath,
    query: AnalyticsNoQuery,
    responses: { 200: { description: 'OK', schema: UsageResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/dashboard',
    summary: 'The project at a glance: totals, the last 30 days, pass-rate trend, recent runs, worst tests',
    description: `${DEFINITIONS} No query parameters: any is a 400.`,
    tag: 'Dashboard',
    security: 'bearer',
    roles: READER_ROLES,
    params: AnalyticsPath,
    query: AnalyticsNoQuery,
    responses: { 200: { description: 'OK', schema: DashboardResponse } },
  },
  {
    method: 'get',
    path: '/{projectId}/filters',
    summary: 'The branches, environments, platforms, tags, spec files and statuses in use',
    description: 'No query parameters: any is a 400.',
    tag: 'Filters',
    security: 'bearer',
    roles: READER_ROLES,
    params: AnalyticsPath,
    query: AnalyticsNoQuery,
    responses: { 200: { description: 'OK', schema: FiltersResponse } },
  },
  {
    method: 'post',
    path: '/{projectId}/reports',
    summary: 'A PDF report of a run ({runId}) or of a period ({dateRange}), with charts',
    description:
      'Charts: pass-rate trend, flaky tests, slowest tests. 1 a minute per token (spec §8); 429 with Retry-After beyond.',
    tag: 'Reports',
    security: 'bearer',
    roles: WRITER_ROLES,
    params: AnalyticsPath,
    body: ReportRequest,
    responses: {
      200: { description: 'The report', contentType: 'application/pdf' },
      404: { description: 'NOT_FOUND: no such run in this project', schema: ErrorEnvelope },
    },
  },
]);
