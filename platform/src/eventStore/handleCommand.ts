import { VersionConflictError } from '../errors';
import type { AppendMetadata, EventStore, ExpectedVersion, StoredEvent } from './types';

/** An event as a decider emits it. `eventId` may come in with the command, to make retries idempotent. */
export interface DecidedEvent {
  type: string;
  version: number;
  data: unknown;
  eventId?: string;
}

/**
 * An aggregate as three pure functions: no I/O, no clock, no id generation (those come in the command).
 *
 * @example const runDecider: Decider<RunCommand, RunEvent, RunState> = { initialState, evolve, decide };
 */
export interface Decider<Command, Event extends DecidedEvent, State> {
  initialState(): State;
  evolve(state: State, event: Event): State;
  /** The events the command causes; throws a domain error (an AppError) to refuse it. */
  decide(command: Command, state: State): Event[];
  /**
   * Parses an event read back from the store into the decider's union (the contract's zod schemas). When
   * absent, stored events are trusted to be of the union, since this decider wrote them.
   */
  parse?(event: DecidedEvent): Event;
}

export interface HandleCommandResult<State> {
  /** The events appended (empty when the decider decided nothing). */
  events: StoredEvent[];
  /** The state after them. */
  state: State;
  /** The stream's version after the command. */
  nextExpectedVersion: number;
}

/** Retries after a version conflict, beyond the first attempt. */
const DEFAULT_RETRIES = 3;

function eventOfStored<Event extends DecidedEvent>(
  stored: StoredEvent,
  parse: ((event: DecidedEvent) => Event) | undefined,
): Event {
  const event: DecidedEvent = { type: stored.type, version: stored.version, data: stored.data };
  return parse ? parse(event) : (event as Event);
}

async function attempt<Command, Event extends DecidedEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  metadata: AppendMetadata,
): Promise<HandleCommandResult<State>> {
  const history = await store.readStream(streamId);
  let state = decider.initialState();
  for (const stored of history)
    state = decider.evolve(state, eventOfStored(stored, decider.parse?.bind(decider)));
  const version = history[history.length - 1]?.streamPosition ?? 0;
  const decided = decider.decide(command, state);
  if (decided.length === 0) return { events: [], state, nextExpectedVersion: version };
  const expectedVersion: ExpectedVersion = version === 0 ? 'no_stream' : version;
  const result = await store.append(
    streamId,
    decided.map(({ type, version: eventVersion, data, eventId }) => ({
      type,
      version: eventVersion,
      data,
      eventId,
    })),
    { ...metadata, expectedVersion },
  );
  for (const event of decided) state = decider.evolve(state, event);
  return { events: result.events, state, nextExpectedVersion: result.nextExpectedVersion };
}

/**
 * Loads a stream, folds it, decides, and appends at the version it loaded. When another writer got there
 * first (a VersionConflictError) it starts over on the fresh stream, up to `retries` more times (default 3);
 * any other error, a domain refusal included, goes straight to the caller.
 *
 * @example const { events } = await handleCommand(store, `run-${runId}`, runDecider, { type: 'start', runId, now }, { projectId });
 */
export async function handleCommand<Command, Event extends DecidedEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  metadata: AppendMetadata = {},
  options: { retries?: number } = {},
): Promise<HandleCommandResult<State>> {
  const retries = options.retries ?? DEFAULT_RETRIES;
  for (let tries = 0; ; tries += 1) {
    try {
      return await attempt(store, streamId, decider, command, metadata);
    } catch (error) {
      if (!(error instanceof VersionConflictError) || tries >= retries) throw error;
    }
  }
}
