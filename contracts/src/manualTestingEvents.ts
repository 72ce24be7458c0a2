import { z } from 'zod';
import { defineEvent, type EventOf } from './events';
import {
  AutomationStatus,
  Behavior,
  CaseStatus,
  CaseSteps,
  CaseType,
  Layer,
  Priority,
  ReleaseStatus,
  RunCaseResult,
  SessionStatus,
  Severity,
  StepFormat,
} from './manualTesting';

/**
 * The events of manual testing (version 1 each), recorded by the manual-testing service in its own store
 * and relayed to the `manual-testing` topic keyed by project. Every event names its actor (`by`, a user
 * id) and its time (`at`): the history of a case and of every run case is read from these.
 *
 * Streams: `mt-case-<id>`, `mt-suite-<id>`, `mt-run-<id>`, `mt-release-<id>`, `mt-session-<id>`, and
 * `mt-counter-<kind>-<projectId>` (one `manual.number-allocated` per case, run or release; the stream's
 * version is the last number, so numbers are never reused).
 */

const Timestamp = z.iso.datetime({ offset: true });

/** Everything a case holds that a PATCH can change: one revision of the case. */
export const CaseContent = z.object({
  title: z.string(),
  description: z.string(),
  preconditions: z.string(),
  postconditions: z.string(),
  suiteId: z.string().nullable(),
  status: CaseStatus,
  severity: Severity,
  priority: Priority,
  type: CaseType,
  layer: Layer,
  behavior: Behavior,
  automationStatus: AutomationStatus,
  toBeAutomated: z.boolean(),
  isFlaky: z.boolean(),
  isMuted: z.boolean(),
  stepFormat: StepFormat,
  steps: CaseSteps,
  tags: z.array(z.string()),
  customFields: z.record(z.string(), z.unknown()),
});
export type CaseContent = z.infer<typeof CaseContent>;

export const CommentRecord = z.object({ id: z.string(), text: z.string() });

export const NumberAllocated = defineEvent(
  'manual.number-allocated',
  1,
  z.object({
    kind: z.enum(['case', 'run', 'release']),
    entityId: z.string(),
    number: z.number().int().min(1),
  }),
);

export const ManualCaseCreated = defineEvent(
  'manual-case.created',
  1,
  z.object({
    caseId: z.string(),
    projectId: z.string(),
    number: z.number().int().min(1),
    content: CaseContent,
    comments: z.array(CommentRecord),
    issues: z.array(z.string()),
    by: z.string(),
    at: Timestamp,
  }),
);

export const ManualCaseRevised = defineEvent(
  'manual-case.revised',
  1,
  z.object({
    caseId: z.string(),
    /** The revision after this event; the same as before when only comments or issues came in. */
    revision: z.number().int().min(1),
    /** The new value of each changed field, and its value before. */
    set: CaseContent.partial(),
    previous: CaseContent.partial(),
    comments: z.array(CommentRecord),
    /** Issue keys newly linked (those already linked are not repeated). */
    issuesLinked: z.array(z.string()),
    by: z.string(),
    at: Timestamp,
  }),
);

export const AttachmentRecord = z.object({
  id: z.string(),
  fileName: z.string(),
  originalFileName: z.string(),
  fileSize: z.number().int().min(0),
  mimeType: z.string(),
  blobKey: z.string(),
  stepRef: z.string().nullable(),
});
export type AttachmentRecord = z.infer<typeof AttachmentRecord>;

export const ManualCaseAttachmentAdded = defineEvent(
  'manual-case.attachment-added',
  1,
  z.object({ caseId: z.string(), attachment: AttachmentRecord, by: z.string(), at: Timestamp }),
);

/**
 * A file removed from a case: the record stays in the stream (the case history names it), the blob is
 * deleted.
 */
export const ManualCaseAttachmentRemoved = defineEvent(
  'manual-case.attachment-removed',
  1,
  z.object({
    caseId: z.string(),
    /** The attachment as it was added: its blob key, and its name for the history. */
    attachment: AttachmentRecord,
    by: z.string(),
    at: Timestamp,
  }),
);

export const SuiteFields = z.object({
  name: z.string(),
  description: z.string(),
  parentId: z.string().nullable(),
});
export const ManualSuiteCreated = defineEvent(
  'manual-suite.created',
  1,
  z.object({
    suiteId: z.string(),
    projectId: z.string(),
    fields: SuiteFields,
    by: z.string(),
    at: Timestamp,
  }),
);
export const ManualSuiteUpdated = defineEvent(
  'manual-suite.updated',
  1,
  z.object({ suiteId: z.string(), set: SuiteFields.partial(), by: z.string(), at: Timestamp }),
);
export const ManualSuiteDeleted = defineEvent(
  'manual-suite.deleted',
  1,
  z.object({ suiteId: z.string(), by: z.string(), at: Timestamp }),
);

export const RunCaseSeed = z.object({
  refId: z.string(),
  caseId: z.string(),
  number: z.number().int(),
  title: z.string(),
  revision: z.number().int(),
});
export type RunCaseSeed = z.infer<typeof RunCaseSeed>;

export const ManualRunCreated = defineEvent(
  'manual-run.created',
  1,
  z.object({
    runId: z.string(),
    projectId: z.string(),
    number: z.number().int().min(1),
    name: z.string(),
    description: z.string(),
    releaseId: z.string().nullable(),
    assigneeUserId: z.string().nullable(),
    cases: z.array(RunCaseSeed),
    by: z.string(),
    at: Timestamp,
  }),
);

export const StepResult = z.object({ order: z.number().int(), status: RunCaseResult, comment: z.string() });

export const ManualRunCaseUpdated = defineEvent(
  'manual-run.case-updated',
  1,
  z.object({
    runId: z.string(),
    refId: z.string(),
    mode: z.enum(['quick', 'detailed']),
    /** Absent: unchanged. A null assignee unassigns. */
    result: RunCaseResult.optional(),
    assigneeUserId: z.string().nullable().optional(),
    elapsed: z.number().min(0).optional(),
    comment: z.string().optional(),
    linkedIssues: z.array(z.record(z.string(), z.unknown())).optional(),
    stepResults: z.array(StepResult).optional(),
    by: z.string(),
    at: Timestamp,
  }),
);

/**
 * Evidence on a run case: a file (screenshot, log) a tester attaches to the verdict, stored in the blob
 * store under `blobKey`. Removing it keeps the record in the stream (the run case's history names it); the
 * blob itself is deleted.
 */
export const ManualRunCaseAttachmentAdded = defineEvent(
  'manual-run.case-attachment-added',
  1,
  z.object({
    runId: z.string(),
    refId: z.string(),
    attachment: AttachmentRecord,
    by: z.string(),
    at: Timestamp,
  }),
);

export const ManualRunCaseAttachmentRemoved = defineEvent(
  'manual-run.case-attachment-removed',
  1,
  z.object({
    runId: z.string(),
    refId: z.string(),
    /** The attachment as it was added: its blob key, and its name for the history. */
    attachment: AttachmentRecord,
    by: z.string(),
    at: Timestamp,
  }),
);

export const ReleaseFields = z.object({
  name: z.string(),
  description: z.string(),
  startDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  status: ReleaseStatus,
});
export const ManualReleaseCreated = defineEvent(
  'manual-release.created',
  1,
  z.object({
    releaseId: z.string(),
    projectId: z.string(),
    number: z.number().int().min(1),
    fields: ReleaseFields,
    by: z.string(),
    at: Timestamp,
  }),
);
export const ManualReleaseUpdated = defineEvent(
  'manual-release.updated',
  1,
  z.object({ releaseId: z.string(), set: ReleaseFields.partial(), by: z.string(), at: Timestamp }),
);

export const FindingRecord = z.object({
  title: z.string(),
  description: z.string(),
  severity: Severity,
  issueKey: z.string().nullable(),
});
export const SessionFields = z.object({
  charter: z.string(),
  status: SessionStatus,
  notes: z.string(),
  findings: z.array(FindingRecord),
  releaseId: z.string().nullable(),
  assigneeUserId: z.string().nullable(),
  /** Absent from the events of sessions created before time boxes. */
  timeBoxMinutes: z.number().int().positive().nullable().optional(),
});
export type SessionFields = z.infer<typeof SessionFields>;
export const ManualSessionCreated = defineEvent(
  'manual-session.created',
  1,
  z.object({
    sessionId: z.string(),
    projectId: z.string(),
    fields: SessionFields,
    by: z.string(),
    at: Timestamp,
  }),
);
export const ManualSessionUpdated = defineEvent(
  'manual-session.updated',
  1,
  z.object({ sessionId: z.string(), set: SessionFields.partial(), by: z.string(), at: Timestamp }),
);

export const MANUAL_TESTING_EVENTS = [
  NumberAllocated,
  ManualCaseCreated,
  ManualCaseRevised,
  ManualCaseAttachmentAdded,
  ManualCaseAttachmentRemoved,
  ManualSuiteCreated,
  ManualSuiteUpdated,
  ManualSuiteDeleted,
  ManualRunCreated,
  ManualRunCaseUpdated,
  ManualRunCaseAttachmentAdded,
  ManualRunCaseAttachmentRemoved,
  ManualReleaseCreated,
  ManualReleaseUpdated,
  ManualSessionCreated,
  ManualSessionUpdated,
] as const;

export type ManualCaseEvent = EventOf<
  | typeof ManualCaseCreated
  | typeof ManualCaseRevised
  | typeof ManualCaseAttachmentAdded
  | typeof ManualCaseAttachmentRemoved
>;
export type ManualSuiteEvent = EventOf<
  typeof ManualSuiteCreated | typeof ManualSuiteUpdated | typeof ManualSuiteDeleted
>;
export type ManualRunEvent = EventOf<
  | typeof ManualRunCreated
  | typeof ManualRunCaseUpdated
  | typeof ManualRunCaseAttachmentAdded
  | typeof ManualRunCaseAttachmentRemoved
>;
export type ManualReleaseEvent = EventOf<typeof ManualReleaseCreated | typeof ManualReleaseUpdated>;
export type ManualSessionEvent = EventOf<typeof ManualSessionCreated | typeof ManualSessionUpdated>;
export type ManualTestingEvent = EventOf<(typeof MANUAL_TESTING_EVENTS)[number]>;

/**
 * Parses an event (read back from the store or the bus) into the manual-testing union; throws when its
 * type or version is unknown or its data does not fit.
 *
 * @example const event = parseManualTestingEvent({ type: envelope.type, version: envelope.version, data: envelope.data });
 */
export function parseManualTestingEvent(event: {
  type: string;
  version: number;
  data: unknown;
}): ManualTestingEvent {
  const known = MANUAL_TESTING_EVENTS.find((candidate) => candidate.is(event));
  if (!known) throw new Error(`Not a manual-testing event: ${event.type} version ${event.version}`);
  return known.schema.parse(event) as ManualTestingEvent;
}
