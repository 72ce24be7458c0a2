/**
 * Run numbers: 1, 2, 3… per project, never reused. One stream per project holds one run.counter-allocated
 * per run, appended at the version it was decided on, so two runs can never take the same number: the
 * loser of a race decides again on the winner's number. The allocation's event id derives from the run
 * id, so allocating again for the same run (a start retried after a crash) finds its number instead of
 * taking a second one. The stream's version is the last number, so a reader that knows an earlier version
 * reads only what came after it.
 */
import { RunCounterAllocated, parseTestResultsEvent, type EventOf } from '@verdict/contracts';
import { derivedId, type Decider } from '@verdict/platform';

export type CounterEvent = EventOf<typeof RunCounterAllocated> & { eventId?: string };

export interface CounterState {
  /** The last number allocated; 0 before the first run. */
  last: number;
}

export interface AllocateCounter {
  type: 'allocateCounter';
  runId: string;
}

export const counterStream = (projectId: string): string => `project-run-counter-${projectId}`;

/** The id of the allocation for this run: one allocation per run, whoever asks and however often. */
export const counterEventId = (runId: string): string => derivedId('run-counter', runId);

export function initialState(): CounterState {
  return { last: 0 };
}

export function evolve(state: CounterState, event: CounterEvent): CounterState {
  return { last: Math.max(state.last, event.data.counter) };
}

export function decide(command: AllocateCounter, state: CounterState): CounterEvent[] {
  const allocated = RunCounterAllocated.of({ runId: command.runId, counter: state.last + 1 });
  return [{ ...allocated, eventId: counterEventId(command.runId) }];
}

/**
 * Parses an event of a counter stream read back from the store.
 *
 * @example const allocated = parseCounterEvent({ type: stored.type, version: stored.version, data: stored.data });
 */
export function parseCounterEvent(event: { type: string; version: number; data: unknown }): CounterEvent {
  const parsed = parseTestResultsEvent(event);
  if (parsed.type === 'run.counter-allocated') return parsed;
  throw new Error(`${parsed.type} does not belong to a run counter stream`);
}

/**
 * The run counter decider.
 *
 * @example const [allocated] = counterDecider.decide({ type: 'allocateCounter', runId }, state);
 */
export const counterDecider: Decider<AllocateCounter, CounterEvent, CounterState> = {
  initialState,
  evolve,
  decide,
  parse: parseCounterEvent,
};
