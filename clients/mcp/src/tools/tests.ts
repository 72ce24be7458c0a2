import { z } from 'zod';
import { renderExplorer, renderTestHistory } from '../render/tests';
import type { ExplorerData, ExplorerQuery, TestCaseDetail } from '../types';
import { dataOf, defineTool, Id, Limit, Page, TextList, type ToolContext } from './tool';

const Outcome = z.enum(['passed', 'failed', 'flaky', 'skipped']);

/** A test case with its latest executions. */
export async function readTestCase(
  context: ToolContext,
  caseId: string,
  options: { limit: number; outcome?: z.infer<typeof Outcome>; project?: string },
): Promise<TestCaseDetail> {
  return dataOf(
    await context.verdict.api.GET('/{projectId}/test-cases/{caseId}', {
      params: {
        path: { projectId: options.project ?? context.project, caseId },
        query: {
          include: 'history',
          historyLimit: options.limit,
          ...(options.outcome ? { historyStatus: options.outcome } : {}),
        },
      },
      ...(context.signal ? { signal: context.signal } : {}),
    }),
  );
}

export const getTestHistory = defineTool({
  name: 'get_test_history',
  title: 'Get the history of a test',
  description:
    'Get the history of one automated test case (a test identified across runs by its file and title): its counts over every recorded execution, its latest executions (run, branch, environment, platform, outcome, attempts, duration, error), and where it failed (which branches, environments and platforms). Use it to tell a new failure (it passed before) from a recurring one or a flaky one (flaky = failed, then passed on a retry, or outcomes that alternate). Get the caseId from get_run, get_failure_context or search_tests.',
  input: z.strictObject({
    caseId: Id('The test case id'),
    outcome: Outcome.optional().describe('Only executions with this outcome'),
    limit: Limit(20, 100, 'latest executions'),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const detail = await readTestCase(context, input.caseId, {
      limit: input.limit,
      ...(input.outcome ? { outcome: input.outcome } : {}),
    });
    return renderTestHistory(detail, input.outcome);
  },
});

async function explore(context: ToolContext, query: ExplorerQuery): Promise<ExplorerData> {
  return dataOf(
    await context.verdict.api.GET('/{projectId}/test-case-explorer', {
      params: { path: { projectId: context.project }, query },
      ...(context.signal ? { signal: context.signal } : {}),
    }),
  );
}

const Days = z
  .number()
  .int()
  .min(1)
  .max(365)
  .default(30)
  .describe('The lookback window in days for the metrics (1 to 365, default 30)');

const filters = {
  specFilePath: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe('Only tests of this spec file (exact path)'),
  platform: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe('Only executions on this platform (browser or Playwright project, e.g. "chromium")'),
  environment: z.string().trim().min(1).max(500).optional().describe('Only executions in this environment'),
  tags: TextList('Only tests having any of these tags, e.g. ["@smoke"]').optional(),
  days: Days,
};

function filterQuery(input: {
  specFilePath?: string | undefined;
  platform?: string | undefined;
  environment?: string | undefined;
  tags?: string[] | undefined;
  days: number;
}): ExplorerQuery {
  return {
    days: input.days,
    ...(input.specFilePath ? { specFilePath: input.specFilePath } : {}),
    ...(input.platform ? { platform: input.platform } : {}),
    ...(input.environment ? { environment: input.environment } : {}),
    ...(input.tags ? { tags: input.tags.join(',') } : {}),
  };
}

export const findFlakyTests = defineTool({
  name: 'find_flaky_tests',
  title: 'Find flaky tests',
  description:
    'Find the flakiest automated tests of the project over the last days: tests that failed, then passed on a retry. A table sorted by flaky rate (share of executions that were flaky), with the failure rate, executions, platforms, last run and caseId of each. Use get_test_history or get_failure_context with a caseId to see why one is flaky.',
  input: z.strictObject({ ...filters, limit: Limit(20, 50, 'tests') }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const data = await explore(context, {
      ...filterQuery(input),
      sortBy: 'flakyRate',
      order: 'desc',
      sortBy2: 'failRate',
      limit: input.limit,
    });
    const flaky = data.testCases.filter((test) => test.flakyRate > 0);
    return renderExplorer(flaky, {
      heading:
        flaky.length === 0
          ? `No flaky test in the last ${input.days} days.`
          : `${flaky.length === 1 ? 'The flaky test' : `The ${flaky.length} flakiest tests`} of the last ${input.days} days (flaky rate = flaky executions / executions):`,
    });
  },
});

export const searchTests = defineTool({
  name: 'search_tests',
  title: 'Search automated tests',
  description:
    "Search the automated test cases of the project (the test case explorer): by text in the title or spec file path, by latest outcome, spec file, platform, environment or tag, with each test's executions, failure and flaky rates, average duration, last run and caseId over a lookback window. Use it to find a test's caseId, or the slowest or most failing tests.",
  input: z.strictObject({
    query: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('Text in the full test title or the spec file path (case-insensitive)'),
    status: Outcome.optional().describe('Only tests whose latest execution in the window had this outcome'),
    ...filters,
    sortBy: z
      .enum(['lastExecution', 'failRate', 'flakyRate', 'avgDuration'])
      .default('lastExecution')
      .describe('Sort key (default lastExecution: the most recently run first)'),
    order: z.enum(['asc', 'desc']).default('desc').describe('Sort order (default desc)'),
    page: Page,
    limit: Limit(20, 50, 'tests'),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const data = await explore(context, {
      ...filterQuery(input),
      ...(input.query ? { search: input.query } : {}),
      ...(input.status ? { status: input.status } : {}),
      sortBy: input.sortBy,
      order: input.order,
      page: input.page,
      limit: input.limit,
    });
    return renderExplorer(data.testCases, { pagination: data.pagination, days: input.days });
  },
});
