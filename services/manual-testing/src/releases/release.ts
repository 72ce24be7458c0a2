/** The release (milestone) aggregate, MS-<n> (stream `mt-release-<id>`). */
import {
  ManualReleaseCreated,
  ManualReleaseUpdated,
  parseManualTestingEvent,
  type ManualReleaseEvent,
  type ReleaseStatus,
} from '@verdict/contracts';
import { ConflictError, NotFoundError, ValidationError, type Decider } from '@verdict/platform';

export type ReleaseEvent = ManualReleaseEvent;
export interface ReleaseFields {
  name: string;
  description: string;
  startDate: string | null;
  dueDate: string | null;
  status: ReleaseStatus;
}
export type ReleaseState =
  { status: 'none' } | { status: 'exists'; releaseId: string; fields: ReleaseFields };

export type ReleaseCommand =
  | {
      type: 'createRelease';
      releaseId: string;
      projectId: string;
      number: number;
      fields: ReleaseFields;
      by: string;
      now: Date;
    }
  | { type: 'updateRelease'; set: Partial<ReleaseFields>; by: string; now: Date };

export const releaseStream = (releaseId: string): string => `mt-release-${releaseId}`;

const DAY_MS = 86_400_000;

/**
 * The instant a release date stands for: an instant is itself; a calendar day starts at its first
 * millisecond (UTC) as a start date and ends at its last as a due date, so a release may be due the day
 * it starts.
 */
function instantOf(value: string, edge: 'start' | 'end'): number {
  if (value.length > 10) return Date.parse(value);
  const midnight = Date.parse(`${value}T00:00:00.000Z`);
  return edge === 'start' ? midnight : midnight + DAY_MS - 1;
}

/** A due date before the start date is refused, whichever of the two the change moves. */
export function checkDates(fields: ReleaseFields): void {
  const { startDate, dueDate } = fields;
  if (startDate === null || dueDate === null) return;
  if (instantOf(dueDate, 'end') < instantOf(startDate, 'start')) {
    throw new ValidationError('dueDate: must not be before startDate');
  }
}

export function evolve(state: ReleaseState, event: ReleaseEvent): ReleaseState {
  switch (event.type) {
    case 'manual-release.created':
      return { status: 'exists', releaseId: event.data.releaseId, fields: event.data.fields };
    case 'manual-release.updated':
      return state.status === 'none' ? state : { ...state, fields: { ...state.fields, ...event.data.set } };
  }
}

export function decide(command: ReleaseCommand, state: ReleaseState): ReleaseEvent[] {
  const at = command.now.toISOString();
  if (command.type === 'createRelease') {
    if (state.status !== 'none') throw new ConflictError(`Release ${command.releaseId} already exists`);
    checkDates(command.fields);
    const { releaseId, projectId, number, fields, by } = command;
    return [ManualReleaseCreated.of({ releaseId, projectId, number, fields, by, at })];
  }
  if (state.status !== 'exists') throw new NotFoundError('Release not found');
  const set = Object.fromEntries(
    Object.entries(command.set).filter(
      ([key, value]) => value !== undefined && value !== state.fields[key as keyof ReleaseFields],
    ),
  );
  if (Object.keys(set).length === 0) return [];
  checkDates({ ...state.fields, ...set });
  return [ManualReleaseUpdated.of({ releaseId: state.releaseId, set, by: command.by, at })];
}

export const releaseDecider: Decider<ReleaseCommand, ReleaseEvent, ReleaseState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
  parse: (event) => {
    const parsed = parseManualTestingEvent(event);
    if (parsed.type.startsWith('manual-release.')) return parsed as ReleaseEvent;
    throw new Error(`${parsed.type} does not belong to a release stream`);
  },
};
