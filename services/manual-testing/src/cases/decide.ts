/**
 * Commands on a manual test case, one pure function each. The request comes in already parsed by its
 * contract; turning it into content (steps in the chosen format, flags into booleans, tags from a
 * comma-separated string, custom fields merged) happens here, against the current content, so that the
 * rules of spec §4.3 are unit-tested without HTTP.
 */
import {
  ManualCaseAttachmentAdded,
  ManualCaseAttachmentRemoved,
  ManualCaseCreated,
  ManualCaseRevised,
  MANUAL_LIMITS,
  tagsOf,
  type AttachmentRecord,
  type CaseContent,
  type CaseSteps,
  type ClassicStep,
  type GherkinStep,
  type StepFormat,
  type StepInput,
  type UpdateManualCaseRequest,
} from '@verdict/contracts';
import { ConflictError, NotFoundError, ValidationError, type Decider } from '@verdict/platform';
import { attachmentToRemove, keptAttachment } from '../shared/attachments';
import { evolve, initialState, parseCaseEvent, type CaseEvent, type CaseState } from './case';

export const DEFAULT_CONTENT: CaseContent = Object.freeze({
  title: '',
  description: '',
  preconditions: '',
  postconditions: '',
  suiteId: null,
  status: 'active',
  severity: 'not_set',
  priority: 'not_set',
  type: 'other',
  layer: 'not_set',
  behavior: 'not_set',
  automationStatus: 'manual',
  toBeAutomated: false,
  isFlaky: false,
  isMuted: false,
  stepFormat: 'Classic',
  steps: { classic: [], gherkin: [] },
  tags: [],
  customFields: {},
}) as CaseContent;

/** The fields of a create or PATCH body, as parsed by the contract. */
export type CaseRequest = UpdateManualCaseRequest;

export interface CreateCase {
  type: 'createCase';
  caseId: string;
  projectId: string;
  number: number;
  request: CaseRequest;
  /** One id per entry of `request.comments`, in order. */
  commentIds: string[];
  by: string;
  now: Date;
}

export interface ReviseCase {
  type: 'reviseCase';
  request: CaseRequest;
  commentIds: string[];
  by: string;
  now: Date;
}

export interface AddAttachment {
  type: 'addAttachment';
  attachment: AttachmentRecord;
  by: string;
  now: Date;
}

export interface RemoveAttachment {
  type: 'removeAttachment';
  attachmentId: string;
  by: string;
  now: Date;
}

export type CaseCommand = CreateCase | ReviseCase | AddAttachment | RemoveAttachment;

type SubStepInput = Exclude<StepInput, string>['subSteps'] extends (infer S)[] | undefined ? S : never;

function textOf(input: StepInput | SubStepInput, format: StepFormat, where: string): string {
  if (typeof input === 'string') {
    if (input.trim() === '') throw new ValidationError(`${where}: must not be empty`);
    return input;
  }
  const text = format === 'Gherkin' ? (input.text ?? input.action) : (input.action ?? input.text);
  if (text === undefined || text.trim() === '') {
    throw new ValidationError(`${where}: needs ${format === 'Gherkin' ? 'a text' : 'an action'}`);
  }
  return text;
}

function classicOf(input: StepInput, step: number, where: string): ClassicStep {
  const action = textOf(input, 'Classic', where);
  if (typeof input === 'string') return { step, action, data: '', expectedResult: '', subSteps: [] };
  return {
    step,
    action,
    data: input.data ?? '',
    expectedResult: input.expectedResult ?? '',
    subSteps: (input.subSteps ?? []).map((sub, i) =>
      classicOf(sub as StepInput, i + 1, `${where}.subSteps[${i}]`),
    ),
  };
}

function gherkinOf(input: StepInput, step: number, where: string): GherkinStep {
  const text = textOf(input, 'Gherkin', where);
  if (typeof input === 'string') return { step, text, subSteps: [] };
  if (input.data !== undefined || input.expectedResult !== undefined) {
    throw new ValidationError(`${where}: a Gherkin step has a text only (no data or expectedResult)`);
  }
  return {
    step,
    text,
    subSteps: (input.subSteps ?? []).map((sub, i) =>
      gherkinOf(sub as StepInput, i + 1, `${where}.subSteps[${i}]`),
    ),
  };
}

/** Steps replace the existing ones completely: the chosen format's array is filled, the other emptied. */
export function stepsOf(inputs: StepInput[], format: StepFormat): CaseSteps {
  return format === 'Gherkin'
    ? { classic: [], gherkin: inputs.map((input, i) => gherkinOf(input, i + 1, `steps[${i}]`)) }
    : { classic: inputs.map((input, i) => classicOf(input, i + 1, `steps[${i}]`)), gherkin: [] };
}

/**
 * `automation.status` to_be_automated and the `To be Automated` flag say one thing twice (spec §2 has
 * both): they are kept in agreement. A request that sends automationStatus decides with it, and the flag
 * follows; one that sends only flags moves the status (the flag cleared takes a to-be-automated case back
 * to manual; an automated case stays automated).
 */
function keepAutomationAgreed(next: CaseContent, request: CaseRequest): void {
  if (request.automationStatus !== undefined) {
    next.toBeAutomated = next.automationStatus === 'to_be_automated';
  } else if (request.flags !== undefined) {
    if (next.toBeAutomated) next.automationStatus = 'to_be_automated';
    else if (next.automationStatus === 'to_be_automated') next.automationStatus = 'manual';
  }
}

/** The content after applying a request's fields to `current` (comments and issues aside). */
export function contentAfter(current: CaseContent, request: CaseRequest): CaseContent {
  const next: CaseContent = { ...current };
  const title = request.title ?? request.name;
  if (title !== undefined) next.title = title;
  if (request.description !== undefined) next.description = request.description;
  if (request.preconditions !== undefined) next.preconditions = request.preconditions;
  if (request.postconditions !== undefined) next.postconditions = request.postconditions;
  if (request.suiteId !== undefined) next.suiteId = request.suiteId;
  if (request.status !== undefined) next.status = request.status;
  if (request.priority !== undefined) next.priority = request.priority;
  if (request.severity !== undefined) next.severity = request.severity;
  if (request.type !== undefined) next.type = request.type;
  if (request.layer !== undefined) next.layer = request.layer;
  if (request.behavior !== undefined) next.behavior = request.behavior;
  if (request.automationStatus !== undefined) next.automationStatus = request.automationStatus;
  if (request.stepFormat !== undefined) next.stepFormat = request.stepFormat;
  if (request.steps !== undefined) next.steps = stepsOf(request.steps, next.stepFormat);
  if (request.tags !== undefined) {
    const tags = tagsOf(request.tags);
    if (tags.length > MANUAL_LIMITS.tags) {
      throw new ValidationError(`tags: must be at most ${MANUAL_LIMITS.tags} tags`);
    }
    const long = tags.find((tag) => tag.length > MANUAL_LIMITS.tag);
    if (long) throw new ValidationError(`tags: each tag must be at most ${MANUAL_LIMITS.tag} characters`);
    next.tags = tags;
  }
  if (request.flags !== undefined) {
    next.toBeAutomated = request.flags.includes('To be Automated');
    next.isFlaky = request.flags.includes('Is flaky');
    next.isMuted = request.flags.includes('Muted');
  }
  keepAutomationAgreed(next, request);
  if (request.customFields !== undefined) {
    // Merged key by key; a key set to null is removed.
    const merged: Record<string, unknown> = { ...current.customFields, ...request.customFields };
    for (const [key, value] of Object.entries(merged)) if (value === null) delete merged[key];
    if (JSON.stringify(merged).length > MANUAL_LIMITS.customFieldsBytes) {
      throw new ValidationError(
        `customFields: must be at most ${MANUAL_LIMITS.customFieldsBytes} bytes of JSON once merged`,
      );
    }
    next.customFields = merged;
  }
  return next;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function commentsOf(request: CaseRequest, ids: string[]) {
  return (request.comments ?? []).map((text, i) => {
    const id = ids[i];
    if (id === undefined) throw new Error('a comment came without its id');
    return { id, text };
  });
}

export function decide(command: CaseCommand, state: CaseState): CaseEvent[] {
  switch (command.type) {
    case 'createCase': {
      if (state.status === 'exists') throw new ConflictError(`Case ${command.caseId} already exists`);
      const title = command.request.title ?? command.request.name;
      if (title === undefined) throw new ValidationError('title: is required');
      return [
        ManualCaseCreated.of({
          caseId: command.caseId,
          projectId: command.projectId,
          number: command.number,
          content: contentAfter(DEFAULT_CONTENT, command.request),
          comments: commentsOf(command.request, command.commentIds),
          issues: [...new Set(command.request.issues ?? [])],
          by: command.by,
          at: command.now.toISOString(),
        }),
      ];
    }
    case 'reviseCase': {
      if (state.status !== 'exists') throw new NotFoundError('Manual test case not found');
      const next = contentAfter(state.content, command.request);
      const set: Partial<CaseContent> = {};
      const previous: Partial<CaseContent> = {};
      for (const key of Object.keys(next) as (keyof CaseContent)[]) {
        if (!same(next[key], state.content[key])) {
          Object.assign(set, { [key]: next[key] });
          Object.assign(previous, { [key]: state.content[key] });
        }
      }
      const comments = commentsOf(command.request, command.commentIds);
      const issuesLinked = [...new Set(command.request.issues ?? [])].filter(
        (key) => !state.issues.includes(key),
      );
      const changed = Object.keys(set).length > 0;
      if (!changed && comments.length === 0 && issuesLinked.length === 0) return [];
      return [
        ManualCaseRevised.of({
          caseId: state.caseId,
          revision: changed ? state.revision + 1 : state.revision,
          set,
          previous,
          comments,
          issuesLinked,
          by: command.by,
          at: command.now.toISOString(),
        }),
      ];
    }
    case 'addAttachment': {
      if (state.status !== 'exists') throw new NotFoundError('Manual test case not found');
      if (keptAttachment(state.attachments, command.attachment.id)) {
        throw new ConflictError(`Attachment ${command.attachment.id} is already on this case`);
      }
      return [
        ManualCaseAttachmentAdded.of({
          caseId: state.caseId,
          attachment: command.attachment,
          by: command.by,
          at: command.now.toISOString(),
        }),
      ];
    }
    case 'removeAttachment': {
      if (state.status !== 'exists') throw new NotFoundError('Manual test case not found');
      const attachment = attachmentToRemove(
        state.attachments,
        command.attachmentId,
        'Attachment not found on this case',
      );
      if (!attachment) return [];
      return [
        ManualCaseAttachmentRemoved.of({
          caseId: state.caseId,
          attachment,
          by: command.by,
          at: command.now.toISOString(),
        }),
      ];
    }
  }
}

/** @example await writes.run(caseStream(caseId), caseDecider, command, { projectId }); */
export const caseDecider: Decider<CaseCommand, CaseEvent, CaseState> = {
  initialState,
  evolve,
  decide,
  parse: parseCaseEvent,
};
