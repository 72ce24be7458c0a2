import { createSqlEventStore } from '../eventStore/sqlEventStore';
import type { StoredEvent } from '../eventStore/types';
import { silentLogger } from '../logging';
import type { SqlDatabase, SqlExecutor } from '../sql/types';
import { testDatabases } from '../testing/databases';
import { uniqueName } from '../testing/env';
import { inlineProjection } from './inline';
import { gapLockKey } from './readModelTables';
import { createProjector, type Projection } from './projector';

// An inline projection on both databases: written in the append's transaction, with the stream positions a
// projector keeps, so the projector's rebuild of the same projection gives the same tables.

/**
 * Per stream: how many `added` events and the sum of their `n`; refuses an `n` below 0. `gate`, when given,
 * is awaited before each batch is written (to hold a projector's transaction open).
 */
function tally(name: string, gate?: () => Promise<void>): Projection {
  return {
    name,
    canHandle: ['added'],
    async setup(tx: SqlExecutor, schema: string) {
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.tally (stream_id text PRIMARY KEY, events int NOT NULL, total int NOT NULL)`,
      );
    },
    async apply(tx: SqlExecutor, events: StoredEvent[], schema: string) {
      await gate?.();
      for (const event of events) {
        const n = (event.data as { n: number }).n;
        if (n < 0) throw new Error(`tally refuses ${n}`);
        await tx.query(
          `INSERT INTO ${schema}.tally VALUES ($1, 1, $2)
           ON CONFLICT (stream_id) DO UPDATE SET events = tally.events + 1, total = tally.total + $2`,
          [event.streamId, n],
        );
      }
    },
  };
}

const added = (n: number, eventId?: string) => ({
  type: 'added',
  version: 1,
  data: { n },
  ...(eventId && { eventId }),
});

describe.each(testDatabases())('inline projections on $name', ({ open }) => {
  let db: SqlDatabase;

  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => {
    await db.close();
  });

  async function setUp(gate?: () => Promise<void>) {
    const projection = tally(uniqueName('inl'), gate);
    const schema = uniqueName('es');
    const store = createSqlEventStore({
      db,
      schema,
      inline: inlineProjection(projection, { logger: silentLogger() }),
    });
    // The same store as an earlier version wrote it: without the read model inline.
    const storeWithoutInline = createSqlEventStore({ db, schema });
    const projector = createProjector({ db, projection, logger: silentLogger(), rebuildFrom: [store] });
    await store.init();
    await projector.init();
    const tallies = async () =>
      (await db.query(`SELECT stream_id, events, total FROM ${projection.name}.tally ORDER BY stream_id`))
        .rows;
    const checkpoints = async () =>
      (
        await db.query(
          `SELECT stream_id, stream_position FROM ${projection.name}.projection_checkpoints ORDER BY stream_id`,
        )
      ).rows;
    return { store, storeWithoutInline, projector, tallies, checkpoints };
  }

  it('when events are appended, then the read model and the stream positions are there as soon as the append returns', async () => {
    const { store, tallies, checkpoints } = await setUp();
    await store.append('a', [added(2), added(3)], { expectedVersion: 'no_stream' });
    expect(await tallies()).toEqual([{ stream_id: 'a', events: 2, total: 5 }]);
    expect(await checkpoints()).toEqual([{ stream_id: 'a', stream_position: 2 }]);
  });

  it('when the projection refuses an append, then neither its events nor its rows are stored', async () => {
    const { store, tallies } = await setUp();
    await store.append('a', [added(1)], { expectedVersion: 'no_stream' });
    await expect(store.append('a', [added(-1)], { expectedVersion: 1 })).rejects.toThrow('tally refuses -1');
    expect(await store.readStream('a')).toHaveLength(1);
    expect(await tallies()).toEqual([{ stream_id: 'a', events: 1, total: 1 }]);
  });

  it('when an append is repeated with the same event ids, then the read model counts it once', async () => {
    const { store, tallies } = await setUp();
    const events = [added(4, 'e-1'), added(5, 'e-2')];
    await store.append('a', events, { expectedVersion: 'any' });
    await store.append('a', events, { expectedVersion: 'any' });
    expect(await tallies()).toEqual([{ stream_id: 'a', events: 2, total: 9 }]);
  });

  it('when the projector rebuilds the projection from position 0, then the tables equal the ones written inline, and appends go on into them', async () => {
    const { store, projector, tallies, checkpoints } = await setUp();
    await store.append('a', [added(1), added(2)], { expectedVersion: 'no_stream' });
    await store.append('b', [added(7)], { expectedVersion: 'no_stream' });
    const inline = { tallies: await tallies(), checkpoints: await checkpoints() };
    expect(await projector.rebuild()).toBe(3);
    expect({ tallies: await tallies(), checkpoints: await checkpoints() }).toEqual(inline);
    await store.append('b', [added(1)], { expectedVersion: 1 });
    expect(await tallies()).toEqual([
      { stream_id: 'a', events: 2, total: 3 },
      { stream_id: 'b', events: 2, total: 8 },
    ]);
  });

  it('when a stream has events stored without the read model (an earlier version), then the next inline append applies them first, in order', async () => {
    const { store, storeWithoutInline, tallies, checkpoints } = await setUp();
    await storeWithoutInline.append('a', [added(1), added(2)], { expectedVersion: 'no_stream' });
    await store.append('b', [added(5)], { expectedVersion: 'no_stream' });
    await store.append('b', [added(6)], { expectedVersion: 1 });
    await storeWithoutInline.append('b', [added(7)], { expectedVersion: 2 });
    expect(await tallies()).toEqual([{ stream_id: 'b', events: 2, total: 11 }]);

    await store.append('a', [added(3)], { expectedVersion: 2 });
    await store.append('b', [added(8)], { expectedVersion: 3 });
    expect(await tallies()).toEqual([
      { stream_id: 'a', events: 3, total: 6 },
      { stream_id: 'b', events: 4, total: 26 },
    ]);
    expect(await checkpoints()).toEqual([
      { stream_id: 'a', stream_position: 3 },
      { stream_id: 'b', stream_position: 4 },
    ]);
  });
});

describe.each(testDatabases().filter(({ name }) => name === 'PostgreSQL'))(
  'an inline append filling a gap beside a projector on $name',
  ({ open }) => {
    let db: SqlDatabase;

    beforeAll(async () => {
      db = await open();
    });
    afterAll(async () => {
      await db.close();
    });

    it('when a projector is applying the missed events as an inline append finds them missing, then each event is applied once', async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const projectorInside = new Promise<void>((resolve) => (entered = resolve));
      let holdNextBatch = false;
      const projection = tally(uniqueName('inl'), async () => {
        if (!holdNextBatch) return;
        holdNextBatch = false;
        entered();
        await released;
      });
      const schema = uniqueName('es');
      const store = createSqlEventStore({
        db,
        schema,
        inline: inlineProjection(projection, { logger: silentLogger() }),
      });
      const storeWithoutInline = createSqlEventStore({ db, schema });
      const projector = createProjector({ db, projection, logger: silentLogger() });
      await store.init();
      await projector.init();
      const { events: earlier } = await storeWithoutInline.append('a', [added(1), added(2)], {
        expectedVersion: 'no_stream',
      });

      // The projector's batch of the two earlier events holds its transaction open, written but not committed.
      holdNextBatch = true;
      const batch = projector.applyEvents(earlier);
      await projectorInside;
      const append = store.append('a', [added(3)], { expectedVersion: 2 });
      await waitForGapLockWaiter(db, projection.name);
      release();
      await Promise.all([batch, append]);

      const { rows } = await db.query(`SELECT stream_id, events, total FROM ${projection.name}.tally`);
      expect(rows).toEqual([{ stream_id: 'a', events: 3, total: 6 }]);
    });
  },
);

/**
 * Until a session waits for the read model's gap lock (the inline append, behind the projector's batch), or
 * 5 s: an append that takes no lock is then done already, and the test shows what it did to the tallies.
 */
async function waitForGapLockWaiter(db: SqlDatabase, schema: string) {
  for (const started = Date.now(); Date.now() - started < 5000;) {
    const { rows } = await db.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_locks
       WHERE locktype = 'advisory' AND NOT granted
         AND ((classid::bigint << 32) | objid::bigint) = hashtext($1)::bigint`,
      [gapLockKey(schema)],
    );
    if (rows[0]!.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
