/**
 * The manual run aggregate, RUN-<n> (stream `mt-run-<id>`). A run pins each case at the revision it was
 * created from. Every update of a run case is an event with its actor and time, so a run case keeps every
 * result it ever had: its current result is the latest one set, and a correction is one more event, never
 * an erasure. Evidence (files) is attached to a run case and removed from it by events too; a removal is
 * recorded once, so removing again decides nothing.
 */
import {
  DETAILED_RESULT_FIELDS,
  ManualRunCaseAttachmentAdded,
  ManualRunCaseAttachmentRemoved,
  ManualRunCaseUpdated,
  ManualRunCreated,
  parseManualTestingEvent,
  QUICK_VERDICT_FIELDS,
  type AttachmentRecord,
  type ManualRunEvent,
  type RunCaseResult,
  type RunCaseSeed,
  type UpdateRunCaseRequest,
} from '@verdict/contracts';
import { ConflictError, NotFoundError, ValidationError, type Decider } from '@verdict/platform';
import { attachmentToRemove, keptAfter, keptAttachment, type KeptAttachment } from '../shared/attachments';
import { numberOfKey } from '../shared/ids';

export type RunEvent = ManualRunEvent;

interface RunCaseState {
  refId: string;
  caseId: string;
  number: number;
  result: RunCaseResult;
  /** Every file ever attached, removed ones included (a removal is answered again, never decided twice). */
  evidence: KeptAttachment[];
}
export type RunState = { status: 'none' } | { status: 'exists'; runId: string; cases: RunCaseState[] };

export interface CreateRun {
  type: 'createRun';
  runId: string;
  projectId: string;
  number: number;
  name: string;
  description: string;
  releaseId: string | null;
  assigneeUserId: string | null;
  cases: RunCaseSeed[];
  by: string;
  now: Date;
}

export interface UpdateRunCase {
  type: 'updateRunCase';
  /** The run-case reference, the case key TC-<n>, or the case `_id` (spec §2). */
  runCaseRef: string;
  request: UpdateRunCaseRequest;
  /**
   * The assignee as a user id, resolved from the id or e-mail of the request; null unassigns; undefined
   * when the request does not name one.
   */
  assigneeUserId: string | null | undefined;
  by: string;
  now: Date;
}

export interface AttachEvidence {
  type: 'attachEvidence';
  runCaseRef: string;
  attachment: AttachmentRecord;
  by: string;
  now: Date;
}

export interface RemoveEvidence {
  type: 'removeEvidence';
  runCaseRef: string;
  attachmentId: string;
  by: string;
  now: Date;
}

export type RunCommand = CreateRun | UpdateRunCase | AttachEvidence | RemoveEvidence;

export const runStream = (runId: string): string => `mt-run-${runId}`;

export function evolve(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'manual-run.created':
      return {
        status: 'exists',
        runId: event.data.runId,
        cases: event.data.cases.map((seed) => ({
          refId: seed.refId,
          caseId: seed.caseId,
          number: seed.number,
          result: 'untested',
          evidence: [],
        })),
      };
    case 'manual-run.case-updated': {
      if (state.status !== 'exists') return state;
      const { refId, result } = event.data;
      if (result === undefined) return state;
      return {
        ...state,
        cases: state.cases.map((runCase) => (runCase.refId === refId ? { ...runCase, result } : runCase)),
      };
    }
    case 'manual-run.case-attachment-added':
    case 'manual-run.case-attachment-removed': {
      if (state.status !== 'exists') return state;
      const { refId, attachment } = event.data;
      const removed = event.type === 'manual-run.case-attachment-removed';
      const withEvidence = (runCase: RunCaseState): RunCaseState => ({
        ...runCase,
        evidence: keptAfter(runCase.evidence, attachment, removed),
      });
      return {
        ...state,
        cases: state.cases.map((runCase) => (runCase.refId === refId ? withEvidence(runCase) : runCase)),
      };
    }
  }
}

function decideEvidence(command: AttachEvidence | RemoveEvidence, runId: string, runCase: RunCaseState) {
  const at = command.now.toISOString();
  const base = { runId, refId: runCase.refId, by: command.by, at };
  if (command.type === 'attachEvidence') {
    if (keptAttachment(runCase.evidence, command.attachment.id)) {
      throw new ConflictError(`Attachment ${command.attachment.id} is already on this run case`);
    }
    return [ManualRunCaseAttachmentAdded.of({ ...base, attachment: command.attachment })];
  }
  const attachment = attachmentToRemove(
    runCase.evidence,
    command.attachmentId,
    'Attachment not found on this run case',
  );
  return attachment ? [ManualRunCaseAttachmentRemoved.of({ ...base, attachment })] : [];
}

/** The run case a reference names: by its reference id first, then by case key, then by case `_id`. */
export function findRunCase(cases: readonly RunCaseState[], ref: string): RunCaseState | undefined {
  const number = numberOfKey('TC', ref);
  return (
    cases.find((runCase) => runCase.refId === ref) ??
    (number === null ? undefined : cases.find((runCase) => runCase.number === number)) ??
    cases.find((runCase) => runCase.caseId === ref)
  );
}

/** Spec §4.4: which mode a body is in; mixing the two, or sending neither, is refused. */
export function modeOf(request: UpdateRunCaseRequest): 'quick' | 'detailed' {
  const sent = (names: readonly string[]) =>
    names.filter((name) => request[name as keyof UpdateRunCaseRequest] !== undefined);
  const quick = sent(QUICK_VERDICT_FIELDS);
  const detailed = sent(DETAILED_RESULT_FIELDS);
  if (quick.length > 0 && detailed.length > 0) {
    throw new ValidationError(
      `body: quick verdict (${quick.join(', ')}) and detailed result (${detailed.join(', ')}) fields ` +
        'are two modes that cannot be mixed in one request',
    );
  }
  if (quick.length === 0 && detailed.length === 0) {
    throw new ValidationError(
      `body: send a quick verdict (${QUICK_VERDICT_FIELDS.join(', ')}) or a detailed result ` +
        `(${DETAILED_RESULT_FIELDS.join(', ')})`,
    );
  }
  return quick.length > 0 ? 'quick' : 'detailed';
}

export function decide(command: RunCommand, state: RunState): RunEvent[] {
  const at = command.now.toISOString();
  if (command.type === 'createRun') {
    if (state.status !== 'none') throw new ConflictError(`Run ${command.runId} already exists`);
    const { type: _type, now: _now, ...data } = command;
    return [ManualRunCreated.of({ ...data, at })];
  }
  if (state.status !== 'exists') throw new NotFoundError('Manual run not found');
  if (command.type !== 'updateRunCase') {
    const runCase = findRunCase(state.cases, command.runCaseRef);
    if (!runCase) throw new NotFoundError('Run case not found in this run');
    return decideEvidence(command, state.runId, runCase);
  }
  const { request } = command;
  const mode = modeOf(request);
  if (request.result !== undefined && request.status !== undefined && request.result !== request.status) {
    throw new ValidationError('status: is an alias of result: send one of them (or the same value)');
  }
  const runCase = findRunCase(state.cases, command.runCaseRef);
  if (!runCase) throw new NotFoundError('Run case not found in this run');
  const result = request.result ?? request.status;
  return [
    ManualRunCaseUpdated.of({
      runId: state.runId,
      refId: runCase.refId,
      mode,
      ...(result === undefined ? {} : { result }),
      ...(command.assigneeUserId === undefined ? {} : { assigneeUserId: command.assigneeUserId }),
      ...(request.elapsed === undefined ? {} : { elapsed: request.elapsed }),
      ...(request.comment === undefined ? {} : { comment: request.comment }),
      ...(request.linkedIssues === undefined ? {} : { linkedIssues: request.linkedIssues }),
      ...(request.stepResults === undefined
        ? {}
        : {
            stepResults: request.stepResults.map((step) => ({
              order: step.order,
              status: step.status,
              comment: step.comment ?? '',
            })),
          }),
      by: command.by,
      at,
    }),
  ];
}

export const runDecider: Decider<RunCommand, RunEvent, RunState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
  parse: (event) => {
    const parsed = parseManualTestingEvent(event);
    if (parsed.type.startsWith('manual-run.')) return parsed as RunEvent;
    throw new Error(`${parsed.type} does not belong to a run stream`);
  },
};
