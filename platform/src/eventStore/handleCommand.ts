import { ConflictError, ServiceUnavailableError, VersionConflictError } from '../errors';
import type { AppendMetadata, EventStore, ExpectedVersion, NewEvent, StoredEvent } from './types';

/**
 * The one way a service turns a command into events: load a stream, fold it, decide, append, and retry
 * only when another writer got there first. A command handler also wakes the outbox relay after an append
 * and, for read-your-writes, waits until the service's read model shows the change. The options cover what
 * the ingest hot path needs beyond the plain case (emmett's CommandHandler has the same): appending what
 * was decided on one stream to another, without a version check, skipping the events already stored.
 */

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
  /** The events appended, or found stored by an earlier append they repeat (empty when none was decided). */
  events: StoredEvent[];
  /** The state of the decided stream after the command. */
  state: State;
  /** The decided stream's version after the command. */
  nextExpectedVersion: number;
}

export interface HandleOptions {
  metadata?: AppendMetadata;
  /** Attempts after the first when another writer got there first (default 3). */
  retries?: number;
  /**
   * Appends what was decided to another stream than the one decided on (a run's results, decided on the
   * run's lifecycle and kept in streams of their own). The target's version is not known: such an append
   * is made with `expectedVersion: 'any'`.
   */
  appendTo?: (events: readonly DecidedEvent[]) => string;
  /**
   * Drops the decided events whose ids are already stored before appending (a batch sent again appends
   * only what is new), and appends again when a concurrent writer stored some of them first. Needs events
   * whose ids derive from their content.
   */
  skipKnownEvents?: boolean;
  /**
   * Folds the stream only from this version on: for a decider whose state depends on the stream's tail
   * alone (a counter, whose last event holds the last number), so a long stream is not read again.
   */
  fromVersion?: number;
  /** Waits for the read model after this command (default: whenever the handler has one). */
  readYourWrites?: boolean;
}

export interface CommandHandlerOptions {
  store: EventStore;
  /** Called after every append that recorded events: wakes the outbox relay at once. */
  onAppended?(): void;
  /**
   * Read-your-writes over an asynchronous projection: resolves once the read model shows the stream at
   * the version (waitForProjection). Called after a command whatever it appended: an identical command
   * may have appended moments ago.
   */
  waitForReadModel?(streamId: string, version: number): Promise<void>;
}

export interface CommandHandler {
  /** Decides `command` on `streamId` and appends what it decides; see HandleOptions for the variants. */
  handle<Command, Event extends DecidedEvent, State>(
    streamId: string,
    decider: Decider<Command, Event, State>,
    command: Command,
    options?: HandleOptions,
  ): Promise<HandleCommandResult<State>>;
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

/**
 * A stream folded by a decider: its state and version, without deciding anything. `fromVersion` folds
 * only the tail (see HandleOptions.fromVersion).
 *
 * @example const { state } = await aggregateStream(store, runStream(runId), runDecider);
 */
export async function aggregateStream<Event extends DecidedEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<never, Event, State>, 'initialState' | 'evolve' | 'parse'>,
  fromVersion = 1,
): Promise<{ state: State; version: number }> {
  const history = await store.readStream(streamId, fromVersion > 1 ? { fromVersion } : {});
  let state = decider.initialState();
  for (const stored of history)
    state = decider.evolve(state, eventOfStored(stored, decider.parse?.bind(decider)));
  return { state, version: history.at(-1)?.streamPosition ?? Math.max(0, fromVersion - 1) };
}

const toNewEvents = (events: readonly DecidedEvent[]): NewEvent[] =>
  events.map(({ type, version, data, eventId }) => ({ type, version, data, eventId }));

/**
 * A command handler over an event store.
 *
 * @example const commands = createCommandHandler({ store, onAppended: () => relay.notify() }); await commands.handle(runStream(runId), runDecider, command, { metadata: { projectId } });
 */
export function createCommandHandler(options: CommandHandlerOptions): CommandHandler {
  const { store } = options;

  /** Appends the events not stored yet; a concurrent writer storing some of them first is raced again. */
  async function appendNew(
    streamId: string,
    events: NewEvent[],
    metadata: AppendMetadata,
    retries: number,
  ): Promise<StoredEvent[]> {
    let pending = events;
    for (let tries = 0; ; tries += 1) {
      const stored = await store.existingEventIds(pending.map((event) => event.eventId ?? ''));
      pending = pending.filter((event) => !stored.has(event.eventId ?? ''));
      if (pending.length === 0) return [];
      try {
        return (await store.append(streamId, pending, { ...metadata, expectedVersion: 'any' })).events;
      } catch (error) {
        const raced = error instanceof ConflictError || error instanceof VersionConflictError;
        if (!raced || tries >= retries) throw error;
      }
    }
  }

  async function attempt<Command, Event extends DecidedEvent, State>(
    streamId: string,
    decider: Decider<Command, Event, State>,
    command: Command,
    handleOptions: HandleOptions,
  ): Promise<HandleCommandResult<State>> {
    const metadata = handleOptions.metadata ?? {};
    const loaded = await aggregateStream(store, streamId, decider, handleOptions.fromVersion);
    let { state } = loaded;
    const decided = decider.decide(command, state);
    if (decided.length === 0) return { events: [], state, nextExpectedVersion: loaded.version };
    const target = handleOptions.appendTo?.(decided) ?? streamId;
    if (handleOptions.skipKnownEvents) {
      const events = await appendNew(
        target,
        toNewEvents(decided),
        metadata,
        handleOptions.retries ?? DEFAULT_RETRIES,
      );
      return { events, state, nextExpectedVersion: loaded.version };
    }
    const expectedVersion: ExpectedVersion =
      target !== streamId ? 'any' : loaded.version === 0 ? 'no_stream' : loaded.version;
    const result = await store.append(target, toNewEvents(decided), { ...metadata, expectedVersion });
    if (target !== streamId) return { events: result.events, state, nextExpectedVersion: loaded.version };
    for (const event of decided) state = decider.evolve(state, event);
    return { events: result.events, state, nextExpectedVersion: result.nextExpectedVersion };
  }

  return {
    async handle(streamId, decider, command, handleOptions = {}) {
      const retries = handleOptions.retries ?? DEFAULT_RETRIES;
      let result: HandleCommandResult<unknown>;
      for (let tries = 0; ; tries += 1) {
        try {
          result = await attempt(streamId, decider, command, handleOptions);
          break;
        } catch (error) {
          if (!(error instanceof VersionConflictError) || tries >= retries) throw error;
        }
      }
      if (result.events.length > 0) options.onAppended?.();
      if (options.waitForReadModel && handleOptions.readYourWrites !== false) {
        await options.waitForReadModel(streamId, result.nextExpectedVersion);
      }
      return result as HandleCommandResult<never>;
    },
  };
}

/**
 * Loads a stream, folds it, decides, and appends at the version it loaded. When another writer got there
 * first (a VersionConflictError) it starts over on the fresh stream, up to `retries` more times (default 3);
 * any other error, a domain refusal included, goes straight to the caller. A service's handler (with its
 * relay and read model) is createCommandHandler; this is its plain case.
 *
 * @example const { events } = await handleCommand(store, `run-${runId}`, runDecider, { type: 'start', runId, now }, { projectId });
 */
export function handleCommand<Command, Event extends DecidedEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  metadata: AppendMetadata = {},
  options: { retries?: number } = {},
): Promise<HandleCommandResult<State>> {
  return createCommandHandler({ store }).handle(streamId, decider, command, { metadata, ...options });
}

export interface NumberAllocatorOptions<Command, Event extends DecidedEvent, State> {
  /** The counter's decider: the next number after the last, with an event id derived from what is numbered. */
  decider: Decider<Command, Event, State>;
  /** The number an allocation event holds. */
  numberOf(event: StoredEvent): number;
  /** Attempts before a retriable 503 (default 200): enough for hundreds of concurrent creators. */
  attempts?: number;
}

export interface NumberAllocator<Command> {
  /** The number `command` is given on counter stream `streamId`: the next one, or the one it got before. */
  allocate(streamId: string, command: Command, metadata?: AppendMetadata): Promise<number>;
}

/**
 * Counter-style numbers (run #7, TC-12), per counter stream, never reused. Each number is one event
 * appended at the version it was decided on, so two writers never take the same one: the loser of a race
 * decides again on the winner's number. The event id derives from what is numbered, so numbering it again
 * (a retried request) finds its number instead of taking a second one. The allocator remembers the last
 * version it saw per stream and folds only from there: the stream's version is its last number.
 *
 * @example const runNumbers = createNumberAllocator(commands, { decider: counterDecider, numberOf: (e) => RunCounterAllocated.parse(e).counter }); await runNumbers.allocate(counterStream(projectId), { type: 'allocateCounter', runId });
 */
export function createNumberAllocator<Command, Event extends DecidedEvent, State>(
  commands: CommandHandler,
  options: NumberAllocatorOptions<Command, Event, State>,
): NumberAllocator<Command> {
  const known = new Map<string, number>();
  const attempts = options.attempts ?? 200;
  return {
    async allocate(streamId, command, metadata = {}) {
      for (let attempt = 1; attempt <= attempts; attempt += 1) {
        try {
          const { events } = await commands.handle(streamId, options.decider, command, {
            metadata,
            retries: 0,
            fromVersion: known.get(streamId) ?? 1,
            readYourWrites: false,
          });
          const [stored] = events;
          if (!stored) throw new Error(`No number was allocated on ${streamId}`);
          known.set(streamId, Math.max(known.get(streamId) ?? 1, stored.streamPosition));
          return options.numberOf(stored);
        } catch (error) {
          if (!(error instanceof VersionConflictError)) throw error;
          known.set(streamId, Math.max(1, error.actualVersion));
        }
      }
      throw new ServiceUnavailableError(`Too many concurrent creations on ${streamId}; retry`);
    },
  };
}
