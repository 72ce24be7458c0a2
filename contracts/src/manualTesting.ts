import { z } from 'zod';
import { queryInteger, STORED_INTEGER_MAX } from './http';
import { DayInput, InstantInput } from './instant';
import { listEnvelope, successEnvelope } from './envelope';

/**
 * Manual testing (spec §2, §3, §4.3–§4.5, §8; API.md "Manual testing"): suites, cases, runs, releases
 * and sessions. Value sets accept their canonical form (`to_be_automated`) and the display form a person
 * would type (`To be automated`, `Not set`): both are folded to the canonical one, which is what answers
 * carry.
 */

/** "To be automated" → "to_be_automated": case-insensitive, spaces and hyphens as underscores. */
export function canonicalValue(value: unknown): unknown {
  return typeof value === 'string'
    ? value
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, '_')
    : value;
}

function valueSet<const T extends readonly [string, ...string[]]>(values: T) {
  return z.preprocess(canonicalValue, z.enum(values));
}

export const CASE_STATUSES = ['active', 'draft', 'deprecated'] as const;
export const SEVERITIES = ['blocker', 'critical', 'major', 'normal', 'minor', 'trivial', 'not_set'] as const;
export const PRIORITIES = ['critical', 'high', 'medium', 'low', 'not_set'] as const;
export const CASE_TYPES = [
  'smoke',
  'regression',
  'functional',
  'integration',
  'e2e',
  'api',
  'unit',
  'performance',
  'security',
  'accessibility',
  'usability',
  'compatibility',
  'acceptance',
  'exploratory',
  'other',
] as const;
export const LAYERS = ['e2e', 'api', 'unit', 'not_set'] as const;
export const BEHAVIORS = ['positive', 'negative', 'destructive', 'not_set'] as const;
export const AUTOMATION_STATUSES = ['manual', 'automated', 'to_be_automated'] as const;
export const RUN_CASE_RESULTS = ['untested', 'passed', 'failed', 'blocked', 'skipped', 'retest'] as const;
export const STEP_FORMATS = ['Classic', 'Gherkin'] as const;
export const RELEASE_STATUSES = ['planned', 'active', 'completed'] as const;
export const SESSION_STATUSES = ['planned', 'in_progress', 'completed'] as const;
export const RUN_STATUSES = ['not_started', 'in_progress', 'completed'] as const;

export const CaseStatus = z.enum(CASE_STATUSES);
export type CaseStatus = z.infer<typeof CaseStatus>;
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;
export const Priority = z.enum(PRIORITIES);
export type Priority = z.infer<typeof Priority>;
export const CaseType = z.enum(CASE_TYPES);
export type CaseType = z.infer<typeof CaseType>;
export const Layer = z.enum(LAYERS);
export type Layer = z.infer<typeof Layer>;
export const Behavior = z.enum(BEHAVIORS);
export type Behavior = z.infer<typeof Behavior>;
export const AutomationStatus = z.enum(AUTOMATION_STATUSES);
export type AutomationStatus = z.infer<typeof AutomationStatus>;
export const RunCaseResult = z.enum(RUN_CASE_RESULTS);
export type RunCaseResult = z.infer<typeof RunCaseResult>;
export const StepFormat = z.enum(STEP_FORMATS);
export type StepFormat = z.infer<typeof StepFormat>;
export const ReleaseStatus = z.enum(RELEASE_STATUSES);
export type ReleaseStatus = z.infer<typeof ReleaseStatus>;
export const SessionStatus = z.enum(SESSION_STATUSES);
export type SessionStatus = z.infer<typeof SessionStatus>;
export const ManualRunStatus = z.enum(RUN_STATUSES);
export type ManualRunStatus = z.infer<typeof ManualRunStatus>;

/** Spec §4.3: the `flags` of a PATCH and the automation booleans they set. */
export const CASE_FLAGS = ['To be Automated', 'Is flaky', 'Muted'] as const;
export type CaseFlag = (typeof CASE_FLAGS)[number];

/** Spec §8. */
export const MANUAL_LIMITS = {
  title: 500,
  steps: 100,
  commentsPerRequest: 20,
  issuesPerRequest: 50,
  text: 50_000,
  tags: 100,
  tag: 100,
  subSteps: 20,
  runCases: 5_000,
  customFieldsBytes: 64 * 1024,
} as const;

const Timestamp = z.iso.datetime({ offset: true });
const Text = z.string().max(MANUAL_LIMITS.text);
/** Ids in paths: opaque, bounded, no characters that need escaping. */
const PathId = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'must be an id (letters, digits, "-" and "_")' });
/** A body reference to an entity by its `_id` (or counter key where the field says so). */
const RefId = z.string().trim().min(1).max(64);

// ---------------------------------------------------------------------------------------------------------
// Steps. A case keeps both arrays of spec §2; `stepFormat` (Classic or Gherkin) says which one is in use,
// and a PATCH of `steps` fills that one and empties the other.

export interface ClassicStep {
  step: number;
  action: string;
  data: string;
  expectedResult: string;
  subSteps: ClassicStep[];
}
export const ClassicStep: z.ZodType<ClassicStep> = z.lazy(() =>
  z.object({
    step: z.number().int().min(1),
    action: z.string(),
    data: z.string(),
    expectedResult: z.string(),
    subSteps: z.array(ClassicStep),
  }),
);

export interface GherkinStep {
  step: number;
  text: string;
  subSteps: GherkinStep[];
}
export const GherkinStep: z.ZodType<GherkinStep> = z.lazy(() =>
  z.object({ step: z.number().int().min(1), text: z.string(), subSteps: z.array(GherkinStep) }),
);

export const CaseSteps = z.object({ classic: z.array(ClassicStep), gherkin: z.array(GherkinStep) });
export type CaseSteps = z.infer<typeof CaseSteps>;

/** A step as a request sends it: a plain string, or an object of either format (numbered by position). */
const SubStepInput = z.union([
  z.string().max(MANUAL_LIMITS.text),
  z.strictObject({
    step: z.number().int().min(1).max(STORED_INTEGER_MAX).optional(),
    action: Text.optional(),
    data: Text.optional(),
    expectedResult: Text.optional(),
    text: Text.optional(),
  }),
]);
export const StepInput = z.union([
  z.string().max(MANUAL_LIMITS.text),
  z.strictObject({
    step: z.number().int().min(1).max(STORED_INTEGER_MAX).optional(),
    action: Text.optional(),
    data: Text.optional(),
    expectedResult: Text.optional(),
    text: Text.optional(),
    subSteps: z.array(SubStepInput).max(MANUAL_LIMITS.subSteps).optional(),
  }),
]);
export type StepInput = z.infer<typeof StepInput>;

// ---------------------------------------------------------------------------------------------------------
// Case requests (spec §4.3 PATCH; API.md create = the PATCH fields + suiteId, title required)

const Title = z.string().trim().min(1).max(MANUAL_LIMITS.title);
const Tag = z.string().trim().min(1).max(MANUAL_LIMITS.tag);

/** Tags as the spec's request shape gives them (a comma-separated string), or as an array. */
export const TagsInput = z.union([
  z.string().max(MANUAL_LIMITS.tags * (MANUAL_LIMITS.tag + 1)),
  z.array(Tag).max(MANUAL_LIMITS.tags),
]);

/** "a, b,,a" → ["a", "b"]: trimmed, empties dropped, first occurrence kept. */
export function tagsOf(input: string | string[]): string[] {
  const parts = (typeof input === 'string' ? input.split(',') : input).map((t) => t.trim()).filter(Boolean);
  return [...new Set(parts)];
}

const customFieldsFit = (value: Record<string, unknown>) =>
  JSON.stringify(value).length <= MANUAL_LIMITS.customFieldsBytes;
/**
 * An object whose keys a client names: a `__proto__` key would be dropped without a word (zod skips it, as
 * JavaScript objects must), so it is refused by name instead.
 */
function clientKeyed<T extends z.ZodType>(schema: T) {
  return z.preprocess((value, ctx) => {
    if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
      ctx.addIssue({ code: 'custom', message: '"__proto__" is a reserved key', input: value });
    }
    return value;
  }, schema);
}

export const CustomFieldsInput = clientKeyed(
  z
    .record(z.string().min(1).max(100), z.unknown())
    .refine(customFieldsFit, { error: `must be at most ${MANUAL_LIMITS.customFieldsBytes} bytes of JSON` }),
);

const caseFields = {
  title: Title.optional(),
  name: Title.optional(),
  description: Text.optional(),
  preconditions: Text.optional(),
  postconditions: Text.optional(),
  status: valueSet(CASE_STATUSES).optional(),
  steps: z.array(StepInput).max(MANUAL_LIMITS.steps).optional(),
  stepFormat: z
    .preprocess(
      (v) => (typeof v === 'string' ? v.trim().charAt(0).toUpperCase() + v.trim().slice(1).toLowerCase() : v),
      StepFormat,
    )
    .optional(),
  priority: valueSet(PRIORITIES).optional(),
  severity: valueSet(SEVERITIES).optional(),
  type: valueSet(CASE_TYPES).optional(),
  layer: valueSet(LAYERS).optional(),
  behavior: valueSet(BEHAVIORS).optional(),
  automationStatus: valueSet(AUTOMATION_STATUSES).optional(),
  tags: TagsInput.optional(),
  flags: z
    .array(
      z.preprocess(
        (v) =>
          typeof v === 'string'
            ? (CASE_FLAGS.find((f) => f.toLowerCase() === v.trim().toLowerCase()) ?? v)
            : v,
        z.enum(CASE_FLAGS),
      ),
    )
    .max(CASE_FLAGS.length * 2)
    .optional(),
  customFields: CustomFieldsInput.optional(),
  comments: z.array(z.string().trim().min(1).max(10_000)).max(MANUAL_LIMITS.commentsPerRequest).optional(),
  issues: z.array(z.string().trim().min(1).max(200)).max(MANUAL_LIMITS.issuesPerRequest).optional(),
  /** Moves the case; null unassigns it. Not in the spec's PATCH table, given by API.md's create. */
  suiteId: RefId.nullable().optional(),
};

const titleAndNameAgree = (body: { title?: string | undefined; name?: string | undefined }) =>
  body.title === undefined || body.name === undefined || body.title === body.name;

export const CreateManualCaseRequest = z
  .strictObject(caseFields)
  .refine(titleAndNameAgree, { error: 'is an alias of title: send one of them', path: ['name'] })
  .refine((body) => body.title !== undefined || body.name !== undefined, {
    error: 'is required',
    path: ['title'],
  });
export type CreateManualCaseRequest = z.infer<typeof CreateManualCaseRequest>;

export const UpdateManualCaseRequest = z
  .strictObject(caseFields)
  .refine(titleAndNameAgree, { error: 'is an alias of title: send one of them', path: ['name'] })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    error: 'must name at least one field to change',
  })
  .meta({ minProperties: 1 });
export type UpdateManualCaseRequest = z.infer<typeof UpdateManualCaseRequest>;

// ---------------------------------------------------------------------------------------------------------
// Case list (spec §4.3)

const booleanText = z.enum(['true', 'false']).transform((v) => v === 'true');

/** The sort keys of the list; bare names are accepted for the classification ones. */
export const MANUAL_CASE_SORT_KEYS = [
  'caseId',
  'title',
  'createdAt',
  'updatedAt',
  'classification.status',
  'classification.severity',
  'classification.priority',
  'classification.type',
  'classification.layer',
  'classification.behavior',
  'automation.status',
] as const;
export type ManualCaseSortKey = (typeof MANUAL_CASE_SORT_KEYS)[number];
const SORT_ALIASES: Record<string, ManualCaseSortKey> = {
  status: 'classification.status',
  severity: 'classification.severity',
  priority: 'classification.priority',
  type: 'classification.type',
  layer: 'classification.layer',
  behavior: 'classification.behavior',
  automationStatus: 'automation.status',
};

export const ManualCasesQuery = z.strictObject({
  page: queryInteger({ min: 1, fallback: 1 }),
  limit: queryInteger({ min: 1, max: 100, fallback: 50 }),
  search: z.string().trim().max(500).optional(),
  status: valueSet(CASE_STATUSES).optional(),
  severity: valueSet(SEVERITIES).optional(),
  priority: valueSet(PRIORITIES).optional(),
  type: valueSet(CASE_TYPES).optional(),
  layer: valueSet(LAYERS).optional(),
  behavior: valueSet(BEHAVIORS).optional(),
  automationStatus: valueSet(AUTOMATION_STATUSES).optional(),
  isFlaky: booleanText.optional(),
  isMuted: booleanText.optional(),
  suiteId: z.string().trim().min(1).max(64).optional(),
  tags: z
    .string()
    .max(MANUAL_LIMITS.tags * (MANUAL_LIMITS.tag + 1))
    .transform((v) => tagsOf(v))
    .optional(),
  sortBy: z
    .preprocess((v) => (typeof v === 'string' ? (SORT_ALIASES[v] ?? v) : v), z.enum(MANUAL_CASE_SORT_KEYS))
    .default('caseId')
    .describe(
      'One of the listed keys, or the short name the filters use for it: status, severity, priority, type, layer, behavior, automationStatus',
    ),
  sortOrder: z.enum(['asc', 'desc']).default('asc'),
});
export type ManualCasesQuery = z.infer<typeof ManualCasesQuery>;

// ---------------------------------------------------------------------------------------------------------
// Case answers (spec §2)

export const ManualUser = z.object({
  _id: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  email: z.string(),
});
export type ManualUser = z.infer<typeof ManualUser>;

export const LinkedTest = z.object({
  _id: z.string(),
  /**
   * The test's id in test results, the same for every run (a hash of its file and title path): the id of
   * its test page and of `GET /{projectId}/test-cases/{caseId}`.
   */
  testCaseId: z.string(),
  fullTitle: z.string(),
  displayTitle: z.string(),
  linkedAt: Timestamp,
  /** The latest automated result of the test: what the case's automation follows. */
  lastResult: z.object({ status: z.string(), runId: z.string(), at: Timestamp }).nullable(),
});
export type LinkedTest = z.infer<typeof LinkedTest>;

export const CaseAttachment = z.object({
  _id: z.string(),
  fileName: z.string(),
  originalFileName: z.string(),
  fileSize: z.number().int(),
  mimeType: z.string(),
  /** A signed, time-limited download URL. */
  blobUrl: z.string(),
  uploadedAt: Timestamp,
  stepRef: z.string().nullable(),
});
export type CaseAttachment = z.infer<typeof CaseAttachment>;

export const ManualTestCase = z.object({
  _id: z.string(),
  caseId: z.string(),
  title: z.string(),
  description: z.string(),
  preconditions: z.string(),
  postconditions: z.string(),
  metadata: z.object({
    project: z.string(),
    suite: z.object({ _id: z.string(), name: z.string() }).nullable(),
    createdBy: ManualUser.nullable(),
    lastModifiedBy: ManualUser.nullable(),
  }),
  classification: z.object({
    status: CaseStatus,
    severity: Severity,
    priority: Priority,
    type: CaseType,
    layer: Layer,
    behavior: Behavior,
  }),
  automation: z.object({
    status: AutomationStatus,
    toBeAutomated: z.boolean(),
    isFlaky: z.boolean(),
    isMuted: z.boolean(),
    /** The latest result among the linked automated tests; null when none is linked or none has run. */
    latestAutomatedResult: z.object({ status: z.string(), runId: z.string(), at: Timestamp }).nullable(),
  }),
  stepFormat: StepFormat,
  steps: CaseSteps,
  tags: z.array(z.string()),
  customFields: z.record(z.string(), z.unknown()),
  linkedTests: z.array(LinkedTest),
  attachments: z.array(CaseAttachment),
  /** 1 at creation, one more for each change of the case's content (comments and issues excluded). */
  revision: z.number().int().min(1),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type ManualTestCase = z.infer<typeof ManualTestCase>;

export const CaseComment = z.object({
  _id: z.string(),
  text: z.string(),
  author: ManualUser.nullable(),
  createdAt: Timestamp,
});
export const CaseIssue = z.object({ key: z.string(), linkedAt: Timestamp, linkedBy: ManualUser.nullable() });

/** One entry of a case's change history: who, when, and each field's value before and after. */
export const CaseChange = z.object({
  revision: z.number().int(),
  kind: z.enum(['created', 'updated', 'commented', 'attachment-added', 'attachment-removed']),
  at: Timestamp,
  by: ManualUser.nullable(),
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
  comments: z.array(z.string()),
  issuesLinked: z.array(z.string()),
});
export type CaseChange = z.infer<typeof CaseChange>;

export const ManualTestCaseDetail = ManualTestCase.extend({
  comments: z.array(CaseComment),
  issues: z.array(CaseIssue),
  /** Newest first, at most 100; `historyTotal` counts them all (GET …/history pages through them). */
  history: z.array(CaseChange),
  historyTotal: z.number().int(),
});
export type ManualTestCaseDetail = z.infer<typeof ManualTestCaseDetail>;

export const ManualCasePath = z.object({ projectId: PathId, caseId: PathId });
export const ManualProjectPath = z.object({ projectId: PathId });
export const PageQuery = z.strictObject({
  page: queryInteger({ min: 1, fallback: 1 }),
  limit: queryInteger({ min: 1, max: 100, fallback: 20 }),
});

export const ManualCasesResponse = listEnvelope(ManualTestCase);
export const ManualCaseResponse = successEnvelope(ManualTestCaseDetail);
export const CaseHistoryResponse = listEnvelope(CaseChange);
export const CaseAttachmentResponse = successEnvelope(CaseAttachment);
export const CaseAttachmentPath = ManualCasePath.extend({ attachmentId: PathId });
/** The answer of removing an attachment (a case's file, a run case's evidence), the same when repeated. */
export const DeletedAttachmentResponse = successEnvelope(
  z.object({ _id: z.string(), deleted: z.literal(true) }),
);

// ---------------------------------------------------------------------------------------------------------
// Suites (API.md)

export const CreateSuiteRequest = z.strictObject({
  name: z.string().trim().min(1).max(500),
  description: Text.optional(),
  parentId: RefId.nullable().optional(),
});
export const UpdateSuiteRequest = z
  .strictObject({
    name: z.string().trim().min(1).max(500).optional(),
    description: Text.optional(),
    parentId: RefId.nullable().optional(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), {
    error: 'must name at least one field to change',
  })
  .meta({ minProperties: 1 });
export const SuitesQuery = PageQuery.extend({ parentId: z.string().trim().min(1).max(64).optional() });
export const ManualSuite = z.object({
  _id: z.string(),
  name: z.string(),
  description: z.string(),
  parentId: z.string().nullable(),
  /** Ancestors first, this suite last. */
  path: z.array(z.object({ _id: z.string(), name: z.string() })),
  caseCount: z.number().int(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const ManualSuitePath = z.object({ projectId: PathId, suiteId: PathId });
export const ManualSuiteResponse = successEnvelope(ManualSuite);
export const ManualSuitesResponse = listEnvelope(ManualSuite);

// ---------------------------------------------------------------------------------------------------------
// Runs (spec §4.4, API.md)

export const CreateManualRunRequest = z
  .strictObject({
    name: z.string().trim().min(1).max(500),
    description: Text.optional(),
    releaseId: RefId.optional(),
    caseIds: z.array(RefId).max(MANUAL_LIMITS.runCases).optional(),
    suiteIds: z.array(RefId).max(1_000).optional(),
    assigneeUserId: z.string().trim().min(1).max(254).optional(),
  })
  // Neither list: every case of the project (as TestRail's include_all). Lists that name nothing are a
  // mistake rather than a wish for an empty run.
  .superRefine((body, ctx) => {
    if (body.caseIds === undefined && body.suiteIds === undefined) return;
    if ((body.caseIds?.length ?? 0) + (body.suiteIds?.length ?? 0) > 0) return;
    ctx.addIssue({
      code: 'custom',
      // The list that was sent: the one the caller is looking at.
      path: [body.caseIds === undefined ? 'suiteIds' : 'caseIds'],
      message: 'name at least one case (caseIds) or suite (suiteIds), or leave both out for every case',
    });
  });
export type CreateManualRunRequest = z.infer<typeof CreateManualRunRequest>;

export const ManualRunsQuery = PageQuery.extend({
  status: valueSet(RUN_STATUSES).optional(),
  releaseId: z.string().trim().min(1).max(64).optional(),
});

/** Accepted forms of a result: canonical or display ("Passed", "RETEST"). */
export const RunCaseResultInput = valueSet(RUN_CASE_RESULTS);

export const StepResultInput = z.strictObject({
  order: z.number().int().min(1).max(STORED_INTEGER_MAX),
  status: RunCaseResultInput,
  comment: z.string().max(10_000).optional(),
});
export const LinkedIssueInput = clientKeyed(
  z
    .object({ key: z.string().trim().min(1).max(200) })
    .catchall(z.unknown())
    .refine((v) => JSON.stringify(v).length <= 4_096, { error: 'must be at most 4096 bytes of JSON' }),
);

/** Spec §4.4: two modes; the handler rejects a body that mixes them. */
export const UpdateRunCaseRequest = z.strictObject({
  assigneeUserId: z.string().trim().min(1).max(254).nullable().optional(),
  result: RunCaseResultInput.optional(),
  status: RunCaseResultInput.optional(),
  elapsed: z.number().min(0).max(10_000_000).optional().describe('Seconds spent, >= 0 (at most 10,000,000)'),
  comment: z.string().max(100_000).optional(),
  linkedIssues: z.array(LinkedIssueInput).max(50).optional(),
  stepResults: z.array(StepResultInput).max(MANUAL_LIMITS.steps).optional(),
});
export type UpdateRunCaseRequest = z.infer<typeof UpdateRunCaseRequest>;
export const QUICK_VERDICT_FIELDS = ['assigneeUserId', 'result', 'status', 'elapsed'] as const;
export const DETAILED_RESULT_FIELDS = ['comment', 'linkedIssues', 'stepResults'] as const;

export const RunCaseEntry = z.object({
  /** `evidence`: a file attached to the run case or removed from it (`evidence` says which). */
  mode: z.enum(['quick', 'detailed', 'evidence']),
  evidence: z
    .object({
      action: z.enum(['attached', 'removed']),
      attachmentId: z.string(),
      originalFileName: z.string(),
    })
    .optional(),
  result: RunCaseResult.nullable(),
  assignee: ManualUser.nullable().optional(),
  elapsed: z.number().nullable(),
  comment: z.string().nullable(),
  linkedIssues: z.array(z.record(z.string(), z.unknown())).nullable(),
  stepResults: z
    .array(z.object({ order: z.number(), status: RunCaseResult, comment: z.string() }))
    .nullable(),
  by: ManualUser.nullable(),
  at: Timestamp,
});

export const ManualRunCase = z.object({
  _id: z.string(),
  caseRef: z.object({ _id: z.string(), caseId: z.string() }),
  title: z.string(),
  /** The case revision the run was created from; `caseChangedSince` when the case has moved on. */
  caseRevision: z.number().int(),
  currentCaseRevision: z.number().int().nullable(),
  caseChangedSince: z.boolean(),
  result: RunCaseResult,
  assignee: ManualUser.nullable(),
  elapsed: z.number().nullable(),
  comment: z.string().nullable(),
  linkedIssues: z.array(z.record(z.string(), z.unknown())),
  stepResults: z.array(z.object({ order: z.number(), status: RunCaseResult, comment: z.string() })),
  /** Evidence of the result (screenshots, logs), oldest first, each with a fresh signed `blobUrl`. */
  attachments: z.array(CaseAttachment),
  /** Every update ever made, oldest first; the current result is the latest one set. */
  history: z.array(RunCaseEntry),
  updatedAt: Timestamp,
});

export const Progress = z.object({
  total: z.number().int(),
  untested: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  blocked: z.number().int(),
  skipped: z.number().int(),
  retest: z.number().int(),
  /** Cases with a result other than untested or retest: the ones done. */
  completed: z.number().int(),
  percentComplete: z.number(),
  passRate: z.number(),
});
export type Progress = z.infer<typeof Progress>;

export const ManualRun = z.object({
  _id: z.string(),
  runId: z.string(),
  name: z.string(),
  description: z.string(),
  status: ManualRunStatus,
  release: z.object({ _id: z.string(), releaseId: z.string(), name: z.string() }).nullable(),
  assignee: ManualUser.nullable(),
  createdBy: ManualUser.nullable(),
  progress: Progress,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const ManualRunDetail = ManualRun.extend({ testCases: z.array(ManualRunCase) });
export const ManualRunPath = z.object({ projectId: PathId, runId: PathId });
export const ManualRunCasePath = z.object({ projectId: PathId, runId: PathId, runCaseId: PathId });
export const ManualRunResponse = successEnvelope(ManualRunDetail);
export const ManualRunsResponse = listEnvelope(ManualRun);
export const ManualRunCaseResponse = successEnvelope(ManualRunCase);
export const RunCaseAttachmentPath = ManualRunCasePath.extend({ attachmentId: PathId });
export const RunCaseAttachmentResponse = successEnvelope(CaseAttachment);

// ---------------------------------------------------------------------------------------------------------
// Releases (spec §4.5, API.md)

/** A calendar day as sent, or an instant, kept in UTC (API.md: "times are ISO 8601 UTC"). */
const DateLike = z.union([DayInput, InstantInput.transform((value) => new Date(value).toISOString())]);
export const CreateReleaseRequest = z.strictObject({
  name: z.string().trim().min(1).max(500),
  description: Text.optional(),
  startDate: DateLike.nullable().optional(),
  dueDate: DateLike.nullable().optional(),
  status: valueSet(RELEASE_STATUSES).optional(),
});
export const UpdateReleaseRequest = CreateReleaseRequest.partial()
  .refine((body) => Object.values(body).some((v) => v !== undefined), {
    error: 'must name at least one field to change',
  })
  .meta({ minProperties: 1 });
export const ReleasesQuery = PageQuery.extend({ status: valueSet(RELEASE_STATUSES).optional() });
export const ManualRelease = z.object({
  _id: z.string(),
  releaseId: z.string(),
  name: z.string(),
  description: z.string(),
  startDate: z.string().nullable(),
  dueDate: z.string().nullable(),
  status: ReleaseStatus,
  runCount: z.number().int(),
  progress: Progress,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const ReleasePath = z.object({ projectId: PathId, releaseId: PathId });
export const ReleaseResponse = successEnvelope(ManualRelease);
export const ReleasesResponse = listEnvelope(ManualRelease);

// ---------------------------------------------------------------------------------------------------------
// Sessions (API.md: exploratory)

export const FindingInput = z.union([
  z.string().trim().min(1).max(10_000),
  z.strictObject({
    title: z.string().trim().min(1).max(500),
    description: z.string().max(10_000).optional(),
    severity: valueSet(SEVERITIES).optional(),
    issueKey: z.string().trim().min(1).max(200).optional(),
  }),
]);
export const CreateSessionRequest = z.strictObject({
  charter: z.string().trim().min(1).max(2_000),
  status: valueSet(SESSION_STATUSES).optional(),
  notes: Text.optional(),
  findings: z.array(FindingInput).max(200).optional(),
  releaseId: RefId.nullable().optional(),
  assigneeUserId: z.string().trim().min(1).max(254).nullable().optional(),
  timeBoxMinutes: z
    .number()
    .int()
    .min(1)
    .max(10_080)
    .nullable()
    .optional()
    .describe('How long the session is meant to take, in minutes (1 to 10,080, a week); null: no time box'),
});
export const UpdateSessionRequest = CreateSessionRequest.partial()
  .refine((body) => Object.values(body).some((v) => v !== undefined), {
    error: 'must name at least one field to change',
  })
  .meta({ minProperties: 1 });
export const SessionsQuery = PageQuery.extend({
  status: valueSet(SESSION_STATUSES).optional(),
  releaseId: z.string().trim().min(1).max(64).optional(),
});
export const Finding = z.object({
  title: z.string(),
  description: z.string(),
  severity: Severity,
  issueKey: z.string().nullable(),
});
export type Finding = z.infer<typeof Finding>;
export const ManualSession = z.object({
  _id: z.string(),
  charter: z.string(),
  status: SessionStatus,
  notes: z.string(),
  findings: z.array(Finding),
  release: z.object({ _id: z.string(), releaseId: z.string(), name: z.string() }).nullable(),
  assignee: ManualUser.nullable(),
  createdBy: ManualUser.nullable(),
  startedAt: Timestamp.nullable(),
  completedAt: Timestamp.nullable(),
  /** Time spent is from `startedAt` to `completedAt` (or now, while in progress). */
  timeBoxMinutes: z.number().int().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const SessionPath = z.object({ projectId: PathId, sessionId: PathId });
export const SessionResponse = successEnvelope(ManualSession);
export const SessionsResponse = listEnvelope(ManualSession);
