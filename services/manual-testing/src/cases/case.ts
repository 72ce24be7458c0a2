/**
 * The manual test case aggregate (stream `mt-case-<id>`): its events, its state and evolve(). The state
 * keeps the whole current content, so that a revision can record each changed field's value before and
 * after, and the revision number that run cases pin. It keeps every attachment ever added, a removed one
 * marked, so a removal is recorded once and answered again.
 */
import {
  ManualCaseAttachmentAdded,
  ManualCaseAttachmentRemoved,
  ManualCaseCreated,
  ManualCaseRevised,
  parseManualTestingEvent,
  type CaseContent,
  type ManualCaseEvent,
} from '@verdict/contracts';
import { keptAfter, type KeptAttachment } from '../shared/attachments';

export type CaseEvent = ManualCaseEvent;

export type CaseState =
  | { status: 'none' }
  | {
      status: 'exists';
      caseId: string;
      projectId: string;
      number: number;
      content: CaseContent;
      revision: number;
      issues: string[];
      attachments: KeptAttachment[];
    };

export const caseStream = (caseId: string): string => `mt-case-${caseId}`;

export function initialState(): CaseState {
  return { status: 'none' };
}

export function evolve(state: CaseState, event: CaseEvent): CaseState {
  switch (event.type) {
    case 'manual-case.created':
      return {
        status: 'exists',
        caseId: event.data.caseId,
        projectId: event.data.projectId,
        number: event.data.number,
        content: event.data.content,
        revision: 1,
        issues: event.data.issues,
        attachments: [],
      };
    case 'manual-case.revised':
      if (state.status !== 'exists') return state;
      return {
        ...state,
        content: { ...state.content, ...event.data.set },
        revision: event.data.revision,
        issues: [...state.issues, ...event.data.issuesLinked],
      };
    case 'manual-case.attachment-added':
    case 'manual-case.attachment-removed': {
      if (state.status !== 'exists') return state;
      const removed = event.type === 'manual-case.attachment-removed';
      return { ...state, attachments: keptAfter(state.attachments, event.data.attachment, removed) };
    }
  }
}

/** Parses a stored event of a case stream. */
export function parseCaseEvent(event: { type: string; version: number; data: unknown }): CaseEvent {
  const parsed = parseManualTestingEvent(event);
  if (
    parsed.type === ManualCaseCreated.type ||
    parsed.type === ManualCaseRevised.type ||
    parsed.type === ManualCaseAttachmentAdded.type ||
    parsed.type === ManualCaseAttachmentRemoved.type
  ) {
    return parsed;
  }
  throw new Error(`${parsed.type} does not belong to a case stream`);
}
