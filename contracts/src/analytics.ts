import { z } from 'zod';
import { commaList, queryInteger } from './http';
import { DAY_OR_INSTANT_PATTERN, inInstantRange } from './instant';
import { Pagination, successEnvelope } from './envelope';
import { Outcome } from './testResults';

/**
 * Analytics (spec §2, §4.6–§4.8, §4.10, §8 and API.md): the query parameters and answers of the test case
 * explorer, the analytics summary, usage, the dashboard, the filters, execution performance and PDF
 * reports. Query values arrive as strings, hence the coercions; list values are comma-separated.
 */

const MAX_TEXT = 500;

export const AnalyticsPath = z.object({ projectId: z.string().min(1) });

/** Spec §4.10: the ranges `dateRange` may name. */
export const AnalyticsDateRange = z.enum(['7d', '14d', '30d', '60d', '90d']);
export type AnalyticsDateRange = z.infer<typeof AnalyticsDateRange>;

/** The number of days a `dateRange` covers. */
export const daysOfRange = (range: AnalyticsDateRange): number => Number(range.slice(0, -1));

/**
 * An ISO 8601 date (`2026-03-01`), or a date-time, which counts for its day; years 1000–9999, the range of
 * every instant a client sends (INSTANT_RANGE). Checked whether or not `dateRange` wins over it: the
 * document states its pattern, so a value outside it is refused wherever it is sent.
 */
export const AnalyticsIsoDate = z
  .string()
  .refine((value) => DAY_OR_INSTANT_PATTERN.test(value) && inInstantRange(Date.parse(value)), {
    error: 'must be an ISO 8601 date from 1000-01-01 to 9999-12-31, such as 2026-03-01',
  })
  .meta({ format: 'date', pattern: DAY_OR_INSTANT_PATTERN.source });

/** `days` on the explorer and the analytics summary (spec §8): 1 to 365, default 30. */
const AnalyticsDays = queryInteger({ min: 1, max: 365, fallback: 30 });
const page = queryInteger({ min: 1, fallback: 1 });
const Text = z.string().min(1).max(MAX_TEXT);

/** Requires the two ends of a date pair together and in order; `names` are the parameter names. */
function datePair(
  query: Record<string, unknown>,
  ctx: z.RefinementCtx,
  [from, to]: readonly [string, string],
): void {
  const start = query[from];
  const end = query[to];
  if (start !== undefined && end === undefined) {
    ctx.addIssue({ code: 'custom', path: [to], message: `is required with ${from}` });
  }
  if (end !== undefined && start === undefined) {
    ctx.addIssue({ code: 'custom', path: [from], message: `is required with ${to}` });
  }
  // Ranges are whole UTC days: an end on the start's day is in order whatever the times say.
  if (typeof start === 'string' && typeof end === 'string' && utcDay(end) < utcDay(start)) {
    ctx.addIssue({ code: 'custom', path: [to], message: `must not be before ${from}` });
  }
}

const utcDay = (date: string): number => Math.floor(Date.parse(date) / 86_400_000);

/**
 * A pair of dates that `dateRange` overrides: both or neither, in order, only when no `dateRange` is sent,
 * since a range that wins makes them irrelevant (spec §4.7, §4.10). Each is a date either way.
 */
function datesUnlessRange(
  query: Record<string, unknown>,
  ctx: z.RefinementCtx,
  names: readonly [string, string],
): void {
  if (query.dateRange === undefined) datePair(query, ctx, names);
}

// ---------------------------------------------------------------------------------------------------------
// Test case explorer (spec §4.6)

export const ExplorerSort = z.enum(['lastExecution', 'failRate', 'avgDuration', 'flakyRate']);
export type ExplorerSort = z.infer<typeof ExplorerSort>;
export const ExplorerOrder = z.enum(['asc', 'desc']);
export type ExplorerOrder = z.infer<typeof ExplorerOrder>;

/** What `status` means, as the OpenAPI document and docs/api.md say it (queries/explorer.ts WINDOW_STATUS). */
const EXPLORER_STATUS_DESCRIPTION =
  'The status over the window (days, dateRange, fromDate/toDate, or the runs named), not the latest outcome. ' +
  '`flaky`: flaked (failed, then passed on a retry) in some execution, or passed in one execution and failed ' +
  'in another. `failed`: failed (every attempt) in some execution. `passed`: ran and never failed nor ' +
  'flaked (every execution that was not skipped passed). `skipped`: every execution was skipped. A test ' +
  'case may match both flaky and failed; its `status` shows the first of flaky, failed, passed, skipped ' +
  'that it matches, and `lastRun.status` the outcome of its latest execution.';

export const ExplorerQuery = z
  .strictObject({
    page,
    limit: queryInteger({ min: 1, max: 100, fallback: 50 }),
    status: Outcome.optional().describe(EXPLORER_STATUS_DESCRIPTION),
    specFilePath: Text.optional().describe('Exact spec file path'),
    platform: Text.optional().describe(
      'A platform (Playwright project, e.g. chromium): executions on it only',
    ),
    environment: Text.optional().describe('Executions in this environment only (see the filters endpoint)'),
    tags: commaList('tags', { max: 100 })
      .optional()
      .describe('Comma-separated; test cases having any of the tags'),
    days: AnalyticsDays.describe('1 to 365, default 30: the lookback window of the metrics'),
    dateRange: AnalyticsDateRange.optional().describe(
      'Instead of days: 7d, 14d, 30d, 60d or 90d (wins over days)',
    ),
    fromDate: AnalyticsIsoDate.optional().describe(
      'Instead of days: ISO 8601 date, sent together with toDate; ignored with dateRange',
    ),
    toDate: AnalyticsIsoDate.optional().describe(
      'Instead of days: ISO 8601 date (inclusive), sent with fromDate',
    ),
    search: Text.optional().describe('Case-insensitive substring of the full title or the spec file path'),
    sortBy: ExplorerSort.default('lastExecution'),
    order: ExplorerOrder.default('desc'),
    sortBy2: ExplorerSort.optional().describe('Tie-breaker sort'),
    order2: ExplorerOrder.default('desc').describe('Order of sortBy2'),
    testRunId: Text.optional().describe('Executions of this run only'),
    testRunIds: commaList('run ids', { max: 100 })
      .optional()
      .describe('Comma-separated: executions of these runs only'),
  })
  .superRefine((query, ctx) => datesUnlessRange(query, ctx, ['fromDate', 'toDate']));
export type ExplorerQuery = z.infer<typeof ExplorerQuery>;

export const ExplorerLastRun = z.object({
  status: Outcome.describe('Outcome of the latest execution in the window'),
  duration: z.number(),
  timestamp: z.string(),
  testRunId: z.string(),
  counter: z.number().int(),
  branch: z.string(),
  environment: z.string(),
});

export const ExplorerTestCase = z.object({
  testCaseId: z.string(),
  fullTitle: z.string(),
  title: z.string(),
  specName: z.string(),
  executions: z.number().int(),
  platforms: z
    .array(z.string())
    .describe('Every platform the test case has run on, in name order (not narrowed by the window)'),
  failureRate: z.number(),
  flakyRate: z.number(),
  avgDuration: z.number(),
  tags: z.array(z.string()),
  status: Outcome.describe(EXPLORER_STATUS_DESCRIPTION),
  lastRun: ExplorerLastRun,
});
export type ExplorerTestCase = z.infer<typeof ExplorerTestCase>;

export const ExplorerAppliedFilters = z.object({
  status: z.string().nullable(),
  specFilePath: z.string().nullable(),
  platform: z.string().nullable(),
  environment: z.string().nullable(),
  tags: z.array(z.string()),
  days: z.number().int(),
  dateRange: z.string().nullable(),
  fromDate: z.string().nullable(),
  toDate: z.string().nullable(),
  search: z.string().nullable(),
  sortBy: z.string(),
  sortBy2: z.string().nullable(),
  order: z.string(),
  order2: z.string().nullable(),
  testRunId: z.string().nullable(),
  testRunIds: z.array(z.string()),
});
export type ExplorerAppliedFilters = z.infer<typeof ExplorerAppliedFilters>;

export const ExplorerData = z.object({
  testCases: z.array(ExplorerTestCase),
  pagination: Pagination,
  appliedFilters: ExplorerAppliedFilters,
});
export type ExplorerData = z.infer<typeof ExplorerData>;
export const ExplorerResponse = successEnvelope(ExplorerData);

// ---------------------------------------------------------------------------------------------------------
// Analytics summary (spec §4.7)

/**
 * `startDate`/`endDate` are read (and checked) only without `dateRange` (spec: "ignored when dateRange is
 * present"); `environmentBranches` needs the `environment` it is within.
 */
export const SummaryQuery = z
  .strictObject({
    dateRange: AnalyticsDateRange.optional().describe(
      '7d, 14d, 30d, 60d or 90d; wins over startDate/endDate',
    ),
    startDate: AnalyticsIsoDate.optional().describe(
      'ISO 8601 date, sent with endDate; ignored with dateRange',
    ),
    endDate: AnalyticsIsoDate.optional().describe('ISO 8601 date (inclusive), sent with startDate'),
    environment: Text.optional(),
    environmentBranches: commaList('branches', { max: 100 })
      .optional()
      .describe('Comma-separated branches within the chosen environment (requires environment)'),
    days: AnalyticsDays.describe(
      '1 to 365, default 30: lookback of flaky detection, independent of the date range',
    ),
  })
  .superRefine((query, ctx) => {
    if (query.environmentBranches !== undefined && query.environment === undefined) {
      ctx.addIssue({ code: 'custom', path: ['environmentBranches'], message: 'requires environment' });
    }
    datesUnlessRange(query, ctx, ['startDate', 'endDate']);
  });
export type SummaryQuery = z.infer<typeof SummaryQuery>;

export const SummaryUniqueTest = z.object({
  title: z.string(),
  fileName: z.string(),
  filePath: z.string(),
  failedInDays: z.number().int(),
  dates: z.array(z.string()),
});
export type SummaryUniqueTest = z.infer<typeof SummaryUniqueTest>;

export const AnalyticsSummary = z.object({
  metrics: z.object({
    totalRuns: z.number(),
    totalTestCases: z.number(),
    avgRunsPerDay: z.number(),
    failedRuns: z.number(),
    passedRuns: z.number(),
    flaky: z.object({ totalFlakyTestCases: z.number(), flakinessPercentage: z.number() }),
    newFailures: z.object({ totalNewFailures: z.number(), newFailuresPercentage: z.number() }),
    avgExecutionTime: z.number(),
    durationThresholds: z.object({ fast: z.number(), medium: z.number(), slow: z.number() }),
  }),
  uniqueFlakyTests: z.array(SummaryUniqueTest),
  uniqueNewFailures: z.array(SummaryUniqueTest),
  range: z.object({
    from: z.string(),
    to: z.string(),
    days: z.number().int(),
    flakyLookbackDays: z.number(),
  }),
});
export type AnalyticsSummary = z.infer<typeof AnalyticsSummary>;
export const AnalyticsSummaryResponse = successEnvelope(AnalyticsSummary);

// ---------------------------------------------------------------------------------------------------------
// Usage (spec §2, §4.8)

/** A query that must be empty: "no parameters" endpoints reject any, naming it. */
export const AnalyticsNoQuery = z.strictObject({});

export const ProjectUsage = z.object({
  id: z.string(),
  name: z.string(),
  allocated: z.number().int(),
  used: z.number().int(),
  remaining: z.number().int(),
});
/** The older shape of a `projectUsage` entry, which readers may still hold: only id, name and used. */
export const LegacyProjectUsage = z.object({ id: z.string(), name: z.string(), used: z.number().int() });
export const AnyProjectUsage = z.union([ProjectUsage, LegacyProjectUsage]);

export const Usage = z.object({
  planName: z.string(),
  orgName: z.string(),
  projects: z.array(z.object({ id: z.string(), name: z.string() })),
  orgLimit: z.number().int(),
  orgUsed: z.number().int(),
  orgRemaining: z.number().int(),
  projectAllocated: z.number().int(),
  projectUsed: z.number().int(),
  projectRemaining: z.number().int(),
  unallocatedPool: z.number().int(),
  projectUsage: z.array(AnyProjectUsage),
  periodStart: z.string(),
  periodEnd: z.string(),
  resetDate: z.string(),
});
export type Usage = z.infer<typeof Usage>;
export const UsageResponse = successEnvelope(Usage);

// ---------------------------------------------------------------------------------------------------------
// Dashboard and filters (API.md; no query parameters)

export const AnalyticsRunBrief = z.object({
  id: z.string(),
  counter: z.number().int(),
  title: z.string().nullable(),
  branch: z.string().nullable(),
  environment: z.string().nullable(),
  status: z.enum(['running', 'finished']),
  outcome: z.enum(['passed', 'failed']).nullable(),
  startedAt: z.string(),
  durationMs: z.number().nullable(),
  stats: z.object({
    total: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    flaky: z.number().int(),
    skipped: z.number().int(),
  }),
});
export type AnalyticsRunBrief = z.infer<typeof AnalyticsRunBrief>;

export const PassRateTrendPoint = z.object({
  date: z.string(),
  runs: z.number().int(),
  executions: z.number().int(),
  passRate: z
    .number()
    .nullable()
    .describe('Passed or flaky executions / executions not skipped, in percent; null on a day without any'),
  flakyRate: z.number().nullable().describe('Flaky executions / executions not skipped; null as passRate'),
});
export type PassRateTrendPoint = z.infer<typeof PassRateTrendPoint>;

/** The dashboard's top flaky and top failing tests: most `count` first, then by test case id. */
export const RankedTestCase = z.object({
  testCaseId: z.string(),
  title: z.string(),
  filePath: z.string(),
  executions: z.number().int(),
  count: z.number().int().describe('Its executions that were flaky (or failed, in topFailingTests)'),
  rate: z.number().describe('count / executions, in percent'),
});
export type RankedTestCase = z.infer<typeof RankedTestCase>;

export const Dashboard = z.object({
  totals: z.object({ runs: z.number().int(), testCases: z.number().int(), executions: z.number().int() }),
  last30Days: z.object({
    runs: z.number().int(),
    passedRuns: z.number().int(),
    failedRuns: z.number().int(),
    passRate: z
      .number()
      .describe('Passed or flaky executions / executions not skipped, in percent (0 without any)'),
    flakyRate: z.number().describe('Flaky executions / executions not skipped, in percent'),
    avgRunDurationMs: z.number(),
  }),
  passRateTrend: z.array(PassRateTrendPoint),
  recentRuns: z.array(AnalyticsRunBrief),
  topFlakyTests: z.array(RankedTestCase),
  topFailingTests: z.array(RankedTestCase),
});
export type Dashboard = z.infer<typeof Dashboard>;
export const DashboardResponse = successEnvelope(Dashboard);

export const ProjectFilters = z.object({
  branches: z.array(z.string()),
  environments: z.array(z.string()),
  environmentBranches: z.record(z.string(), z.array(z.string())),
  platforms: z.array(z.string()),
  tags: z.array(z.string()),
  specFiles: z.array(z.string()),
  statuses: z.array(Outcome),
});
export type ProjectFilters = z.infer<typeof ProjectFilters>;
export const FiltersResponse = successEnvelope(ProjectFilters);

// ---------------------------------------------------------------------------------------------------------
// Execution performance (API.md; date filters of spec §4.10)

/** Longest startDate..endDate of execution performance, both days included. */
export const MAX_PERFORMANCE_DAYS = 366;

export const ExecutionPerformanceQuery = z
  .strictObject({
    dateRange: AnalyticsDateRange.optional().describe(
      '7d, 14d, 30d, 60d or 90d (default 30d); wins over startDate',
    ),
    startDate: AnalyticsIsoDate.optional().describe(
      'ISO 8601 date, sent with endDate; ignored with dateRange',
    ),
    endDate: AnalyticsIsoDate.optional().describe(
      `ISO 8601 date (inclusive), sent with startDate; at most ${MAX_PERFORMANCE_DAYS} days from it`,
    ),
    environment: Text.optional(),
    branch: Text.optional(),
    platform: Text.optional(),
    limit: queryInteger({ min: 1, max: 100, fallback: 10 }).describe('Entries of the slowest lists'),
  })
  .superRefine((query, ctx) => {
    if (query.dateRange !== undefined) return;
    datePair(query, ctx, ['startDate', 'endDate']);
    // The duration trend has a point a day: 0001-01-01..9999-12-31 would be three million of them.
    const { startDate, endDate } = query;
    if (startDate !== undefined && endDate !== undefined) {
      const days = (Date.parse(endDate.slice(0, 10)) - Date.parse(startDate.slice(0, 10))) / 86_400_000 + 1;
      if (days > MAX_PERFORMANCE_DAYS) {
        ctx.addIssue({
          code: 'custom',
          path: ['endDate'],
          message: `must be at most ${MAX_PERFORMANCE_DAYS} days from startDate (the duration trend has a point a day)`,
        });
      }
    }
  });
export type ExecutionPerformanceQuery = z.infer<typeof ExecutionPerformanceQuery>;

export const ExecutionPerformance = z.object({
  range: z.object({ from: z.string(), to: z.string(), days: z.number().int() }),
  durationTrend: z.array(
    z.object({
      date: z.string(),
      runs: z.number().int(),
      avgRunDurationMs: z
        .number()
        .nullable()
        .describe('Mean duration of the runs started that day and finished; null when none finished'),
      executions: z.number().int(),
      avgTestDurationMs: z
        .number()
        .nullable()
        .describe('Mean duration of an execution (its attempts together); null without executions'),
    }),
  ),
  slowestSpecs: z.array(
    z.object({
      filePath: z.string(),
      fileName: z.string(),
      executions: z.number().int(),
      avgDurationMs: z.number(),
      totalDurationMs: z.number(),
    }),
  ),
  slowestTests: z.array(
    z.object({
      testCaseId: z.string(),
      title: z.string(),
      fullTitle: z.string(),
      filePath: z.string(),
      executions: z.number().int(),
      avgDurationMs: z.number(),
      maxDurationMs: z.number(),
    }),
  ),
  platforms: z.array(
    z.object({ platform: z.string(), executions: z.number().int(), avgDurationMs: z.number() }),
  ),
});
export type ExecutionPerformance = z.infer<typeof ExecutionPerformance>;
export const ExecutionPerformanceResponse = successEnvelope(ExecutionPerformance);

// ---------------------------------------------------------------------------------------------------------
// PDF reports (API.md)

export const ReportRequest = z
  .strictObject({
    runId: z.string().min(1).max(200).optional(),
    dateRange: AnalyticsDateRange.optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.runId === undefined) === (body.dateRange === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['runId'], message: 'send exactly one of runId or dateRange' });
    }
  })
  .meta({ oneOf: [{ required: ['runId'] }, { required: ['dateRange'] }] });
export type ReportRequest = z.infer<typeof ReportRequest>;
