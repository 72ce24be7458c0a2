import { z } from 'zod';
import { renderAnalyticsSummary } from '../render/analytics';
import type { AnalyticsSummaryQuery } from '../types';
import { dataOf, defineTool, TextList } from './tool';

const Day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date such as 2026-03-01' })
  .refine((value) => !Number.isNaN(Date.parse(value)), { error: 'must be a date of the calendar' });

export const getAnalyticsSummary = defineTool({
  name: 'get_analytics_summary',
  title: 'Get the analytics summary',
  description:
    'Get the health of the test suite over a date range: runs (total, passed, failed, per day), test cases, average run duration, duration thresholds, flaky tests (failed, then passed on a retry, or both passed and failed on one commit) and new failures (tests that failed after passing before), with the tests behind each. Default range: the last 30 days.',
  input: z
    .strictObject({
      dateRange: z
        .enum(['7d', '14d', '30d', '60d', '90d'])
        .optional()
        .describe('A range ending today; wins over startDate/endDate'),
      startDate: Day.optional().describe('First day of the range (UTC), with endDate'),
      endDate: Day.optional().describe('Last day of the range (UTC, inclusive), with startDate'),
      environment: z.string().trim().min(1).max(500).optional().describe('Only runs in this environment'),
      branches: TextList('Within the environment, only these branches (needs environment)').optional(),
      flakyLookbackDays: z
        .number()
        .int()
        .min(1)
        .max(365)
        .default(30)
        .describe('How many days back flaky tests are looked for, whatever the range (1 to 365, default 30)'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(50)
        .default(10)
        .describe('How many flaky tests and new failures to list (1 to 50, default 10)'),
    })
    .superRefine((input, ctx) => {
      if (
        input.dateRange === undefined &&
        (input.startDate === undefined) !== (input.endDate === undefined)
      ) {
        const missing = input.startDate === undefined ? 'startDate' : 'endDate';
        ctx.addIssue({
          code: 'custom',
          path: [missing],
          message: `is required with ${missing === 'startDate' ? 'endDate' : 'startDate'}`,
        });
      }
      if (input.startDate && input.endDate && input.endDate < input.startDate) {
        ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must not be before startDate' });
      }
      if (input.branches !== undefined && input.environment === undefined) {
        ctx.addIssue({ code: 'custom', path: ['branches'], message: 'needs environment' });
      }
    }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const query: AnalyticsSummaryQuery = { days: input.flakyLookbackDays };
    if (input.dateRange) query.dateRange = input.dateRange;
    else if (input.startDate && input.endDate) {
      query.startDate = input.startDate;
      query.endDate = input.endDate;
    }
    if (input.environment) query.environment = input.environment;
    if (input.branches) query.environmentBranches = input.branches.join(',');
    const summary = dataOf(
      await context.verdict.api.GET('/{projectId}/analytics/summary', {
        params: { path: { projectId: context.project }, query },
        ...(context.signal ? { signal: context.signal } : {}),
      }),
    );
    return renderAnalyticsSummary(summary, input.limit);
  },
});
