import { unwrap, type CreateQuarantineBody, type QuarantinesQuery, type RunFailure } from '@verdict/client';
import { z } from 'zod';
import { InputError } from '../errors';
import { renderGate, renderQuarantine, renderQuarantineList } from '../render/quarantine';
import { callOf, DayOrInstant, defineTool, endOf, Id, Limit, Page, type ToolContext } from './tool';

/** Quarantines and quality gates (issue 32): the reads, and the two writes members may make. */

const DAY_MS = 86_400_000;
/** The longest a quarantine may last: the API refuses an expiry further ahead. */
const MAX_DAYS = 90;

const Text = (max: number) => z.string().trim().min(1).max(max);

export const listQuarantine = defineTool({
  name: 'list_quarantine',
  title: 'List quarantined tests',
  description:
    "List the project's test quarantines, soonest expiry first: each quarantined test (caseId, file, platform), its owner, reason, expiry and the error signatures it forgives. A quarantined test still runs, but a failure with one of those signatures gets the verdict `quarantined` and does not fail the run's quality gate. Default: the active ones; status expired, lifted or all for the others; expiringWithinDays for those about to end.",
  input: z.strictObject({
    status: z
      .enum(['active', 'expired', 'lifted', 'all'])
      .default('active')
      .describe(
        'active (forgiving now; default), expired (reached their expiry), lifted (ended by a person or their release rule) or all',
      ),
    ownerId: Text(200).optional().describe('Only quarantines owned by this user id'),
    caseId: Text(200).optional().describe('Only quarantines of this test case'),
    expiringWithinDays: z
      .number()
      .int()
      .min(1)
      .max(MAX_DAYS)
      .optional()
      .describe('Only active quarantines that expire within this many days (1 to 90)'),
    page: Page,
    limit: Limit(20, 100, 'quarantines'),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const query: QuarantinesQuery = { status: input.status, page: input.page, limit: input.limit };
    if (input.ownerId) query.ownerId = input.ownerId;
    if (input.caseId) query.testCaseId = input.caseId;
    if (input.expiringWithinDays !== undefined) query.expiringWithinDays = input.expiringWithinDays;
    return renderQuarantineList(await context.verdict.listQuarantines(query, callOf(context)), input.status);
  },
});

/** The owner's user id: as given, or the member with that e-mail address. */
async function ownerIdOf(owner: string, context: ToolContext): Promise<string> {
  if (!owner.includes('@')) return owner;
  const members = unwrap(
    await context.verdict.api.GET('/{projectId}/members', {
      params: { path: { projectId: context.project }, query: { q: owner, limit: 100 } },
      ...callOf(context),
    }),
  ).data;
  const member = members.find((one) => one.email.toLowerCase() === owner.toLowerCase());
  if (!member) throw new InputError('ownerId', `no member of the project has the e-mail address ${owner}`);
  return member.userId;
}

export const quarantineTest = defineTool({
  name: 'quarantine_test',
  title: 'Quarantine a test',
  description:
    "Quarantine a flaky or known-broken automated test for a while, so that its known failures stop failing the quality gate: a failure with one of the quarantine's error signatures (default: those of the test's failures in the last 30 days) gets the verdict `quarantined`; a failure with any other error still counts. It needs a reason, an owner (the member who will fix the test or lift the quarantine) and an expiry at most 90 days ahead. Identify the test by caseId (get_run, get_failure_context, search_tests) or by file and titlePath. Refused when the test is quarantined already (list_quarantine shows it).",
  input: z
    .strictObject({
      caseId: Text(200).optional().describe('The test case id; or give file and titlePath'),
      file: Text(1000).optional().describe('The spec file of the test, with titlePath'),
      titlePath: z
        .array(Text(1000))
        .min(1)
        .max(50)
        .optional()
        .describe('The titles from the outermost describe to the test, with file'),
      platform: Text(200)
        .optional()
        .describe('Only on this platform (Playwright project, e.g. "chromium"); default: every platform'),
      reason: Text(1000).describe('Why, for the people who see it, e.g. "flaky: races the search debounce"'),
      ownerId: Text(200).describe(
        "The owner: the user id of a member of the project's organization (list_quarantine shows ownerIds), or their e-mail address",
      ),
      expiresAt: DayOrInstant(
        'When it ends: an RFC 3339 time (2026-03-01T12:00:00Z) or a day (its end, UTC), at most 90 days ahead; or give expiresInDays',
      ).optional(),
      expiresInDays: z
        .number()
        .int()
        .min(1)
        .max(MAX_DAYS)
        .optional()
        .describe('When it ends, in days from now (1 to 90); or give expiresAt'),
      signatures: z
        .array(z.string().regex(/^[0-9a-f]{12}$/, { error: 'must be 12 hexadecimal characters' }))
        .min(1)
        .max(50)
        .optional()
        .describe(
          "The error signature ids it forgives (signatureId, from get_failure_context or list_errors); default: those of the test's failures in the last 30 days",
        ),
      releaseRule: z
        .strictObject({
          cleanRuns: z
            .number()
            .int()
            .min(1)
            .max(100)
            .describe(
              'Lifted by itself after this many clean runs of the test in a row on the default branch (1 to 100)',
            ),
        })
        .optional()
        .describe('Lift it before its expiry once the test is healthy again'),
    })
    .superRefine((input, ctx) => {
      if (input.caseId !== undefined && (input.file !== undefined || input.titlePath !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: ['caseId'],
          message: 'give caseId or file and titlePath, not both',
        });
      } else if (input.caseId === undefined && (input.file === undefined || input.titlePath === undefined)) {
        const missing = input.file === undefined ? 'file' : 'titlePath';
        ctx.addIssue({ code: 'custom', path: [missing], message: 'give caseId, or file and titlePath' });
      }
      if ((input.expiresAt === undefined) === (input.expiresInDays === undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: ['expiresAt'],
          message: 'give expiresAt or expiresInDays (one of them)',
        });
      }
    }),
  writes: true,
  idempotent: false,
  async run(input, context) {
    const body: CreateQuarantineBody = {
      reason: input.reason,
      ownerId: await ownerIdOf(input.ownerId, context),
      expiresAt:
        input.expiresAt !== undefined
          ? endOf(input.expiresAt)
          : new Date(Date.now() + (input.expiresInDays ?? MAX_DAYS) * DAY_MS).toISOString(),
    };
    if (input.caseId !== undefined) body.testCaseId = input.caseId;
    else {
      body.file = input.file;
      body.titlePath = input.titlePath;
    }
    if (input.platform !== undefined) body.project = input.platform;
    if (input.signatures) body.signatures = input.signatures;
    if (input.releaseRule) body.releaseRule = input.releaseRule;
    const quarantine = await context.verdict.quarantineTest(body, callOf(context));
    return `${renderQuarantine(quarantine, 'Quarantined')}\n\nlift_quarantine with quarantineId=${quarantine.id} ends it early.`;
  },
});

export const liftQuarantine = defineTool({
  name: 'lift_quarantine',
  title: 'Lift a quarantine',
  description:
    "End an active quarantine (list_quarantine gives its id), e.g. once the test is fixed: the test's failures count again in the quality gate of the runs that follow. Refused for a quarantine that has ended already (lifted or expired).",
  input: z.strictObject({
    quarantineId: Id('The quarantine id, as list_quarantine shows it'),
    reason: Text(1000).optional().describe('Why it ends, e.g. "fixed in #123"'),
  }),
  writes: true,
  idempotent: true,
  async run(input, context) {
    const quarantine = await context.verdict.liftQuarantine(
      input.quarantineId,
      input.reason,
      callOf(context),
    );
    return renderQuarantine(quarantine, 'Lifted the quarantine of');
  },
});

/** The run's failures by test and platform, to name the tests a gate lists; empty when they cannot be read. */
async function failingTests(runId: string, context: ToolContext): Promise<Map<string, RunFailure>> {
  try {
    const run = await context.verdict.getRun(runId, { include: 'failures' }, callOf(context));
    return new Map(
      (run.failures?.items ?? []).map((item) => [`${item.testCaseId}\u0000${item.project ?? ''}`, item]),
    );
  } catch {
    return new Map();
  }
}

export const getGate = defineTool({
  name: 'get_gate',
  title: "Get a run's quality gate",
  description:
    "Get the quality gate of an automated test run: pending (the run has not finished), none (the project had no gate rules when it finished), passed or failed. Each rule (maxFailedTests, minPassRate, noNewFailures, maxFlakyRate, minTestCount, requiredProjects, maxDurationMs) comes with its threshold, what the run showed and whether it passed, and a broken rule with the failing tests that broke it (caseId, verdict, signatureId). Quarantined failures never count. Use it to answer 'may this build ship?'.",
  input: z.strictObject({
    runId: Id('The run id, as list_runs shows it'),
  }),
  writes: false,
  idempotent: true,
  async run(input, context) {
    const gate = await context.verdict.getRunGate(input.runId, callOf(context));
    const named = gate.rules.some((rule) => rule.failures.length > 0);
    return renderGate(gate, named ? await failingTests(input.runId, context) : new Map());
  },
});
