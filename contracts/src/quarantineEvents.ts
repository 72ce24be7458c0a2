/**
 * Quarantine (issue 32): a test case taken out of the build's verdict for a while, by someone, for the
 * failures it was quarantined for. Its events, on the stream `quarantine-<id>` of test-results.
 *
 * A quarantine forgives only the error signatures of its evidence: a failure with another signature is a
 * failure as usual (the verdict `new`), so a real regression in a quarantined test is not masked.
 */
import { z } from 'zod';
import { defineEvent, type EventOf } from './events';

const Timestamp = z.iso.datetime({ offset: true });

/** The longest a quarantine lasts before it must be extended: a quarantine is never forever. */
export const MAX_QUARANTINE_DAYS = 90;
/** The window whose failures make a new quarantine's default evidence. */
export const QUARANTINE_EVIDENCE_DAYS = 30;

/** The test a quarantine covers: its case (file and title path), on one platform or on all (null). */
export const QuarantineTarget = z.object({
  testCaseId: z.string().min(1),
  file: z.string().min(1),
  titlePath: z.array(z.string()).min(1),
  project: z.string().min(1).nullable(),
});
export type QuarantineTarget = z.infer<typeof QuarantineTarget>;

/** An error signature a quarantine forgives, with the failures seen with it when it was chosen. */
export const ForgivenSignature = z.object({
  id: z.string().regex(/^[0-9a-f]{12}$/),
  text: z.string(),
  occurrences: z.number().int().min(0),
});
export type ForgivenSignature = z.infer<typeof ForgivenSignature>;

/** What the decision was made on: the signatures it forgives and the test's record at that moment. */
export const QuarantineEvidence = z.object({
  signatures: z.array(ForgivenSignature).min(1),
  flakyRate: z.number().min(0).max(1),
  failRate: z.number().min(0).max(1),
  runsSeen: z.number().int().min(0),
});
export type QuarantineEvidence = z.infer<typeof QuarantineEvidence>;

/** Lifted by itself after this many clean runs in a row on the default branch. */
export const ReleaseRule = z.object({ cleanRuns: z.number().int().min(1).max(100) });
export type ReleaseRule = z.infer<typeof ReleaseRule>;

export const TestQuarantined = defineEvent(
  'test.quarantined',
  1,
  z.object({
    quarantineId: z.string(),
    projectId: z.string(),
    target: QuarantineTarget,
    reason: z.string().min(1),
    ownerId: z.string(),
    expiresAt: Timestamp,
    evidence: QuarantineEvidence,
    releaseRule: ReleaseRule.nullable(),
    /** True when the project's auto-quarantine policy made it, false when a person did. */
    automatic: z.boolean(),
    by: z.string(),
    at: Timestamp,
  }),
);

export const TestQuarantineExtended = defineEvent(
  'test.quarantine-extended',
  1,
  z.object({ quarantineId: z.string(), expiresAt: Timestamp, by: z.string(), at: Timestamp }),
);

export const TestQuarantineSignaturesChanged = defineEvent(
  'test.quarantine-signatures-changed',
  1,
  z.object({
    quarantineId: z.string(),
    signatures: z.array(ForgivenSignature).min(1),
    by: z.string(),
    at: Timestamp,
  }),
);

export const TestQuarantineLifted = defineEvent(
  'test.quarantine-lifted',
  1,
  z.object({
    quarantineId: z.string(),
    reason: z.string(),
    /** True when its release rule lifted it, false when a person did. */
    automatic: z.boolean(),
    by: z.string(),
    at: Timestamp,
  }),
);

export const TestQuarantineExpired = defineEvent(
  'test.quarantine-expired',
  1,
  z.object({ quarantineId: z.string(), expiredAt: Timestamp, at: Timestamp }),
);

/** The days after a person lifts an automatic quarantine during which the policy leaves that test alone. */
export const AUTO_QUARANTINE_MEMORY_DAYS = 30;

/**
 * A project's auto-quarantine policy (off by default): a test flaky in more than `minFlakyRate` of at least
 * `minExecutions` executions on the default branch in the last 30 days is quarantined for its errors of
 * those days, owned by `ownerId`, for `days` days.
 */
export const QuarantinePolicy = z
  .object({
    enabled: z.boolean(),
    minFlakyRate: z.number().gt(0).max(1).describe('Quarantined when flaky in more than this share'),
    minExecutions: z.number().int().min(1).max(10_000),
    days: z.number().int().min(1).max(MAX_QUARANTINE_DAYS).describe('How long an automatic quarantine lasts'),
    ownerId: z.string().min(1).describe('A member: the owner of the automatic quarantines'),
  })
  .strict();
export type QuarantinePolicy = z.infer<typeof QuarantinePolicy>;

export const QuarantinePolicyChanged = defineEvent(
  'quarantine.policy-changed',
  1,
  z.object({ projectId: z.string(), policy: QuarantinePolicy, by: z.string(), at: Timestamp }),
);

export const QUARANTINE_EVENTS = [
  TestQuarantined,
  TestQuarantineExtended,
  TestQuarantineSignaturesChanged,
  TestQuarantineLifted,
  TestQuarantineExpired,
] as const;

export type QuarantineEvent = EventOf<(typeof QUARANTINE_EVENTS)[number]>;

/** Parses a stored or received event into the quarantine union; throws on any other type or bad data. */
export function parseQuarantineEvent(event: {
  type: string;
  version: number;
  data: unknown;
}): QuarantineEvent {
  const known = QUARANTINE_EVENTS.find((candidate) => candidate.is(event));
  if (!known) throw new Error(`Not a quarantine event: ${event.type} version ${event.version}`);
  return known.schema.parse(event);
}
