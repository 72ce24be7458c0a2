import type { DebugBundle, RunFailures } from '@verdict/client';
import { z } from 'zod';
import { renderFailures, type FailingTest } from '../render/failures';
import { code, count } from '../render/markdown';
import { BudgetChars, callOf, defineTool, Id, type ToolContext } from './tool';

type BundleData = DebugBundle['data'];
type RunBundle = Extract<BundleData, { scope: 'run' }>;
type SuiteBundle = Extract<BundleData, { scope: 'suite' }>;

/** The API's largest page of a run or suite bundle. */
const PAGE_LIMIT = 50;
/** Pages read at most: 1,000 failing tests, already far more than any budget names with detail. */
const MAX_PAGES = 20;

/** Every failing test of a run (or of one spec file in it), page after page, up to MAX_PAGES pages. */
async function failingTests(
  context: ToolContext,
  query: { runId: string; suiteId?: string },
): Promise<{ first: RunBundle | SuiteBundle; tests: FailingTest[]; total: number }> {
  const tests: FailingTest[] = [];
  let first: RunBundle | SuiteBundle | undefined;
  let total = 0;
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const answer = await context.verdict.debugBundle({ ...query, page, limit: PAGE_LIMIT }, callOf(context));
    const bundle = answer.data as RunBundle | SuiteBundle;
    first ??= bundle;
    tests.push(...bundle.items);
    total = answer.pagination?.total ?? tests.length;
    if (!answer.pagination?.hasNext) break;
  }
  return { first: first!, tests, total };
}

/**
 * The run's failures with their verdicts and signatures (include=failures), keyed by test and platform;
 * null, with the reason, when Verdict cannot give them: the failing tests are then listed without.
 */
async function verdictsOf(
  context: ToolContext,
  runId: string,
): Promise<{ failures: RunFailures | null; problem: string | null }> {
  try {
    const run = await context.verdict.getRun(runId, { include: 'failures' }, callOf(context));
    return run.failures
      ? { failures: run.failures, problem: null }
      : { failures: null, problem: 'this Verdict gives no verdicts' };
  } catch (error) {
    return { failures: null, problem: (error as Error).message };
  }
}

/** The failing tests with the verdict and signature of each failed one. */
function withVerdicts(tests: FailingTest[], failures: RunFailures | null): FailingTest[] {
  if (!failures) return tests;
  const key = (caseId: string, project: string | null) => `${caseId}\u0000${project ?? ''}`;
  const byTest = new Map(failures.items.map((item) => [key(item.testCaseId, item.project), item]));
  return tests.map((test) => {
    const failure = byTest.get(key(test.caseId, test.project));
    if (!failure) return test;
    return {
      ...test,
      verdict: failure.verdict,
      ...(failure.signature ? { signatureId: failure.signature.id } : {}),
    };
  });
}

/** One line on the verdicts: how many failures are new against which base. */
function verdictLine({
  failures,
  problem,
}: {
  failures: RunFailures | null;
  problem: string | null;
}): string {
  if (!failures) return `Verdicts per failure: not available (${problem ?? 'unknown'}).`;
  const { counts } = failures;
  const base = failures.baseRunId ? `run ${code(failures.baseRunId)}` : 'no finished run yet';
  return `Verdicts against base branch ${code(failures.baseBranch)} (${base}): ${counts.new} new, ${counts.failingOnBase} failing on base, ${counts.knownFlaky} known flaky, ${counts.quarantined} quarantined. compare_runs tells what changed since the base.`;
}

function onBranch(environment: RunBundle['environment']): string {
  const branch = environment.branch ? ` on branch ${code(environment.branch)}` : '';
  const commit = environment.commit ? ` at ${code(environment.commit.sha.slice(0, 12))}` : '';
  return `${branch}${commit}`;
}

const DRILL_DOWN = (runId: string) => [
  `Next: get_failure_context with caseId and runId=${runId} gives one test's full error, stack, failure window, steps, stdout/stderr, other attempts and artifact links.`,
  'get_test_history with the caseId tells a new failure from a recurring or flaky one.',
];

async function runScope(context: ToolContext, runId: string, budget: number): Promise<string> {
  const [{ first, tests: listed, total }, verdicts] = await Promise.all([
    failingTests(context, { runId }),
    verdictsOf(context, runId),
  ]);
  const tests = withVerdicts(listed, verdicts.failures);
  const bundle = first as RunBundle;
  const stats = bundle.meta.stats;
  const headline = [
    `**Run ${code(runId)} ${bundle.runStatus}**: ${stats.failed} failed, ${stats.flaky} flaky of ${stats.total} tests (${stats.passed} passed, ${stats.skipped} skipped)${onBranch(bundle.environment)}.`,
    `Failing spec files: ${bundle.suites.length === 0 ? 'none' : bundle.suites.map((suite) => `${code(suite.file)} (${suite.stats.failed} failed, ${suite.stats.flaky} flaky)`).join(', ')}.`,
    verdictLine(verdicts),
    `Open in Verdict: ${bundle.links.uiUrl}`,
  ].join('\n');
  return renderFailures(
    { headline, tests, notFetched: total - tests.length, next: DRILL_DOWN(runId) },
    budget,
  );
}

async function suiteScope(
  context: ToolContext,
  runId: string,
  suiteId: string,
  budget: number,
): Promise<string> {
  const [{ first, tests: listed, total }, verdicts] = await Promise.all([
    failingTests(context, { runId, suiteId }),
    verdictsOf(context, runId),
  ]);
  const tests = withVerdicts(listed, verdicts.failures);
  const bundle = first as SuiteBundle;
  const stats = bundle.spec.stats;
  const headline = [
    `**Spec file ${code(bundle.spec.file)} ${bundle.suiteStatus}** in run ${code(runId)}: ${stats.failed} failed, ${stats.flaky} flaky of ${count(stats.total, 'test')}${onBranch(bundle.environment)}.`,
    `Rerun the file: ${code(bundle.links.retryCommand)}`,
    `Open in Verdict: ${bundle.links.uiUrl}`,
  ].join('\n');
  return renderFailures(
    { headline, tests, notFetched: total - tests.length, next: DRILL_DOWN(runId) },
    budget,
  );
}

export const getFailureContext = defineTool({
  name: 'get_failure_context',
  title: 'Get failure context (debug bundle)',
  description: [
    'Get what is needed to debug failing automated tests, as Markdown cut to budgetChars. Each failed test carries its verdict against the base branch (new, failing-on-base, known-flaky, quarantined) and its error signatureId. Three scopes:',
    '- runId alone: every failing test of the run (failed = every attempt failed; flaky = failed, then passed on a retry), grouped by error message, each with its file, platform and caseId. Every failing test is named even under a small budget.',
    '- runId + suiteId (a spec file path of the run): the same for one spec file.',
    '- caseId (runId optional; default: the latest run of that test): one test in depth: full error and stack, source snippet, the steps around the failure, the step tree, stdout/stderr, the other attempts, artifact links (screenshots, videos, traces) and the command that reruns it locally.',
    'Get caseIds from get_run, this tool at run scope, or search_tests.',
  ].join('\n'),
  input: z
    .strictObject({
      runId: Id('The run id (list_runs). Required unless caseId is given').optional(),
      suiteId: Id('A spec file path of the run, e.g. "tests/login.spec.ts"; needs runId').optional(),
      caseId: Id('A test case id (get_run, search_tests): one test in depth').optional(),
      attempt: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('With caseId: the 0-based attempt (retry) to show; default the latest'),
      platform: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .optional()
        .describe(
          'With caseId: the platform (e.g. Playwright project "chromium") whose attempts to show; default the one where it went worst',
        ),
      budgetChars: BudgetChars(8_000),
    })
    .superRefine((input, ctx) => {
      if (input.runId === undefined && input.caseId === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['runId'],
          message: 'give runId (a run), runId and suiteId (a spec file), or caseId (a test)',
        });
      }
      if (input.suiteId !== undefined && input.runId === undefined) {
        ctx.addIssue({ code: 'custom', path: ['suiteId'], message: 'needs runId' });
      }
      if (input.suiteId !== undefined && input.caseId !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['suiteId'], message: 'give suiteId or caseId, not both' });
      }
      for (const field of ['attempt', 'platform'] as const) {
        if (input[field] !== undefined && input.caseId === undefined) {
          ctx.addIssue({ code: 'custom', path: [field], message: 'needs caseId' });
        }
      }
    }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    if (input.caseId !== undefined) {
      return context.verdict.debugBundleMarkdown(
        {
          caseId: input.caseId,
          ...(input.runId ? { runId: input.runId } : {}),
          ...(input.attempt !== undefined ? { attempt: input.attempt } : {}),
          ...(input.platform ? { project: input.platform } : {}),
          budgetChars: input.budgetChars,
        },
        callOf(context),
      );
    }
    const runId = input.runId as string;
    return input.suiteId !== undefined
      ? suiteScope(context, runId, input.suiteId, input.budgetChars)
      : runScope(context, runId, input.budgetChars);
  },
});
