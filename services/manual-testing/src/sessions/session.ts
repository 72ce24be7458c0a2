/** The exploratory session aggregate (stream `mt-session-<id>`), API.md "sessions". */
import {
  ManualSessionCreated,
  ManualSessionUpdated,
  parseManualTestingEvent,
  type ManualSessionEvent,
  type SessionFields,
} from '@verdict/contracts';
import { ConflictError, NotFoundError, ValidationError, type Decider } from '@verdict/platform';

export type SessionEvent = ManualSessionEvent;
export type SessionState =
  { status: 'none' } | { status: 'exists'; sessionId: string; fields: SessionFields };

export type SessionCommand =
  | {
      type: 'createSession';
      sessionId: string;
      projectId: string;
      fields: SessionFields;
      by: string;
      now: Date;
    }
  | { type: 'updateSession'; set: Partial<SessionFields>; by: string; now: Date };

export const sessionStream = (sessionId: string): string => `mt-session-${sessionId}`;

const ORDER = { planned: 0, in_progress: 1, completed: 2 } as const;

export function evolve(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'manual-session.created':
      return { status: 'exists', sessionId: event.data.sessionId, fields: event.data.fields };
    case 'manual-session.updated':
      return state.status === 'none' ? state : { ...state, fields: { ...state.fields, ...event.data.set } };
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function decide(command: SessionCommand, state: SessionState): SessionEvent[] {
  const at = command.now.toISOString();
  if (command.type === 'createSession') {
    if (state.status !== 'none') throw new ConflictError(`Session ${command.sessionId} already exists`);
    const { sessionId, projectId, fields, by } = command;
    return [ManualSessionCreated.of({ sessionId, projectId, fields, by, at })];
  }
  if (state.status !== 'exists') throw new NotFoundError('Session not found');
  const set = Object.fromEntries(
    Object.entries(command.set).filter(
      ([key, value]) => value !== undefined && !same(value, state.fields[key as keyof SessionFields]),
    ),
  ) as Partial<SessionFields>;
  // A completed session is a record of what was explored: it is not reopened, only annotated.
  if (set.status !== undefined && ORDER[set.status] < ORDER[state.fields.status]) {
    throw new ValidationError(
      `status: a session cannot go back from ${state.fields.status} to ${set.status}`,
    );
  }
  if (Object.keys(set).length === 0) return [];
  return [ManualSessionUpdated.of({ sessionId: state.sessionId, set, by: command.by, at })];
}

export const sessionDecider: Decider<SessionCommand, SessionEvent, SessionState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
  parse: (event) => {
    const parsed = parseManualTestingEvent(event);
    if (parsed.type.startsWith('manual-session.')) return parsed as SessionEvent;
    throw new Error(`${parsed.type} does not belong to a session stream`);
  },
};
