import type { ListRunsQuery, RunDetail } from '@verdict/client';
import { z } from 'zod';
import { InputError } from '../errors';
import { renderRun, renderRunList } from '../render/runs';
import {
  BudgetChars,
  callOf,
  DayOrInstant,
  defineTool,
  endOf,
  Id,
  Limit,
  Page,
  startOf,
  type ToolContext,
} from './tool';

export const listRuns = defineTool({
  name: 'list_runs',
  title: 'List test runs',
  description:
    'List the automated test runs (CI executions of a test suite) of the Verdict project, newest first, as a table: run counter (#12) and id, result, branch, commit, start time, duration and test counts. Filter by branch, status, environment, text or dates. Use it to find the run to look at (for example the latest failed run on main); then call get_run or get_failure_context with its id.',
  input: z.strictObject({
    branch: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('Only runs of this git branch, e.g. "main"'),
    status: z
      .enum(['running', 'finished', 'passed', 'failed'])
      .optional()
      .describe(
        'running or finished (whatever the result), or passed / failed (finished runs with that result)',
      ),
    environment: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Only runs in this environment, e.g. "staging"'),
    search: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('Case-insensitive text in the run title, branch, commit sha or CI run id'),
    from: DayOrInstant('Only runs started at or after this day or time (UTC)').optional(),
    to: DayOrInstant('Only runs started at or before this day (inclusive) or time (UTC)').optional(),
    page: Page,
    limit: Limit(10, 50, 'runs'),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const query: ListRunsQuery = { page: input.page, limit: input.limit };
    if (input.branch) query.branch = input.branch;
    if (input.status) query.status = input.status;
    if (input.environment) query.environment = input.environment;
    if (input.search) query.search = input.search;
    // The API takes both ends or neither: an open end is the earliest or the latest possible time.
    if (input.from !== undefined || input.to !== undefined) {
      query.start_date = input.from === undefined ? '1970-01-01T00:00:00.000Z' : startOf(input.from);
      query.end_date = input.to === undefined ? '9999-12-31T23:59:59.999Z' : endOf(input.to);
      if (Date.parse(query.end_date) < Date.parse(query.start_date)) {
        throw new InputError('to', 'must not be before from');
      }
    }
    const list = await context.verdict.listRuns(query, callOf(context));
    return renderRunList(list.data, list.pagination);
  },
});

/** The run with its failures grouped by error. */
export async function readRun(runId: string, context: ToolContext, project?: string): Promise<RunDetail> {
  return context.verdict.getRun(
    runId,
    { include: 'errors' },
    { ...callOf(context), ...(project ? { project } : {}) },
  );
}

export const getRun = defineTool({
  name: 'get_run',
  title: 'Get a test run',
  description:
    'Get one automated test run: where it ran (branch, commit, CI build), its result and test counts (passed, failed, flaky = failed then passed on a retry, skipped), and its failures grouped by error message, each error with the tests it hit and their caseIds. Start triage here; then get_failure_context gives every failing test with its error, and with a caseId the full error, stack, steps, output and artifacts of one test.',
  input: z.strictObject({
    runId: Id('The run id, as list_runs shows it'),
    budgetChars: BudgetChars(6_000),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    return renderRun(await readRun(input.runId, context), input.budgetChars);
  },
});
