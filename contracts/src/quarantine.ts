/**
 * Quarantine and quality gates over HTTP (issue 32): the bodies, queries and answers of the quarantine
 * list and its writes, of a project's gate rules and of a run's gate. The events are quarantineEvents.ts
 * and gates.ts.
 */
import { z } from 'zod';
import { listEnvelope, successEnvelope } from './envelope';
import { queryInteger } from './http';
import { InstantInput } from './instant';
import { GateRuleResult, GateRules } from './gates';
import { MAX_QUARANTINE_DAYS, QuarantineEvidence, QuarantinePolicy, ReleaseRule } from './quarantineEvents';

const Timestamp = z.string().describe('RFC 3339, UTC');
const SignatureId = z
  .string()
  .regex(/^[0-9a-f]{12}$/, 'must be an error signature id (12 hexadecimal characters)');
/** RFC 3339 §5.6 allows a lower-case "t" and "z": read as upper case, the only letters a timestamp has. */
const Rfc3339 = z.preprocess(
  (value) => (typeof value === 'string' ? value.toUpperCase() : value),
  InstantInput,
);

export const QUARANTINE_STATUSES = ['active', 'expired', 'lifted'] as const;
export const QuarantineStatus = z.enum(QUARANTINE_STATUSES);
export type QuarantineStatus = z.infer<typeof QuarantineStatus>;

export const QuarantinePath = z.object({ projectId: z.string().min(1), quarantineId: z.string().min(1) });

export const Quarantine = z.object({
  id: z.string(),
  projectId: z.string(),
  testCaseId: z.string(),
  file: z.string(),
  titlePath: z.array(z.string()),
  title: z.string(),
  project: z.string().nullable().describe('The Playwright project it covers; null: every platform'),
  reason: z.string(),
  ownerId: z.string().describe('The member who owns it: the one to fix the test or lift it'),
  expiresAt: Timestamp,
  status: QuarantineStatus.describe(
    'active: forgives its signatures until expiresAt; expired: reached its expiry; lifted: ended by a person or its release rule',
  ),
  automatic: z.boolean().describe("Made by the project's auto-quarantine policy"),
  releaseRule: ReleaseRule.nullable(),
  evidence: QuarantineEvidence.describe(
    'What the decision was made on: the signatures it forgives, and the flaky and fail rates and runs seen then',
  ),
  createdBy: z.string(),
  createdAt: Timestamp,
  endedAt: Timestamp.nullable(),
  endedBy: z.string().nullable(),
  endReason: z.string().nullable(),
});
export type Quarantine = z.infer<typeof Quarantine>;

export const QuarantineListQuery = z.strictObject({
  page: queryInteger({ min: 1, fallback: 1 }),
  limit: queryInteger({ min: 1, max: 1_000, fallback: 20 }),
  status: z
    .enum([...QUARANTINE_STATUSES, 'all'])
    .default('active')
    .describe('Default: active (those forgiving right now)'),
  ownerId: z.string().min(1).max(200).optional(),
  testCaseId: z.string().min(1).max(200).optional(),
  expiringWithinDays: z
    .string()
    .regex(/^[0-9]+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_QUARANTINE_DAYS))
    .optional()
    .meta({ type: 'integer', minimum: 1, maximum: MAX_QUARANTINE_DAYS, pattern: undefined })
    .describe('Only active quarantines that expire within this many days'),
});
export type QuarantineListQuery = z.infer<typeof QuarantineListQuery>;

export const CreateQuarantineRequest = z
  .strictObject({
    testCaseId: z.string().min(1).max(200).optional().describe('The test case; or file and titlePath'),
    file: z.string().min(1).max(1_000).optional(),
    titlePath: z.array(z.string().min(1).max(1_000)).min(1).max(50).optional(),
    project: z
      .string()
      .min(1)
      .max(200)
      .nullable()
      .optional()
      .describe('Only this Playwright project (platform); absent or null: every platform'),
    reason: z.string().trim().min(1).max(1_000),
    ownerId: z.string().min(1).max(200).describe('A member of the project'),
    expiresAt: Rfc3339.describe(`In the future, at most ${MAX_QUARANTINE_DAYS} days ahead`),
    signatures: z
      .array(SignatureId)
      .min(1)
      .max(50)
      .optional()
      .describe(
        "The error signatures it forgives; default: those of the test's failures in the last 30 days",
      ),
    releaseRule: ReleaseRule.nullable().optional(),
  })
  .superRefine((body, ctx) => {
    const byId = body.testCaseId !== undefined;
    const byTitle = body.file !== undefined || body.titlePath !== undefined;
    if (byId === byTitle) {
      ctx.addIssue({ code: 'custom', message: 'name the test by testCaseId, or by file and titlePath' });
    } else if (byTitle && (body.file === undefined || body.titlePath === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'file and titlePath go together' });
    }
  });
export type CreateQuarantineRequest = z.infer<typeof CreateQuarantineRequest>;

export const ExtendQuarantineRequest = z.strictObject({
  expiresAt: Rfc3339.describe(`Later than the current expiry, at most ${MAX_QUARANTINE_DAYS} days ahead`),
});
export type ExtendQuarantineRequest = z.infer<typeof ExtendQuarantineRequest>;

export const LiftQuarantineRequest = z.strictObject({
  reason: z.string().trim().max(1_000).optional().describe('Why it ends (e.g. "fixed in #123")'),
});
export type LiftQuarantineRequest = z.infer<typeof LiftQuarantineRequest>;

/** A test quarantined now, as a reporter enforces it: which failures of it are forgiven. */
export const QuarantinedTest = z.object({
  quarantineId: z.string(),
  testCaseId: z.string(),
  project: z.string().nullable().describe('The Playwright project it covers; null: every platform'),
  ownerId: z.string(),
  expiresAt: Timestamp,
  signatureIds: z.array(z.string()).describe('The error signatures it forgives'),
});
export type QuarantinedTest = z.infer<typeof QuarantinedTest>;

export const QuarantinedTests = z.object({
  at: Timestamp.describe('The time the list holds for: a quarantine expiring later is in it'),
  items: z.array(QuarantinedTest),
});
export type QuarantinedTests = z.infer<typeof QuarantinedTests>;

export const QuarantineResponse = successEnvelope(Quarantine);
export const QuarantinedTestsResponse = successEnvelope(QuarantinedTests);
export const QuarantineListResponse = listEnvelope(Quarantine);

// ---------------------------------------------------------------------------------------------------------
// Gate rules and a run's gate

export const GateRulesDocument = z.object({
  rules: GateRules,
  updatedAt: Timestamp.nullable(),
  updatedBy: z.string().nullable(),
});
export type GateRulesDocument = z.infer<typeof GateRulesDocument>;

export const RunGateStatus = z
  .enum(['pending', 'none', 'passed', 'failed'])
  .describe(
    'pending: the run has not finished (all its shards); none: it finished while the project had no gate rules; passed or failed: each rule judged when it finished',
  );
export type RunGateStatus = z.infer<typeof RunGateStatus>;

export const RunGate = z.object({
  runId: z.string(),
  status: RunGateStatus,
  evaluatedAt: Timestamp.nullable(),
  rules: z.array(GateRuleResult),
});
export type RunGate = z.infer<typeof RunGate>;

export const GateRulesResponse = successEnvelope(GateRulesDocument);
export const RunGateResponse = successEnvelope(RunGate);

export const QuarantinePolicyDocument = z.object({
  policy: QuarantinePolicy.nullable().describe('null: never set (off)'),
  updatedAt: Timestamp.nullable(),
  updatedBy: z.string().nullable(),
});
export type QuarantinePolicyDocument = z.infer<typeof QuarantinePolicyDocument>;
export const QuarantinePolicyResponse = successEnvelope(QuarantinePolicyDocument);
