import { ConflictError, VersionConflictError } from '../errors';
import type { Decider } from './handleCommand';
import { handleCommand } from './handleCommand';
import type {
  AppendMetadata,
  AppendResult,
  EventStore,
  ExpectedVersion,
  NewEvent,
  StoredEvent,
} from './types';

// handleCommand's own logic: fold, decide, append at the loaded version, retry only on a version conflict.
// The store here is a hand-rolled fake that can be told to lose races; the real stores are covered by the
// contract suite in eventStore.int.test.ts.

type CounterEvent = { type: 'counter.added'; version: 1; data: { by: number }; eventId?: string };
type CounterCommand = { add: number; eventId?: string };

const counter: Decider<CounterCommand, CounterEvent, number> = {
  initialState: () => 0,
  evolve: (total, event) => total + event.data.by,
  decide: (command) => {
    if (command.add === 0) return [];
    if (command.add < 0) throw new ConflictError('A counter only goes up');
    return [{ type: 'counter.added', version: 1, data: { by: command.add }, eventId: command.eventId }];
  },
};

interface AppendCall {
  streamId: string;
  events: NewEvent[];
  options: { expectedVersion: ExpectedVersion } & AppendMetadata;
}

/**
 * A fake EventStore for handleCommand's unit tests only. Keeps streams in memory; `loseRaces(n)` makes the
 * next n appends find that another writer (`rival`) got there first.
 */
class RacingEventStoreFake implements EventStore {
  readonly appends: AppendCall[] = [];
  readonly reads: string[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private racesToLose = 0;
  private failure: Error | undefined;
  private position = 0;

  loseRaces(count: number): this {
    this.racesToLose = count;
    return this;
  }

  failWith(error: Error): this {
    this.failure = error;
    return this;
  }

  seed(streamId: string, events: NewEvent[]): this {
    for (const event of events) this.store(streamId, event, {});
    return this;
  }

  async init(): Promise<void> {}

  async readStream(streamId: string): Promise<StoredEvent[]> {
    this.reads.push(streamId);
    return [...(this.streams.get(streamId) ?? [])];
  }

  async readAll(): Promise<never> {
    throw new Error('not used by handleCommand');
  }

  async readAllSerialized(): Promise<never> {
    throw new Error('not used by handleCommand');
  }

  async existingEventIds(): Promise<never> {
    throw new Error('not used by handleCommand');
  }

  async append(
    streamId: string,
    events: NewEvent[],
    options: { expectedVersion: ExpectedVersion } & AppendMetadata,
  ): Promise<AppendResult> {
    this.appends.push({ streamId, events, options });
    if (this.failure) throw this.failure;
    if (this.racesToLose > 0) {
      this.racesToLose -= 1;
      this.store(streamId, { type: 'counter.added', version: 1, data: { by: 100 } }, {});
    }
    const version = this.streams.get(streamId)?.length ?? 0;
    const expected = options.expectedVersion === 'no_stream' ? 0 : options.expectedVersion;
    if (expected !== 'any' && expected !== version) {
      throw new VersionConflictError(streamId, options.expectedVersion, version);
    }
    const stored = events.map((event) => this.store(streamId, event, options));
    return { nextExpectedVersion: stored[stored.length - 1]?.streamPosition ?? version, events: stored };
  }

  private store(streamId: string, event: NewEvent, metadata: AppendMetadata): StoredEvent {
    const stream = this.streams.get(streamId) ?? [];
    this.position += 1;
    const stored: StoredEvent = {
      eventId: event.eventId ?? `event-${this.position}`,
      type: event.type,
      version: event.version,
      streamId,
      streamPosition: stream.length + 1,
      globalPosition: this.position,
      occurredAt: '2026-01-01T00:00:00.000Z',
      correlationId: metadata.correlationId ?? null,
      causationId: metadata.causationId ?? null,
      projectId: metadata.projectId ?? null,
      data: event.data,
    };
    this.streams.set(streamId, [...stream, stored]);
    return stored;
  }
}

const added = (by: number): NewEvent => ({ type: 'counter.added', version: 1, data: { by } });

describe('handleCommand', () => {
  it("when the stream is empty, then it appends with 'no_stream' and returns the events and the new state", async () => {
    const store = new RacingEventStoreFake();
    const result = await handleCommand(
      store,
      'counter-1',
      counter,
      { add: 2 },
      { projectId: 'p1', correlationId: 'r1' },
    );

    expect(store.appends).toHaveLength(1);
    expect(store.appends[0]?.options).toEqual({
      expectedVersion: 'no_stream',
      projectId: 'p1',
      correlationId: 'r1',
    });
    expect(result.state).toBe(2);
    expect(result.nextExpectedVersion).toBe(1);
    expect(result.events).toMatchObject([
      { type: 'counter.added', data: { by: 2 }, streamPosition: 1, projectId: 'p1' },
    ]);
  });

  it('when the stream has events, then it folds them and appends at the last position', async () => {
    const store = new RacingEventStoreFake().seed('counter-1', [added(1), added(2)]);
    const result = await handleCommand(store, 'counter-1', counter, { add: 3 });

    expect(store.appends[0]?.options.expectedVersion).toBe(2);
    expect(result.state).toBe(6);
    expect(result.nextExpectedVersion).toBe(3);
  });

  it('when the decider decides nothing, then nothing is appended and the current version is returned', async () => {
    const store = new RacingEventStoreFake().seed('counter-1', [added(5)]);
    const result = await handleCommand(store, 'counter-1', counter, { add: 0 });

    expect(store.appends).toEqual([]);
    expect(result).toEqual({ events: [], state: 5, nextExpectedVersion: 1 });
  });

  it('when the command brings an event id, then it reaches the store so a repeated command is idempotent', async () => {
    const store = new RacingEventStoreFake();
    await handleCommand(store, 'counter-1', counter, { add: 1, eventId: 'command-42' });
    expect(store.appends[0]?.events[0]?.eventId).toBe('command-42');
  });

  it('when another writer gets there first twice, then it reloads, decides on the fresh state and succeeds', async () => {
    const store = new RacingEventStoreFake().seed('counter-1', [added(1)]).loseRaces(2);
    const result = await handleCommand(store, 'counter-1', counter, { add: 1 });

    expect(store.appends.map((call) => call.options.expectedVersion)).toEqual([1, 2, 3]);
    expect(store.reads).toHaveLength(3);
    expect(result.state).toBe(1 + 100 + 100 + 1);
    expect(result.nextExpectedVersion).toBe(4);
  });

  it('when the conflicts outlast the retries, then the last VersionConflictError reaches the caller after 1 + 3 attempts', async () => {
    const store = new RacingEventStoreFake().loseRaces(10);
    const error = await handleCommand(store, 'counter-1', counter, { add: 1 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(VersionConflictError);
    expect(error).toMatchObject({ actualVersion: 4 });
    expect(store.appends).toHaveLength(4);
  });

  it('when retries are set, then that many retries follow the first attempt', async () => {
    const store = new RacingEventStoreFake().loseRaces(10);
    await expect(
      handleCommand(store, 'counter-1', counter, { add: 1 }, {}, { retries: 0 }),
    ).rejects.toBeInstanceOf(VersionConflictError);
    expect(store.appends).toHaveLength(1);
  });

  it('when the decider refuses the command, then the refusal reaches the caller without a retry or an append', async () => {
    const store = new RacingEventStoreFake();
    await expect(handleCommand(store, 'counter-1', counter, { add: -1 })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(store.reads).toHaveLength(1);
    expect(store.appends).toEqual([]);
  });

  it('when the store fails otherwise, then the error reaches the caller without a retry', async () => {
    const down = new Error('connection refused');
    const store = new RacingEventStoreFake().failWith(down);
    await expect(handleCommand(store, 'counter-1', counter, { add: 1 })).rejects.toBe(down);
    expect(store.appends).toHaveLength(1);
  });

  it('when the decider parses stored events, then evolve sees the parsed events', async () => {
    const store = new RacingEventStoreFake().seed('counter-1', [
      { type: 'counter.added', version: 1, data: { by: '4' } },
    ]);
    const parsing: Decider<CounterCommand, CounterEvent, number> = {
      ...counter,
      parse: (event) => ({
        type: 'counter.added',
        version: 1,
        data: { by: Number((event.data as { by: unknown }).by) },
      }),
    };
    const result = await handleCommand(store, 'counter-1', parsing, { add: 1 });
    expect(result.state).toBe(5);
  });
});
