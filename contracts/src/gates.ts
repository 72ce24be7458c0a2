/**
 * Quality gates (issue 32): a project's rules, judged once when a run finishes (after its last shard).
 * Quarantined failures (verdict `quarantined`) never count against a rule.
 */
import { z } from 'zod';
import { defineEvent } from './events';

const Timestamp = z.iso.datetime({ offset: true });

/** A project's gate rules; an absent rule is not judged. At least one rule makes a gate. */
export const GateRules = z
  .object({
    maxFailedTests: z.number().int().min(0).optional().describe('At most this many failed tests'),
    minPassRate: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('At least this share of the tests that ran (not skipped) passed, flaky or quarantined'),
    noNewFailures: z.boolean().optional().describe('No failure with the verdict `new`'),
    maxFlakyRate: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe('At most this share of the tests that ran was flaky'),
    minTestCount: z.number().int().min(0).optional().describe('At least this many tests ran (not skipped)'),
    requiredProjects: z
      .array(z.string().min(1))
      .optional()
      .describe('Playwright projects (platforms) that must have run at least one test'),
    maxDurationMs: z.number().int().min(0).optional().describe("The run's wall-clock duration at most"),
  })
  .strict();
export type GateRules = z.infer<typeof GateRules>;

export const GATE_RULES = [
  'maxFailedTests',
  'minPassRate',
  'noNewFailures',
  'maxFlakyRate',
  'minTestCount',
  'requiredProjects',
  'maxDurationMs',
] as const;
export type GateRuleName = (typeof GATE_RULES)[number];

/** A failure that broke a rule. */
export const GateFailure = z.object({
  testCaseId: z.string(),
  project: z.string().nullable(),
  verdict: z.string(),
  /** The error signature it failed with: a quarantined test failing otherwise is named with its new one. */
  signatureId: z.string().nullable(),
});
export type GateFailure = z.infer<typeof GateFailure>;

export const GateRuleResult = z.object({
  rule: z.enum(GATE_RULES),
  passed: z.boolean(),
  threshold: z.union([z.number(), z.boolean(), z.array(z.string())]),
  observed: z.union([z.number(), z.boolean(), z.array(z.string())]),
  /** The failures that count against the rule (maxFailedTests, noNewFailures), at most 20. */
  failures: z.array(GateFailure),
});
export type GateRuleResult = z.infer<typeof GateRuleResult>;

export const GateResult = z.object({
  status: z.enum(['passed', 'failed']),
  rules: z.array(GateRuleResult),
});
export type GateResult = z.infer<typeof GateResult>;

/** A finished run's gate, recorded on run.finished: the result and when it was judged. */
export const RunGateRecord = GateResult.extend({ evaluatedAt: Timestamp });
export type RunGateRecord = z.infer<typeof RunGateRecord>;

/** A project's gate rules were set (an empty set removes the gate). Stream `gate-rules-<projectId>`. */
export const GateRulesChanged = defineEvent(
  'gate.rules-changed',
  1,
  z.object({ projectId: z.string(), rules: GateRules, by: z.string(), at: Timestamp }),
);
