import { ConflictError, ServiceUnavailableError } from '../errors';
import { derivedId } from '../ids';
import type { SqlDatabase } from '../sql/types';
import { testDatabases } from '../testing/databases';
import { uniqueName } from '../testing/env';
import { createCommandHandler, createNumberAllocator, type Decider } from './handleCommand';
import { createSqlEventStore } from './sqlEventStore';
import type { EventStore, StoredEvent } from './types';

// The command handler's variants on real stores (PGlite and PostgreSQL): what the ingest hot path needs
// (decided on one stream, appended to another without a version check, known events skipped), the
// counters, and the relay wake-up and read-your-writes wait around every command.

type BoardEvent =
  | { type: 'board.opened'; version: 1; data: { name: string }; eventId?: string }
  | { type: 'board.closed'; version: 1; data: Record<string, never>; eventId?: string }
  | { type: 'note.added'; version: 1; data: { text: string }; eventId?: string };
type BoardCommand =
  { type: 'open'; name: string } | { type: 'close' } | { type: 'addNotes'; boardId: string; texts: string[] };
type BoardState = { status: 'none' } | { status: 'open' | 'closed'; name: string };

const board: Decider<BoardCommand, BoardEvent, BoardState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'board.opened') return { status: 'open', name: event.data.name };
    if (event.type === 'board.closed' && state.status !== 'none') return { ...state, status: 'closed' };
    return state;
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'open':
        return state.status === 'none'
          ? [{ type: 'board.opened', version: 1, data: { name: command.name } }]
          : [];
      case 'close':
        return state.status === 'open' ? [{ type: 'board.closed', version: 1, data: {} }] : [];
      case 'addNotes':
        if (state.status !== 'open') throw new ConflictError('The board is not open');
        // Ids named by content: the same note sent again is the same event.
        return command.texts.map((text) => ({
          type: 'note.added',
          version: 1,
          data: { text },
          eventId: derivedId(command.boardId, text),
        }));
    }
  },
};

type Counted = { type: 'counted'; version: 1; data: { entity: string; number: number }; eventId?: string };
const counter: Decider<{ entity: string }, Counted, { last: number }> = {
  initialState: () => ({ last: 0 }),
  evolve: (state, event) => ({ last: Math.max(state.last, event.data.number) }),
  decide: ({ entity }, { last }) => [
    {
      type: 'counted',
      version: 1,
      data: { entity, number: last + 1 },
      eventId: derivedId('counted', entity),
    },
  ],
};
const numberOf = (event: StoredEvent) => (event.data as Counted['data']).number;

describe.each(testDatabases({ postgresPoolSize: 16 }))('command handler on $name', ({ open }) => {
  let db: SqlDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    store = createSqlEventStore({ db, schema: uniqueName('ch') });
    await store.init();
  });

  it('when a command appends, then the relay is woken and the read model awaited at the new version; when it decides nothing, then only awaited', async () => {
    const woken: number[] = [];
    const awaited: [string, number][] = [];
    const commands = createCommandHandler({
      store,
      onAppended: () => woken.push(1),
      waitForReadModel: async (streamId, version) => {
        awaited.push([streamId, version]);
      },
    });
    await commands.handle('board-1', board, { type: 'open', name: 'Roadmap' });
    await commands.handle('board-1', board, { type: 'open', name: 'Roadmap' });
    await commands.handle('board-1', board, { type: 'close' }, { readYourWrites: false });
    expect(woken).toHaveLength(2);
    expect(awaited).toEqual([
      ['board-1', 1],
      ['board-1', 1],
    ]);
  });

  it('when an addition is appended to another stream, then it is decided on the first and appended without a version check', async () => {
    const commands = createCommandHandler({ store });
    await commands.handle('board-1', board, { type: 'open', name: 'Roadmap' });
    const first = await commands.handle(
      'board-1',
      board,
      { type: 'addNotes', boardId: 'board-1', texts: ['a', 'b'] },
      { appendTo: () => 'board-1-notes', metadata: { projectId: 'p1' } },
    );
    expect(first.events.map((event) => [event.streamId, event.streamPosition, event.projectId])).toEqual([
      ['board-1-notes', 1, 'p1'],
      ['board-1-notes', 2, 'p1'],
    ]);
    // The decided stream is untouched: its version is still the open.
    expect(first.nextExpectedVersion).toBe(1);
    expect(await store.readStream('board-1')).toHaveLength(1);
  });

  it('when the decided stream refuses the addition, then nothing is appended and the refusal reaches the caller', async () => {
    const commands = createCommandHandler({ store });
    const refused = commands.handle(
      'board-9',
      board,
      { type: 'addNotes', boardId: 'board-9', texts: ['a'] },
      { appendTo: () => 'board-9-notes', skipKnownEvents: true },
    );
    await expect(refused).rejects.toMatchObject({ code: 'CONFLICT', message: 'The board is not open' });
    expect(await store.readStream('board-9-notes')).toEqual([]);
  });

  it('when a batch is sent again with known events skipped, then only its new events are appended', async () => {
    const commands = createCommandHandler({ store });
    await commands.handle('board-1', board, { type: 'open', name: 'Roadmap' });
    const add = (texts: string[]) =>
      commands.handle(
        'board-1',
        board,
        { type: 'addNotes', boardId: 'board-1', texts },
        { appendTo: () => 'board-1-notes', skipKnownEvents: true },
      );
    expect((await add(['a', 'b'])).events).toHaveLength(2);
    expect((await add(['a', 'b', 'c'])).events.map((event) => event.data)).toEqual([{ text: 'c' }]);
    expect((await add(['a'])).events).toEqual([]);
    expect((await store.readStream('board-1-notes')).map((event) => event.data)).toEqual([
      { text: 'a' },
      { text: 'b' },
      { text: 'c' },
    ]);
  });

  it('when overlapping batches race with known events skipped, then every note is stored exactly once', async () => {
    const commands = createCommandHandler({ store });
    await commands.handle('board-1', board, { type: 'open', name: 'Roadmap' });
    const texts = Array.from({ length: 30 }, (_, i) => `note ${i}`);
    const batches = Array.from({ length: 6 }, (_, i) => texts.slice(i * 3, i * 3 + 15));
    const results = await Promise.all(
      batches.map((batch) =>
        commands.handle(
          'board-1',
          board,
          { type: 'addNotes', boardId: 'board-1', texts: batch },
          { appendTo: () => 'board-1-notes', skipKnownEvents: true, retries: 10 },
        ),
      ),
    );
    const stored = await store.readStream('board-1-notes');
    const expected = new Set(batches.flat());
    expect(stored).toHaveLength(expected.size);
    expect(new Set(stored.map((event) => (event.data as { text: string }).text))).toEqual(expected);
    expect(
      results.every((result) => result.events.every((event) => event.streamId === 'board-1-notes')),
    ).toBe(true);
  });

  it('when numbers are allocated concurrently, then each entity gets its own, 1 to n with no gap, and asking again gives the same', async () => {
    const allocator = createNumberAllocator(createCommandHandler({ store }), { decider: counter, numberOf });
    const entities = Array.from({ length: 20 }, (_, i) => `entity-${i}`);
    const numbers = await Promise.all(entities.map((entity) => allocator.allocate('counter-p1', { entity })));
    expect([...numbers].sort((a, b) => a - b)).toEqual(entities.map((_, i) => i + 1));
    const again = await Promise.all(entities.map((entity) => allocator.allocate('counter-p1', { entity })));
    expect(again).toEqual(numbers);
    // Another allocator (another replica) that never saw the stream continues after the last.
    const other = createNumberAllocator(createCommandHandler({ store }), { decider: counter, numberOf });
    expect(await other.allocate('counter-p1', { entity: 'late' })).toBe(21);
    expect(await other.allocate('counter-p2', { entity: 'first of p2' })).toBe(1);
  });

  it('when an allocation loses the race on every attempt, then 503 SERVICE_UNAVAILABLE (retriable) and no number is taken', async () => {
    // Another writer takes the next number between each read and append of this one.
    let rivals = 0;
    const racing: EventStore = {
      ...store,
      append: async (streamId, events, options) => {
        rivals += 1;
        const rival = { entity: `rival-${rivals}`, number: 0 };
        await store.append(streamId, [{ type: 'counted', version: 1, data: rival }], {
          expectedVersion: 'any',
        });
        return store.append(streamId, events, options);
      },
    };
    const allocator = createNumberAllocator(createCommandHandler({ store: racing }), {
      decider: counter,
      numberOf,
      attempts: 3,
    });
    const refused = await allocator
      .allocate('counter-p1', { entity: 'e-1' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceUnavailableError);
    expect(refused).toMatchObject({ code: 'SERVICE_UNAVAILABLE', retriable: true });
    expect(rivals).toBe(3);
    const stored = await store.readStream('counter-p1');
    expect(stored.map((event) => (event.data as Counted['data']).entity)).toEqual([
      'rival-1',
      'rival-2',
      'rival-3',
    ]);
  });
});
