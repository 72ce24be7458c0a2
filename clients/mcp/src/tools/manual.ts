import { MANUAL_CASE_VALUES, RUN_CASE_RESULTS, unwrap } from '@verdict/client';
import { z } from 'zod';
import { count } from '../render/markdown';
import { renderManualCase, renderManualCaseList, renderManualRun, renderRunCase } from '../render/manual';
import type {
  CreateManualCaseBody,
  ManualCase,
  ManualCasesQuery,
  ManualRun,
  UpdateRunCaseBody,
} from '../types';
import { BudgetChars, dataOf, defineTool, Id, Limit, Page, TextList, type ToolContext } from './tool';

const signalOf = (context: ToolContext) => (context.signal ? { signal: context.signal } : {});

// The value sets as the API declares them (generated into @verdict/client from the OpenAPI document).
const CaseStatus = z.enum(MANUAL_CASE_VALUES.status);
const Priority = z.enum(MANUAL_CASE_VALUES.priority);
const Severity = z.enum(MANUAL_CASE_VALUES.severity);
const CaseType = z.enum(MANUAL_CASE_VALUES.type);
const Layer = z.enum(MANUAL_CASE_VALUES.layer);
const Behavior = z.enum(MANUAL_CASE_VALUES.behavior);
const AutomationStatus = z.enum(MANUAL_CASE_VALUES.automationStatus);
const RunCaseResult = z.enum(RUN_CASE_RESULTS);

export const listManualCases = defineTool({
  name: 'list_manual_cases',
  title: 'List manual test cases',
  description:
    "List the manual test cases of the project (test management: cases written for people to run, with steps and expected results; each has a key like TC-12). Filter by text, status, priority, severity, type, automation status, suite or tag. Answers a table with each case's key, title and classification; get_manual_case shows one case's steps.",
  input: z.strictObject({
    search: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('Text in the title, description or key (TC-12)'),
    status: CaseStatus.optional().describe('Only cases in this state: active, draft or deprecated'),
    priority: Priority.optional().describe('Only cases of this priority'),
    severity: Severity.optional().describe('Only cases of this severity'),
    type: CaseType.optional().describe('Only cases of this type, e.g. smoke or regression'),
    automationStatus: AutomationStatus.optional().describe('manual, automated, or to_be_automated'),
    suiteId: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .optional()
      .describe('Only cases of this suite (its _id); "null" for cases in no suite'),
    tags: TextList('Only cases having any of these tags').optional(),
    page: Page,
    limit: Limit(20, 100, 'cases'),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const { page, limit, tags, ...filters } = input;
    const query: ManualCasesQuery = { page, limit, ...filters, ...(tags ? { tags: tags.join(',') } : {}) };
    const answer = unwrap(
      await context.verdict.api.GET('/{projectId}/manual-tests', {
        params: { path: { projectId: context.project }, query },
        ...signalOf(context),
      }),
    );
    return renderManualCaseList(answer.data, answer.pagination);
  },
});

export async function readManualCase(
  context: ToolContext,
  caseId: string,
  project?: string,
): Promise<ManualCase> {
  return dataOf(
    await context.verdict.api.GET('/{projectId}/manual-test-cases/{caseId}', {
      params: { path: { projectId: project ?? context.project, caseId } },
      ...signalOf(context),
    }),
  );
}

export const getManualCase = defineTool({
  name: 'get_manual_case',
  title: 'Get a manual test case',
  description:
    'Get one manual test case in full: classification, description, preconditions, the steps with their expected results, postconditions, tags, linked automated tests, attachments, latest comments and linked issues.',
  input: z.strictObject({
    caseId: Id('The case key (TC-12) or its _id'),
    budgetChars: BudgetChars(8_000),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    return renderManualCase(await readManualCase(context, input.caseId), input.budgetChars);
  },
});

export async function readManualRun(
  context: ToolContext,
  runId: string,
  project?: string,
): Promise<ManualRun> {
  return dataOf(
    await context.verdict.api.GET('/{projectId}/manual-runs/{runId}', {
      params: { path: { projectId: project ?? context.project, runId } },
      ...signalOf(context),
    }),
  );
}

export const getManualRun = defineTool({
  name: 'get_manual_run',
  title: 'Get a manual test run',
  description:
    'Get a manual test run (a set of manual test cases to execute, with a key like RUN-3): its status, release, progress (passed, failed, blocked, skipped, retest, untested) and a page of its cases with their current result, assignee and time spent. Filter the cases by result, e.g. "untested" to see what is left.',
  input: z.strictObject({
    runId: Id('The run key (RUN-3) or its _id'),
    result: RunCaseResult.optional().describe('Only cases whose current result is this one'),
    page: Page,
    limit: Limit(50, 200, 'cases'),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const run = await readManualRun(context, input.runId);
    return renderManualRun(run, {
      page: input.page,
      limit: input.limit,
      ...(input.result ? { result: input.result } : {}),
    });
  },
});

export const recordManualResult = defineTool({
  name: 'record_manual_result',
  title: 'Record a manual test result',
  description:
    "Record the result of one case in a manual test run: passed, failed, blocked, skipped, retest or untested, with the time spent and an optional comment and linked issue keys (e.g. a ticket for a failure). The previous result stays in the case's history. Identify the case by its key (TC-12) or by the run case id get_manual_run shows.",
  input: z.strictObject({
    runId: Id('The run key (RUN-3) or its _id'),
    caseId: Id('The case key (TC-12), the case _id, or the run case id from get_manual_run'),
    result: RunCaseResult.describe(
      'The verdict: passed, failed, blocked, skipped, retest (run it again) or untested',
    ),
    elapsedSeconds: z
      .number()
      .min(0)
      .max(10_000_000)
      .optional()
      .describe('Time spent on the case, in seconds'),
    comment: z
      .string()
      .trim()
      .min(1)
      .max(100_000)
      .optional()
      .describe('A note on the result (HTML or plain text)'),
    issues: z
      .array(z.string().trim().min(1).max(200))
      .min(1)
      .max(50)
      .optional()
      .describe('Issue-tracker keys to link, e.g. ["SHOP-123"]'),
  }),
  writes: true,
  idempotent: true,
  async run(input, context) {
    const path = { projectId: context.project, runId: input.runId, runCaseId: input.caseId };
    const patch = async (body: UpdateRunCaseBody) =>
      dataOf(
        await context.verdict.api.PATCH('/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}', {
          params: { path },
          body,
          ...signalOf(context),
        }),
      );
    // The API takes a verdict and a detailed result (comment, issues) as two modes of separate requests.
    let runCase = await patch({
      result: input.result,
      ...(input.elapsedSeconds !== undefined ? { elapsed: input.elapsedSeconds } : {}),
    });
    if (input.comment !== undefined || input.issues !== undefined) {
      runCase = await patch({
        ...(input.comment !== undefined ? { comment: input.comment } : {}),
        ...(input.issues ? { linkedIssues: input.issues.map((key) => ({ key })) } : {}),
      });
    }
    return renderRunCase(runCase, input.runId);
  },
});

const Step = z.union([
  z.string().trim().min(1).max(50_000),
  z.strictObject({
    action: z.string().trim().min(1).max(50_000).describe('What the tester does'),
    data: z.string().max(50_000).optional().describe('Test data for the step'),
    expectedResult: z.string().max(50_000).optional().describe('What the tester should see'),
  }),
]);

export const createManualCase = defineTool({
  name: 'create_manual_case',
  title: 'Create a manual test case',
  description:
    'Create a manual test case (for people to run): a title, and optionally a description, preconditions, steps (each an action with its data and expected result, or plain text), postconditions, classification, tags and suite. Answers its new key (TC-n). Do not create a case that exists already: search with list_manual_cases first.',
  input: z.strictObject({
    title: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .describe('What the case checks, e.g. "Checkout refuses an expired card"'),
    description: z.string().max(50_000).optional().describe('What the case is about and why'),
    preconditions: z.string().max(50_000).optional().describe('What must hold before the first step'),
    steps: z
      .array(Step)
      .min(1)
      .max(100)
      .optional()
      .describe(
        'The steps in order: objects {action, data?, expectedResult?} or plain strings (Gherkin lines with stepFormat "Gherkin")',
      ),
    stepFormat: z
      .enum(['Classic', 'Gherkin'])
      .default('Classic')
      .describe('Classic (action, data, expected result) or Gherkin (Given/When/Then lines)'),
    postconditions: z.string().max(50_000).optional().describe('The state to leave the system in afterwards'),
    status: CaseStatus.optional().describe('Default active'),
    priority: Priority.optional().describe('Default not_set'),
    severity: Severity.optional().describe('Default not_set'),
    type: CaseType.optional().describe('What kind of test it is, e.g. functional or regression'),
    layer: Layer.optional().describe('The layer it tests: e2e, api or unit'),
    behavior: Behavior.optional().describe('positive, negative or destructive'),
    automationStatus: AutomationStatus.optional().describe(
      'Default manual; to_be_automated flags it for automation',
    ),
    tags: z
      .array(z.string().trim().min(1).max(100))
      .max(100)
      .optional()
      .describe('Labels, e.g. ["payments"]'),
    suiteId: z.string().trim().min(1).max(64).optional().describe('The _id of the suite to put it in'),
  }),
  writes: true,
  idempotent: false,
  async run(input, context) {
    const { steps, ...fields } = input;
    const body: CreateManualCaseBody = {
      ...fields,
      ...(steps
        ? {
            steps: steps.map((step) =>
              typeof step === 'string' && input.stepFormat === 'Gherkin' ? { text: step } : step,
            ),
          }
        : {}),
    };
    const created = dataOf(
      await context.verdict.api.POST('/{projectId}/manual-test-cases', {
        params: { path: { projectId: context.project } },
        body,
        ...signalOf(context),
      }),
    );
    return `Created ${created.caseId} ${JSON.stringify(created.title)} (_id ${created._id})${created.metadata.suite ? ` in suite ${JSON.stringify(created.metadata.suite.name)}` : ''}, status ${created.classification.status}, ${count(created.steps.classic.length + created.steps.gherkin.length, 'step')}.`;
  },
});
