/**
 * The manual suite aggregate (stream `mt-suite-<id>`). Suites nest through `parentId`; whether a parent
 * exists and whether a move would make a cycle is checked against the read model before the command, so
 * the decider only guards its own lifecycle: a deleted suite takes no more changes.
 */
import {
  ManualSuiteCreated,
  ManualSuiteDeleted,
  ManualSuiteUpdated,
  parseManualTestingEvent,
  type ManualSuiteEvent,
} from '@verdict/contracts';
import { ConflictError, NotFoundError, type Decider } from '@verdict/platform';

export type SuiteEvent = ManualSuiteEvent;
interface SuiteFields {
  name: string;
  description: string;
  parentId: string | null;
}
export type SuiteState =
  { status: 'none' } | { status: 'exists' | 'deleted'; suiteId: string; fields: SuiteFields };

export type SuiteCommand =
  | {
      type: 'createSuite';
      suiteId: string;
      projectId: string;
      fields: SuiteFields;
      by: string;
      now: Date;
    }
  | { type: 'updateSuite'; set: Partial<SuiteFields>; by: string; now: Date }
  | { type: 'deleteSuite'; by: string; now: Date };

export const suiteStream = (suiteId: string): string => `mt-suite-${suiteId}`;

export function evolve(state: SuiteState, event: SuiteEvent): SuiteState {
  switch (event.type) {
    case 'manual-suite.created':
      return { status: 'exists', suiteId: event.data.suiteId, fields: event.data.fields };
    case 'manual-suite.updated':
      return state.status === 'none' ? state : { ...state, fields: { ...state.fields, ...event.data.set } };
    case 'manual-suite.deleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
  }
}

export function decide(command: SuiteCommand, state: SuiteState): SuiteEvent[] {
  const at = command.now.toISOString();
  if (command.type === 'createSuite') {
    if (state.status !== 'none') throw new ConflictError(`Suite ${command.suiteId} already exists`);
    return [
      ManualSuiteCreated.of({
        suiteId: command.suiteId,
        projectId: command.projectId,
        fields: command.fields,
        by: command.by,
        at,
      }),
    ];
  }
  if (state.status !== 'exists') throw new NotFoundError('Manual suite not found');
  if (command.type === 'deleteSuite') {
    return [ManualSuiteDeleted.of({ suiteId: state.suiteId, by: command.by, at })];
  }
  const set = Object.fromEntries(
    Object.entries(command.set).filter(
      ([key, value]) => value !== undefined && value !== state.fields[key as keyof SuiteFields],
    ),
  );
  if (Object.keys(set).length === 0) return [];
  return [ManualSuiteUpdated.of({ suiteId: state.suiteId, set, by: command.by, at })];
}

export const suiteDecider: Decider<SuiteCommand, SuiteEvent, SuiteState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
  parse: (event) => {
    const parsed = parseManualTestingEvent(event);
    if (parsed.type.startsWith('manual-suite.')) return parsed as SuiteEvent;
    throw new Error(`${parsed.type} does not belong to a suite stream`);
  },
};
