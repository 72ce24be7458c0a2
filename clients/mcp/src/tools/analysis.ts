import {
  CATEGORY_LABELS,
  type CompareQuery,
  type ErrorGroupsQuery,
  type RunComparison,
} from '@verdict/client';
import { z } from 'zod';
import { renderErrorGroup, renderErrorGroups } from '../render/errors';
import { clip, code, count, duration, fitLines, oneLine } from '../render/markdown';
import { BudgetChars, callOf, DayOrInstant, defineTool, endOf, Id, Limit, Page, startOf } from './tool';

/** What changed since a run's base, and error groups across runs (issue 31's reads). */

const describeRun = (run: RunComparison['run']) =>
  `#${run.counter} (${code(run.id)}${run.branch ? `, branch ${code(run.branch)}` : ''}${run.commit ? `, commit ${code(run.commit.sha.slice(0, 10))}` : ''})`;

function renderComparison(comparison: RunComparison, budget: number): string {
  if (!comparison.base) {
    return `Run ${describeRun(comparison.run)} has no base to compare with: ${comparison.noBaseReason ?? 'none was found'}. Give base (a runId from list_runs) or baseBranch.`;
  }
  const lines = [
    `**Run ${describeRun(comparison.run)} compared with run ${describeRun(comparison.base)}**`,
    CATEGORY_LABELS.map(([key, one, many]) => count(comparison[key].count, one, many)).join(' · '),
    `Slower means passed in both and over ${comparison.thresholds.durationRatio}× the base's duration and ${duration(comparison.thresholds.durationFloorMs)} longer.`,
  ];
  for (const [key, , many] of CATEGORY_LABELS) {
    const category = comparison[key];
    if (category.count === 0) continue;
    lines.push('', `## ${many.charAt(0).toUpperCase()}${many.slice(1)} (${category.count})`);
    for (const item of category.items) {
      const name = oneLine(item.titlePath.length > 0 ? item.titlePath.join(' › ') : item.title);
      const platform = item.project ? ` [${oneLine(item.project)}]` : '';
      const durations =
        key === 'slower' ? `, ${duration(item.baseDurationMs)} → ${duration(item.durationMs)}` : '';
      const signature = item.signature
        ? `; error ${code(clip(item.signature.text, 200))} (signatureId ${code(item.signature.id)})`
        : '';
      lines.push(
        `- ${code(name)} in ${code(item.file)}${platform}${durations}; caseId ${code(item.testCaseId)}${signature}`,
      );
    }
    if (category.count > category.items.length)
      lines.push(`- … ${category.count - category.items.length} more (raise limit)`);
  }
  lines.push(
    '',
    'Next: get_failure_context with runId and a caseId shows a failure in depth; get_error_group with a signatureId shows where else that error struck.',
  );
  return fitLines(lines, budget, (omitted) => `… ${count(omitted, 'more line')}: raise budgetChars.`);
}

export const compareRuns = defineTool({
  name: 'compare_runs',
  title: 'Compare a run with its base',
  description:
    "Tell what changed between an automated test run and its base run: new failures (failed here, passed in the base), fixed, still failing, newly flaky, tests added and removed, and tests that got slower, each with counts and the tests (caseId, file, error signature). The base is the run given as base, else the latest finished run of baseBranch that started before this run, else the latest such run of the run's own base branch (the project's default branch, main unless set). A run with no base says so. Use it to answer 'is this failure mine or was it already failing?' and 'what changed since the last green build?'.",
  input: z
    .strictObject({
      runId: Id('The run to look at (list_runs)'),
      base: Id('The run id to compare with; default: the latest finished run of the base branch').optional(),
      baseBranch: z
        .string()
        .trim()
        .min(1)
        .max(500)
        .optional()
        .describe('Compare with the latest finished run of this branch that started before runId'),
      limit: Limit(20, 200, 'tests per category'),
      budgetChars: BudgetChars(8_000),
    })
    .superRefine((input, ctx) => {
      if (input.base !== undefined && input.baseBranch !== undefined)
        ctx.addIssue({ code: 'custom', path: ['baseBranch'], message: 'give base or baseBranch, not both' });
    }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const query: CompareQuery = { limit: input.limit };
    if (input.base) query.base = input.base;
    if (input.baseBranch) query.baseBranch = input.baseBranch;
    const comparison = await context.verdict.compareRuns(input.runId, query, callOf(context));
    return renderComparison(comparison, input.budgetChars);
  },
});

export const listErrors = defineTool({
  name: 'list_errors',
  title: 'List error groups',
  description:
    'List the errors of the automated tests across runs, grouped by error signature (the message with numbers, ids, paths, durations and ports normalised, plus the first stack frame in the project’s own code), as a table: signatureId, error, where it was thrown, failed attempts, tests and runs affected, branches, first and last seen. Sorted by occurrences unless told otherwise. Use it to find the errors that break the most tests, or whether an error is new; then call get_error_group with a signatureId.',
  input: z.strictObject({
    from: DayOrInstant('Only failures at or after this day or time (UTC); default 30 days ago').optional(),
    to: DayOrInstant('Only failures at or before this day (inclusive) or time (UTC); default now').optional(),
    branch: z.string().trim().min(1).max(500).optional().describe('Only failures on this git branch'),
    environment: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Only failures in this environment, e.g. "staging"'),
    search: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('Case-insensitive text in the error signature, a message or the stack frame'),
    sortBy: z
      .enum(['occurrences', 'tests', 'firstSeen', 'lastSeen'])
      .default('occurrences')
      .describe('occurrences (default), tests (tests affected), firstSeen or lastSeen; always descending'),
    page: Page,
    limit: Limit(20, 100, 'error groups'),
    budgetChars: BudgetChars(8_000),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const query: ErrorGroupsQuery = {
      page: input.page,
      limit: input.limit,
      sortBy: input.sortBy,
      sortOrder: 'desc',
    };
    if (input.from || input.to) {
      const end = input.to ? endOf(input.to) : new Date().toISOString();
      query.start_date = input.from
        ? startOf(input.from)
        : new Date(Date.parse(end) - 30 * 86_400_000).toISOString();
      query.end_date = end;
    }
    if (input.branch) query.branch = input.branch;
    if (input.environment) query.environment = input.environment;
    if (input.search) query.search = input.search;
    return renderErrorGroups(
      await context.verdict.listErrorGroups(query, callOf(context)),
      input.budgetChars,
    );
  },
});

export const getErrorGroup = defineTool({
  name: 'get_error_group',
  title: 'Get an error group',
  description:
    'Get one error group (failed attempts with the same error signature) in depth: its signature, the latest raw message, counts, the days it struck, the tests it hit (caseId, file, platform, occurrences) and the runs it hit, newest first (runId, branch, commit). Use it to tell a new error from a recurring one and to find the run where it started; signatureIds come from list_errors, compare_runs and get_failure_context.',
  input: z.strictObject({
    signatureId: z
      .string()
      .trim()
      .regex(/^[0-9a-f]{12}$/, { error: 'must be 12 hexadecimal characters (list_errors)' })
      .describe('The signature id: 12 hexadecimal characters (list_errors)'),
    from: DayOrInstant('Only failures at or after this day or time (UTC); default 30 days ago').optional(),
    to: DayOrInstant('Only failures at or before this day (inclusive) or time (UTC); default now').optional(),
    branch: z.string().trim().min(1).max(500).optional().describe('Only failures on this git branch'),
    environment: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Only failures in this environment, e.g. "staging"'),
    budgetChars: BudgetChars(8_000),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const query: Record<string, string> = {};
    if (input.from || input.to) {
      const end = input.to ? endOf(input.to) : new Date().toISOString();
      query.start_date = input.from
        ? startOf(input.from)
        : new Date(Date.parse(end) - 30 * 86_400_000).toISOString();
      query.end_date = end;
    }
    if (input.branch) query.branch = input.branch;
    if (input.environment) query.environment = input.environment;
    const group = await context.verdict.getErrorGroup(input.signatureId, query, callOf(context));
    return renderErrorGroup(group, input.budgetChars);
  },
});
