import { EventEnvelope } from '@verdict/contracts';
import { ManualClock } from '../clock';
import { ConflictError, VersionConflictError } from '../errors';
import { newId } from '../ids';
import { createTestPGlite } from '../testing/databases';
import { createPostgresDatabase } from '../sql/postgres';
import { joinTransaction, type SqlDatabase, type SqlExecutor } from '../sql/types';
import { requireServer, uniqueName } from '../testing/env';
import type { Decider } from './handleCommand';
import { handleCommand } from './handleCommand';
import { createSqlEventStore } from './sqlEventStore';
import type { EventStore, GlobalCursor, NewEvent, StoredEvent } from './types';
import { START } from './types';

// The contract of the EventStore port, run against both adapters: the embedded mode (PGlite) and the
// distributed mode (PostgreSQL) must provably behave the same. Each test gets its own schema.

interface Adapter {
  name: string;
  open(): Promise<SqlDatabase>;
}

/** The int project's testTimeout is not applied per project by jest: the heavy tests carry their own. */
const HEAVY_TEST_MS = 60_000;

const pglite: Adapter = { name: 'PGlite (in memory)', open: () => createTestPGlite() };
const postgres: Adapter = {
  name: 'PostgreSQL',
  open: async () => createPostgresDatabase({ connectionString: requireServer('DATABASE_URL'), max: 24 }),
};

function recorded(n: number, extra: Partial<NewEvent> = {}): NewEvent {
  return { type: 'test.recorded', version: 1, data: { n }, ...extra };
}

function range(count: number, from = 1): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

/** Reads the whole store page by page; returns the events and the cursor it ended on. */
async function readEverything(store: EventStore, after: GlobalCursor = START, limit = 1000) {
  const events: StoredEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.readAll({ after: cursor, limit });
    if (page.events.length === 0) return { events, cursor };
    events.push(...page.events);
    cursor = page.cursor;
  }
}

/**
 * Reads everything until at least `count` events are readable. On a shared PostgreSQL another client's
 * open transaction holds readers back for a moment (that is the point of the xmin guard); the exact
 * assertions come after.
 */
async function readSettled(store: EventStore, count: number, after: GlobalCursor = START, limit = 1000) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const read = await readEverything(store, after, limit);
    if (read.events.length >= count || Date.now() > deadline) return read;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A SqlDatabase whose every statement runs in the open transaction `tx`: lets a store append inside a
 * transaction the test holds open.
 */
function databaseOn(tx: SqlExecutor, kind: SqlDatabase['kind']): SqlDatabase {
  return {
    kind,
    query: (text, params) => tx.query(text, params),
    transaction: (work) => work(tx),
    exec: async () => {
      throw new Error('exec is not available inside a held transaction');
    },
    ping: async () => undefined,
    close: async () => undefined,
  };
}

/** A promise and the function that resolves it, to hold a transaction open at a chosen point. */
function latch<T = void>(): { reached: Promise<T>; release(value: T): void } {
  let release: (value: T) => void = () => {};
  const reached = new Promise<T>((resolve) => (release = resolve));
  return { reached, release };
}

describe.each([pglite, postgres])('EventStore contract on $name', (adapter) => {
  let db: SqlDatabase;
  const schemas: string[] = [];
  const clock = new ManualClock('2026-02-03T04:05:06.789Z');

  async function freshStore(): Promise<EventStore> {
    const schema = uniqueName('event_store');
    schemas.push(schema);
    const store = createSqlEventStore({ db, schema, clock });
    await store.init();
    return store;
  }

  beforeAll(async () => {
    db = await adapter.open();
  }, HEAVY_TEST_MS);

  afterAll(async () => {
    for (const schema of schemas) await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  describe('a stream', () => {
    it('when events are appended to a new stream, then they read back in order with positions and metadata', async () => {
      const store = await freshStore();
      const appended = await store.append(
        'run-1',
        [recorded(1), recorded(2, { type: 'test.flaky', version: 2 })],
        {
          expectedVersion: 'no_stream',
          projectId: 'project-1',
          correlationId: 'request-1',
          causationId: 'command-1',
        },
      );
      expect(appended.nextExpectedVersion).toBe(2);

      const read = await store.readStream('run-1');
      expect(read).toEqual(appended.events);
      expect(read.map((event) => EventEnvelope.parse(event))).toEqual(read);
      expect(read).toMatchObject([
        { type: 'test.recorded', version: 1, streamId: 'run-1', streamPosition: 1, data: { n: 1 } },
        { type: 'test.flaky', version: 2, streamId: 'run-1', streamPosition: 2, data: { n: 2 } },
      ]);
      for (const event of read) {
        expect(event).toMatchObject({
          projectId: 'project-1',
          correlationId: 'request-1',
          causationId: 'command-1',
          occurredAt: '2026-02-03T04:05:06.789Z',
        });
      }
      expect(read[1]?.globalPosition).toBeGreaterThan(read[0]?.globalPosition ?? Infinity);
    });

    it('when appends continue at the expected version, then positions continue and readStream can start later', async () => {
      const store = await freshStore();
      await store.append('run-1', [recorded(1), recorded(2)], { expectedVersion: 'no_stream' });
      const second = await store.append('run-1', [recorded(3)], {
        expectedVersion: 2,
        occurredAt: new Date('2025-12-31T23:59:59.000Z'),
      });
      expect(second.nextExpectedVersion).toBe(3);
      expect(second.events[0]).toMatchObject({ streamPosition: 3, occurredAt: '2025-12-31T23:59:59.000Z' });
      expect((await store.readStream('run-1', { fromVersion: 2 })).map((e) => e.streamPosition)).toEqual([
        2, 3,
      ]);
      expect(await store.readStream('run-2')).toEqual([]);
    });

    it('when data is JSON of any shape, then it reads back equal', async () => {
      const store = await freshStore();
      const shapes = [
        null,
        0,
        'text with "quotes" and \\ and é',
        [1, [2, { three: 3 }]],
        { nested: { list: [], none: null } },
      ];
      await store.append(
        'shapes',
        shapes.map((data) => ({ type: 'shape', version: 1, data })),
        { expectedVersion: 'any' },
      );
      expect((await store.readStream('shapes')).map((event) => event.data)).toEqual(shapes);
    });

    it('when the table was created with jsonb data (before json), then appends and reads work the same', async () => {
      const schema = uniqueName('event_store');
      schemas.push(schema);
      await db.exec(`CREATE SCHEMA ${schema}`);
      const store = createSqlEventStore({ db, schema, clock });
      await store.init();
      await db.exec(`ALTER TABLE ${schema}.events ALTER COLUMN data TYPE jsonb USING data::jsonb`);
      const { rows } = await db.query<{ type: string }>(
        `SELECT data_type AS type FROM information_schema.columns
         WHERE table_schema = $1 AND table_name = 'events' AND column_name = 'data'`,
        [schema],
      );
      expect(rows).toEqual([{ type: 'jsonb' }]);
      await store.append('old', [recorded(1), recorded(2, { data: null })], { expectedVersion: 'no_stream' });
      expect((await store.readStream('old')).map((event) => event.data)).toEqual([{ n: 1 }, null]);
      const serialized = await store.readAllSerialized({ after: START, limit: 10 });
      expect(serialized.events.map((event) => (JSON.parse(event.json) as StoredEvent).data)).toEqual([
        { n: 1 },
        null,
      ]);
    });

    it("when 'no_stream' is expected of a stream that exists, then a VersionConflictError says where it is", async () => {
      const store = await freshStore();
      await store.append('run-1', [recorded(1), recorded(2)], { expectedVersion: 'no_stream' });
      const error = await store
        .append('run-1', [recorded(3)], { expectedVersion: 'no_stream' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VersionConflictError);
      expect(error).toMatchObject({
        streamId: 'run-1',
        expectedVersion: 'no_stream',
        actualVersion: 2,
        retriable: true,
      });
      expect(await store.readStream('run-1')).toHaveLength(2);
    });

    it('when a stale version is expected, then a VersionConflictError is thrown and nothing is written', async () => {
      const store = await freshStore();
      await store.append('run-1', [recorded(1), recorded(2), recorded(3)], { expectedVersion: 'no_stream' });
      const error = await store
        .append('run-1', [recorded(4)], { expectedVersion: 2 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VersionConflictError);
      expect(error).toMatchObject({ expectedVersion: 2, actualVersion: 3 });
      const ahead = await store
        .append('run-1', [recorded(4)], { expectedVersion: 5 })
        .catch((e: unknown) => e);
      expect(ahead).toBeInstanceOf(VersionConflictError);
      expect(await store.readStream('run-1')).toHaveLength(3);
    });

    it('when a version is expected of a stream that does not exist, then it is a conflict at version 0', async () => {
      const store = await freshStore();
      const error = await store
        .append('nowhere', [recorded(1)], { expectedVersion: 1 })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ actualVersion: 0 });
      expect(error).toBeInstanceOf(VersionConflictError);
    });

    it("when 'any' is expected, then the append lands at the end whatever the version", async () => {
      const store = await freshStore();
      const first = await store.append('log', [recorded(1)], { expectedVersion: 'any' });
      const second = await store.append('log', [recorded(2), recorded(3)], { expectedVersion: 'any' });
      expect(first.nextExpectedVersion).toBe(1);
      expect(second.events.map((e) => e.streamPosition)).toEqual([2, 3]);
    });

    it('when an append has no events, then it checks the version and writes nothing', async () => {
      const store = await freshStore();
      await store.append('run-1', [recorded(1)], { expectedVersion: 'no_stream' });
      await expect(store.append('run-1', [], { expectedVersion: 1 })).resolves.toEqual({
        nextExpectedVersion: 1,
        events: [],
      });
      await expect(store.append('run-1', [], { expectedVersion: 'no_stream' })).rejects.toBeInstanceOf(
        VersionConflictError,
      );
    });

    it(
      'when one append holds 12,001 events, then all land in order, and a clash in the last one writes none',
      async () => {
        const store = await freshStore();
        const many = range(12_001).map((n) => recorded(n));
        const result = await store.append('big', many, { expectedVersion: 'no_stream' });
        expect(result.nextExpectedVersion).toBe(12_001);
        const read = await store.readStream('big');
        expect(read.map((e) => e.streamPosition)).toEqual(range(12_001));
        expect(read.map((e) => (e.data as { n: number }).n)).toEqual(range(12_001));

        const clash = [...range(11_000).map((n) => recorded(n)), recorded(0, { eventId: read[0]?.eventId })];
        await expect(store.append('big', clash, { expectedVersion: 12_001 })).rejects.toBeInstanceOf(
          ConflictError,
        );
        expect(await store.readStream('big', { fromVersion: 12_001 })).toHaveLength(1);
      },
      HEAVY_TEST_MS,
    );
  });

  describe('idempotent appends', () => {
    it('when an append with given event ids is repeated, then the stored events come back and nothing is added', async () => {
      const store = await freshStore();
      const events = [recorded(1, { eventId: newId() }), recorded(2, { eventId: newId() })];
      const first = await store.append('run-1', events, { expectedVersion: 'no_stream' });
      await store.append('run-1', [recorded(3)], { expectedVersion: 2 });

      const again = await store.append('run-1', events, { expectedVersion: 'no_stream' });
      expect(again).toEqual({ nextExpectedVersion: 2, events: first.events });
      const anyAgain = await store.append('run-1', events, { expectedVersion: 'any' });
      expect(anyAgain.events.map((e) => e.globalPosition)).toEqual(first.events.map((e) => e.globalPosition));
      expect(await store.readStream('run-1')).toHaveLength(3);
    });

    it('when only some of the given ids are stored, or in another stream, then it is a ConflictError', async () => {
      const store = await freshStore();
      const stored = recorded(1, { eventId: newId() });
      await store.append('run-1', [stored], { expectedVersion: 'no_stream' });

      const partly = store.append('run-1', [stored, recorded(2, { eventId: newId() })], {
        expectedVersion: 'no_stream',
      });
      await expect(partly).rejects.toBeInstanceOf(ConflictError);
      await expect(partly).rejects.not.toBeInstanceOf(VersionConflictError);
      await expect(store.append('run-2', [stored], { expectedVersion: 'no_stream' })).rejects.toBeInstanceOf(
        ConflictError,
      );
      expect(await store.readStream('run-2')).toEqual([]);
    });

    it('when the same event id appears twice in one append, then it is refused before anything is written', async () => {
      const store = await freshStore();
      const eventId = newId();
      await expect(
        store.append('run-1', [recorded(1, { eventId }), recorded(2, { eventId })], {
          expectedVersion: 'any',
        }),
      ).rejects.toThrow(/twice/);
      expect(await store.readStream('run-1')).toEqual([]);
    });
  });

  describe('existing event ids', () => {
    it('when ids are asked about, then exactly the stored ones come back, whatever their stream', async () => {
      const store = await freshStore();
      const inRun = [newId(), newId()];
      const inLog = newId();
      await store.append(
        'run-1',
        inRun.map((eventId, n) => recorded(n, { eventId })),
        { expectedVersion: 'no_stream' },
      );
      await store.append('log', [recorded(3, { eventId: inLog }), recorded(4)], { expectedVersion: 'any' });
      const unknown = newId();

      const existing = await store.existingEventIds([unknown, ...inRun, inLog, inRun[0] ?? '', 'not-a-uuid']);
      expect(existing).toEqual(new Set([...inRun, inLog]));
      expect(await store.existingEventIds([unknown])).toEqual(new Set());
      expect(await store.existingEventIds([])).toEqual(new Set());
    });

    it(
      'when 5,000 ids are asked about at once, then one call tells the stored half from the rest',
      async () => {
        const store = await freshStore();
        const ids = range(5_000).map(() => newId());
        const stored = ids.filter((_, i) => i % 2 === 0);
        await store.append(
          'results',
          stored.map((eventId, n) => recorded(n, { eventId })),
          { expectedVersion: 'any' },
        );
        const existing = await store.existingEventIds(ids);
        expect(existing.size).toBe(2_500);
        expect([...existing].sort()).toEqual([...stored].sort());
      },
      HEAVY_TEST_MS,
    );
  });

  describe('inline projections and joined transactions', () => {
    /** A store whose inline projection counts each stream's events in a table of its schema. */
    function countingStore(database: SqlDatabase, schema: string, failOn?: number) {
      return createSqlEventStore({
        db: database,
        schema,
        clock,
        inline: async (tx, events) => {
          for (const event of events) {
            if ((event.data as { n: number }).n === failOn) throw new Error('the read model refused it');
            await tx.query(
              `INSERT INTO ${schema}.counts (stream_id, events) VALUES ($1, 1)
               ON CONFLICT (stream_id) DO UPDATE SET events = counts.events + 1`,
              [event.streamId],
            );
          }
        },
      });
    }
    async function countingSchema(): Promise<string> {
      const schema = uniqueName('event_store');
      schemas.push(schema);
      await countingStore(db, schema).init();
      await db.query(`CREATE TABLE ${schema}.counts (stream_id text PRIMARY KEY, events int)`);
      return schema;
    }
    const countsOf = async (schema: string) =>
      (
        await db.query<{ stream_id: string; events: number }>(
          `SELECT * FROM ${schema}.counts ORDER BY stream_id`,
        )
      ).rows;

    it('when an append has an inline projection, then what it writes commits with the events, and a refused one writes neither', async () => {
      const schema = await countingSchema();
      const store = countingStore(db, schema, 99);
      await store.append('a', [recorded(1), recorded(2)], { expectedVersion: 'no_stream' });
      await expect(store.append('a', [recorded(3)], { expectedVersion: 0 })).rejects.toBeInstanceOf(
        VersionConflictError,
      );
      await expect(store.append('b', [recorded(99)], { expectedVersion: 'no_stream' })).rejects.toThrow(
        'the read model refused it',
      );
      expect(await countsOf(schema)).toEqual([{ stream_id: 'a', events: 2 }]);
      expect((await store.readStream('b')).length).toBe(0);
    });

    it('when a store joins a transaction already open, then its events and their projection commit or roll back with it', async () => {
      const schema = await countingSchema();
      await db.transaction(async (tx) => {
        const joined = countingStore(joinTransaction(db, tx), schema);
        await joined.append('kept', [recorded(1)], { expectedVersion: 'no_stream' });
      });
      await expect(
        db.transaction(async (tx) => {
          const joined = countingStore(joinTransaction(db, tx), schema);
          await joined.append('rolled-back', [recorded(1)], { expectedVersion: 'no_stream' });
          throw new Error('the rest of the transaction failed');
        }),
      ).rejects.toThrow('the rest of the transaction failed');
      expect(await countsOf(schema)).toEqual([{ stream_id: 'kept', events: 1 }]);
    });
  });

  describe('reading everything', () => {
    it('when streams are appended in turn, then readAll pages through them in append order, cursor by cursor', async () => {
      const store = await freshStore();
      const appended: StoredEvent[] = [];
      for (const n of range(7)) {
        const result = await store.append(`stream-${n % 3}`, [recorded(n), recorded(n * 10)], {
          expectedVersion: 'any',
        });
        appended.push(...result.events);
      }
      expect((await readSettled(store, appended.length)).events).toEqual(appended);

      const paged: StoredEvent[] = [];
      let cursor = START;
      for (let page = 0; page < 20; page += 1) {
        const next = await store.readAll({ after: cursor, limit: 3 });
        expect(next.events.length).toBeLessThanOrEqual(3);
        if (next.events.length === 0) {
          expect(next.cursor).toEqual(cursor);
          break;
        }
        paged.push(...next.events);
        cursor = next.cursor;
      }
      expect(paged).toEqual(appended);
      expect(cursor.globalPosition).toBe(appended[appended.length - 1]?.globalPosition);
      expect(await store.readAll({ after: cursor, limit: 3 })).toEqual({ events: [], cursor });
    });

    it('when transaction ids gain a digit (9 then 10), then readAll orders them as numbers and skips neither', async () => {
      // Ids read as text sort '10' before '9': a reader that ordered by the text would take 10 first, move
      // its cursor past 9 and never come back for it (the relay lost the events of 3,520 transactions
      // when the cluster's ids went from 999,999 to 1,000,000).
      const schema = uniqueName('event_store');
      schemas.push(schema);
      const store = createSqlEventStore({ db, schema, clock });
      await store.init();
      const [nine] = (await store.append('stream-a', [recorded(1)], { expectedVersion: 'any' })).events;
      const [ten] = (await store.append('stream-b', [recorded(2)], { expectedVersion: 'any' })).events;
      await db.query(
        `UPDATE ${schema}.events SET transaction_id = CASE global_position WHEN $1 THEN '9'::xid8 ELSE '10'::xid8 END`,
        [nine?.globalPosition],
      );

      const first = await store.readAll({ after: START, limit: 1 });
      const second = await store.readAll({ after: first.cursor, limit: 1 });

      expect(first.events.map((e) => e.eventId)).toEqual([nine?.eventId]);
      expect(first.cursor.transactionId).toBe('9');
      expect(second.events.map((e) => e.eventId)).toEqual([ten?.eventId]);
      expect(second.cursor.transactionId).toBe('10');
    });

    it('when events are read serialized, then each is its envelope as readAll gives it, as JSON, with the same cursor', async () => {
      const store = await freshStore();
      const nested = { text: 'line 1\nline "2" \u00e9', list: [1, 2.5, null, true], deep: { a: { b: [] } } };
      await store.append('stream-a', [recorded(1), { type: 'thing.nested', version: 2, data: nested }], {
        expectedVersion: 'any',
        projectId: 'project-1',
        correlationId: 'correlation-1',
      });
      await store.append('stream-b', [recorded(2)], { expectedVersion: 'any' });
      const parsed = await store.readAll({ after: START, limit: 2 });

      const serialized = await store.readAllSerialized({ after: START, limit: 2 });

      expect(serialized.cursor).toEqual(parsed.cursor);
      expect(serialized.events.map((event) => JSON.parse(event.json) as unknown)).toEqual(parsed.events);
      expect(serialized.events.map(({ json: _json, ...metadata }) => metadata)).toEqual(
        parsed.events.map(({ data: _data, ...metadata }) => metadata),
      );
      const rest = await store.readAllSerialized({ after: serialized.cursor, limit: 10 });
      expect(rest.events.map((event) => event.streamId)).toEqual(['stream-b']);
    });

    it('when readAll is given a limit that is not a positive integer, then it refuses', async () => {
      const store = await freshStore();
      await expect(store.readAll({ after: START, limit: 0 })).rejects.toThrow(/limit/);
    });
  });

  describe('concurrency', () => {
    it(
      'when 20 writers append 500 events each in batches at once, then readAll returns all 10,000 exactly once, streams in order',
      async () => {
        const store = await freshStore();
        const writers = range(20);
        const batchSizes = [1, 24, 50, 100, 75, 125, 25, 100];
        await Promise.all(
          writers.map(async (writer) => {
            let version = 0;
            for (let batch = 0; version < 500; batch += 1) {
              const size = Math.min(batchSizes[batch % batchSizes.length] ?? 1, 500 - version);
              const events = range(size, version + 1).map((n) => recorded(n));
              const result = await store.append(`writer-${writer}`, events, {
                expectedVersion: version === 0 ? 'no_stream' : version,
              });
              version = result.nextExpectedVersion;
            }
          }),
        );

        const { events } = await readSettled(store, 10_000, START, 700);
        expect(events).toHaveLength(10_000);
        expect(new Set(events.map((e) => e.eventId)).size).toBe(10_000);
        expect(new Set(events.map((e) => e.globalPosition)).size).toBe(10_000);
        for (const writer of writers) {
          const ofWriter = events.filter((e) => e.streamId === `writer-${writer}`);
          expect(ofWriter.map((e) => e.streamPosition)).toEqual(range(500));
          expect(ofWriter.map((e) => (e.data as { n: number }).n)).toEqual(range(500));
        }
      },
      HEAVY_TEST_MS,
    );

    it('when several writers append at the same expected version, then exactly one wins and the others get a VersionConflictError', async () => {
      const store = await freshStore();
      await store.append('contested', [recorded(0)], { expectedVersion: 'no_stream' });
      const outcomes = await Promise.allSettled(
        range(10).map((n) =>
          store.append('contested', [recorded(n), recorded(n + 100)], { expectedVersion: 1 }),
        ),
      );
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(9);
      for (const reason of lost) expect(reason).toBeInstanceOf(VersionConflictError);
      expect((await store.readStream('contested')).map((e) => e.streamPosition)).toEqual([1, 2, 3]);
    });

    it("when several writers append to one stream with 'any' at once, then all land, positions 1..n", async () => {
      const store = await freshStore();
      await Promise.all(
        range(20).map((n) => store.append('shared', [recorded(n), recorded(-n)], { expectedVersion: 'any' })),
      );
      const read = await store.readStream('shared');
      expect(read.map((e) => e.streamPosition)).toEqual(range(40));
      for (const n of range(20)) {
        const own = read.filter((e) => Math.abs((e.data as { n: number }).n) === n);
        expect(own.map((e) => e.streamPosition)).toEqual([
          own[0]?.streamPosition,
          (own[0]?.streamPosition ?? 0) + 1,
        ]);
      }
    });

    it('when several processes initialise the same store at once, then all succeed', async () => {
      const schema = uniqueName('event_store_init');
      schemas.push(schema);
      // On PostgreSQL each init runs on its own pooled connection, as separate processes would.
      const stores = range(6).map(() => createSqlEventStore({ db, schema }));
      await Promise.all(stores.map((store) => store.init()));
      await stores[0]?.init();
      await expect(
        stores[1]?.append('s', [recorded(1)], { expectedVersion: 'no_stream' }),
      ).resolves.toBeDefined();
    });

    it('when commands race on one stream through handleCommand, then each is decided on fresh state and all land', async () => {
      const store = await freshStore();
      const counter: Decider<
        { add: number },
        { type: 'added'; version: 1; data: { total: number } },
        number
      > = {
        initialState: () => 0,
        evolve: (total, event) => event.data.total,
        decide: (command, total) => [{ type: 'added', version: 1, data: { total: total + command.add } }],
      };
      const results = await Promise.all(
        range(4).map(() => handleCommand(store, 'counter', counter, { add: 1 }, {}, { retries: 10 })),
      );
      expect(results.map((r) => r.state).sort()).toEqual([1, 2, 3, 4]);
      expect((await store.readStream('counter')).map((e) => (e.data as { total: number }).total)).toEqual([
        1, 2, 3, 4,
      ]);
    });
  });
});

describe('EventStore on PostgreSQL only (PGlite runs one transaction at a time, so nothing can commit out of order)', () => {
  let db: SqlDatabase;
  const schemas: string[] = [];

  async function freshStore(): Promise<{ store: EventStore; schema: string }> {
    const schema = uniqueName('event_store_gap');
    schemas.push(schema);
    const store = createSqlEventStore({ db, schema });
    await store.init();
    return { store, schema };
  }

  beforeAll(async () => {
    db = await postgres.open();
  });

  afterAll(async () => {
    for (const schema of schemas) await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  /** Opens a transaction that appends through the store and stays open until released. */
  function openAppendingTransaction(schema: string, streamId: string, events: NewEvent[]) {
    const appended = latch<StoredEvent[]>();
    const commit = latch();
    const done = db.transaction(async (tx) => {
      const inTransaction = createSqlEventStore({ db: databaseOn(tx, db.kind), schema });
      const result = await inTransaction.append(streamId, events, { expectedVersion: 'no_stream' });
      appended.release(result.events);
      await commit.reached;
    });
    return { appended: appended.reached, commit: () => commit.release(), done };
  }

  it('when a transaction with a lower position commits after a later one, then readAll holds the later one back and skips neither', async () => {
    const { store, schema } = await freshStore();
    const before = await store.append('earlier', [recorded(0)], { expectedVersion: 'no_stream' });
    const reader = await readEverything(store);
    expect(reader.events).toEqual(before.events);

    const a = openAppendingTransaction(schema, 'stream-a', [recorded(1)]);
    const [eventA] = await a.appended;
    const {
      events: [eventB],
    } = await store.append('stream-b', [recorded(2)], { expectedVersion: 'no_stream' });
    try {
      expect(eventB?.globalPosition).toBeGreaterThan(eventA?.globalPosition ?? Infinity);
      // B is committed and visible: a reader going by global_position alone would take it now, move its
      // cursor past A's lower position and never see A.
      const { rows: naive } = await db.query<{ global_position: string }>(
        `SELECT global_position FROM ${schema}.events WHERE global_position > $1 ORDER BY global_position`,
        [before.events[0]?.globalPosition],
      );
      expect(naive.map((row) => Number(row.global_position))).toEqual([eventB?.globalPosition]);

      const whileAOpen = await store.readAll({ after: reader.cursor, limit: 10 });
      expect(whileAOpen).toEqual({ events: [], cursor: reader.cursor });
    } finally {
      a.commit();
      await a.done;
    }

    const afterCommit = await readSettled(store, 2, reader.cursor);
    expect(afterCommit.events.map((e) => e.streamId)).toEqual(['stream-a', 'stream-b']);
    expect(afterCommit.events).toEqual([eventA, eventB]);
    expect((await readEverything(store)).events.map((e) => e.streamId)).toEqual([
      'earlier',
      'stream-a',
      'stream-b',
    ]);
  });

  it('when the older transaction appends after a younger one committed, then paging one event at a time follows transaction order', async () => {
    const { store, schema } = await freshStore();
    // The older transaction takes its id first but appends last, so its event has the higher position.
    const older = latch();
    const proceed = latch();
    const appendedByOlder = latch<StoredEvent[]>();
    const done = db.transaction(async (tx) => {
      await tx.query('SELECT pg_current_xact_id()');
      older.release();
      await proceed.reached;
      const inTransaction = createSqlEventStore({ db: databaseOn(tx, db.kind), schema });
      appendedByOlder.release(
        (await inTransaction.append('older', [recorded(1)], { expectedVersion: 'no_stream' })).events,
      );
    });
    await older.reached;
    const younger = await store.append('younger', [recorded(2)], { expectedVersion: 'no_stream' });
    proceed.release();
    const [olderEvent] = await appendedByOlder.reached;
    await done;
    expect(olderEvent?.globalPosition).toBeGreaterThan(younger.events[0]?.globalPosition ?? Infinity);

    await readSettled(store, 2);
    const first = await store.readAll({ after: START, limit: 1 });
    const second = await store.readAll({ after: first.cursor, limit: 1 });
    const third = await store.readAll({ after: second.cursor, limit: 1 });
    expect([...first.events, ...second.events].map((e) => e.streamId)).toEqual(['older', 'younger']);
    expect(Number(first.cursor.transactionId)).toBeLessThan(Number(second.cursor.transactionId));
    expect(third.events).toEqual([]);
  });
});
