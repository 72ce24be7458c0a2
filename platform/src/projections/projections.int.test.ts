import { createSqlEventStore } from '../eventStore/sqlEventStore';
import { START, type EventStore, type StoredEvent } from '../eventStore/types';
import { silentLogger } from '../logging';
import type { SqlDatabase, SqlExecutor } from '../sql/types';
import { testDatabases } from '../testing/databases';
import { uniqueName } from '../testing/env';
import { projectionSpec } from '../testing/projectionSpec';
import { createProjector, type Projection } from './projector';
import { waitForProjection } from './waitFor';

// The projection API on both databases: versions (a bump rebuilds into fresh tables at start), canHandle,
// several projections in one transaction, and the spec helper read models are tested with.

/** Per stream: how many `added` events, and (from version 2 on) the sum of their `n`. */
function tally(name: string, version = 1): Projection {
  return {
    name,
    version,
    canHandle: ['added'],
    async setup(tx: SqlExecutor, schema: string) {
      await tx.query(
        version === 1
          ? `CREATE TABLE IF NOT EXISTS ${schema}.tally (stream_id text PRIMARY KEY, events int NOT NULL)`
          : `CREATE TABLE IF NOT EXISTS ${schema}.tally (stream_id text PRIMARY KEY, events int NOT NULL, total int NOT NULL)`,
      );
      if (version > 1) await tx.query(`CREATE INDEX IF NOT EXISTS tally_total ON ${schema}.tally (total)`);
    },
    async apply(tx: SqlExecutor, events: StoredEvent[], schema: string) {
      for (const event of events) {
        const n = (event.data as { n: number }).n;
        await tx.query(
          version === 1
            ? `INSERT INTO ${schema}.tally VALUES ($1, 1) ON CONFLICT (stream_id) DO UPDATE SET events = tally.events + 1`
            : `INSERT INTO ${schema}.tally VALUES ($1, 1, $2)
               ON CONFLICT (stream_id) DO UPDATE SET events = tally.events + 1, total = tally.total + $2`,
          version === 1 ? [event.streamId] : [event.streamId, n],
        );
      }
    },
  };
}

/** The names of the streams that were renamed (`renamed` events only). */
function renames(name: string): Projection {
  return {
    name,
    canHandle: ['renamed'],
    async setup(tx: SqlExecutor, schema: string) {
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.names (stream_id text PRIMARY KEY, name text NOT NULL)`,
      );
    },
    async apply(tx: SqlExecutor, events: StoredEvent[], schema: string) {
      for (const event of events) {
        if (event.type !== 'renamed') throw new Error(`renames was handed ${event.type}`);
        await tx.query(
          `INSERT INTO ${schema}.names VALUES ($1, $2) ON CONFLICT (stream_id) DO UPDATE SET name = EXCLUDED.name`,
          [event.streamId, (event.data as { name: string }).name],
        );
      }
    },
  };
}

const rows = async (db: SqlExecutor, sql: string) => (await db.query(sql)).rows;

describe.each(testDatabases())('projections on $name', ({ open }) => {
  let db: SqlDatabase;
  let store: EventStore;

  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    store = createSqlEventStore({ db, schema: uniqueName('store') });
    await store.init();
    await store.append(
      's-1',
      [
        { type: 'added', version: 1, data: { n: 2 } },
        { type: 'renamed', version: 1, data: { name: 'first' } },
        { type: 'added', version: 1, data: { n: 3 } },
      ],
      { expectedVersion: 'no_stream' },
    );
    await store.append('s-2', [{ type: 'added', version: 1, data: { n: 5 } }], {
      expectedVersion: 'no_stream',
    });
  });

  const everything = async () => (await store.readAll({ after: START, limit: 100 })).events;

  it('when a projection reads only some types, then it gets only those, and its checkpoints still move past the others', async () => {
    const name = uniqueName('names');
    const projector = createProjector({ db, projection: renames(name), logger: silentLogger() });
    await projector.init();
    expect(await projector.applyEvents(await everything())).toBe(1);
    expect(await rows(db, `SELECT stream_id, name FROM ${name}.names`)).toEqual([
      { stream_id: 's-1', name: 'first' },
    ]);
    // A writer waiting for s-1 at 3 (an `added` this projection ignores) is not left waiting.
    await expect(waitForProjection(db, name, 's-1', 3, { timeoutMs: 1_000 })).resolves.toBeUndefined();
  });

  it('when one projector runs several projections, then a batch goes to each in one transaction, and a failure in one applies nothing', async () => {
    const [first, second] = [uniqueName('tally'), uniqueName('names')];
    const failing: Projection = { ...renames(second), apply: async () => Promise.reject(new Error('boom')) };
    const broken = createProjector({
      db,
      name: uniqueName('both'),
      projections: [tally(first), failing],
      logger: silentLogger(),
    });
    await broken.init();
    await expect(broken.applyEvents(await everything())).rejects.toThrow('boom');
    expect(await rows(db, `SELECT * FROM ${first}.tally`)).toEqual([]);

    const projector = createProjector({
      db,
      name: uniqueName('both'),
      projections: [tally(first), renames(second)],
      logger: silentLogger(),
    });
    await projector.init();
    expect(await projector.applyEvents(await everything())).toBe(3 + 1);
    expect(await rows(db, `SELECT stream_id, events FROM ${first}.tally ORDER BY stream_id`)).toEqual([
      { stream_id: 's-1', events: 2 },
      { stream_id: 's-2', events: 1 },
    ]);
    expect(await rows(db, `SELECT name FROM ${second}.names`)).toEqual([{ name: 'first' }]);
  });

  it('when a projection comes back with a higher version, then its read model is rebuilt from position 0 into the new tables at start', async () => {
    const name = uniqueName('tally');
    const v1 = createProjector({ db, projection: tally(name, 1), logger: silentLogger() });
    await v1.init();
    await v1.applyEvents(await everything());
    expect(await rows(db, `SELECT version FROM ${name}.projection_version`)).toEqual([{ version: 1 }]);

    const v2 = createProjector({
      db,
      projection: tally(name, 2),
      logger: silentLogger(),
      rebuildFrom: [store],
    });
    await v2.init();
    expect(await rows(db, `SELECT stream_id, events, total FROM ${name}.tally ORDER BY stream_id`)).toEqual([
      { stream_id: 's-1', events: 2, total: 5 },
      { stream_id: 's-2', events: 1, total: 5 },
    ]);
    expect(await rows(db, `SELECT version FROM ${name}.projection_version`)).toEqual([{ version: 2 }]);
    // Live events go on into the new tables, and the rebuilt checkpoints skip what was replayed.
    await store.append('s-2', [{ type: 'added', version: 1, data: { n: 1 } }], { expectedVersion: 1 });
    expect(await v2.applyEvents(await everything())).toBe(1);
    expect(await rows(db, `SELECT total FROM ${name}.tally WHERE stream_id = 's-2'`)).toEqual([{ total: 6 }]);
    // Started again at the same version: nothing to rebuild.
    await createProjector({ db, projection: tally(name, 2), logger: silentLogger() }).init();
  });

  it('when projections replace an earlier read model that is still there, then they are built from position 0 at start and it is dropped', async () => {
    const [earlier, first, second] = [uniqueName('single'), uniqueName('tally'), uniqueName('names')];
    // The earlier read model has applied everything: its consumer has moved past every event.
    const old = createProjector({ db, projection: tally(earlier, 1), logger: silentLogger() });
    await old.init();
    await old.applyEvents(await everything());
    const slices = () =>
      createProjector({
        db,
        name: earlier,
        projections: [
          { ...tally(first, 2), replaces: [earlier] },
          { ...renames(second), replaces: [earlier] },
        ],
        logger: silentLogger(),
        rebuildFrom: [store],
      });
    await slices().init();
    expect(await rows(db, `SELECT stream_id, events, total FROM ${first}.tally ORDER BY stream_id`)).toEqual([
      { stream_id: 's-1', events: 2, total: 5 },
      { stream_id: 's-2', events: 1, total: 5 },
    ]);
    expect(await rows(db, `SELECT name FROM ${second}.names`)).toEqual([{ name: 'first' }]);
    expect(await rows(db, `SELECT version FROM ${first}.projection_version`)).toEqual([{ version: 2 }]);
    expect(await rows(db, `SELECT nspname FROM pg_namespace WHERE nspname = '${earlier}'`)).toEqual([]);
    // Started again (the earlier one gone): nothing is rebuilt, live events go on.
    const again = slices();
    await again.init();
    await store.append('s-2', [{ type: 'added', version: 1, data: { n: 1 } }], { expectedVersion: 1 });
    expect(await again.applyEvents(await everything())).toBe(1);
    expect(await rows(db, `SELECT total FROM ${first}.tally WHERE stream_id = 's-2'`)).toEqual([
      { total: 6 },
    ]);
  });

  it('when projections that replace an earlier read model start where there is none, then they start empty', async () => {
    const name = uniqueName('tally');
    const projector = createProjector({
      db,
      projection: { ...tally(name, 1), replaces: [uniqueName('never')] },
      logger: silentLogger(),
      rebuildFrom: [store],
    });
    await projector.init();
    expect(await rows(db, `SELECT * FROM ${name}.tally`)).toEqual([]);
  });

  it('when a read model predates versions (checkpoints, no version), then it counts as version 1', async () => {
    const name = uniqueName('tally');
    await createProjector({ db, projection: tally(name, 1), logger: silentLogger() }).init();
    await db.exec(`DROP TABLE ${name}.projection_version`);
    await createProjector({ db, projection: tally(name, 1), logger: silentLogger() }).init();
    expect(await rows(db, `SELECT version FROM ${name}.projection_version`)).toEqual([{ version: 1 }]);
  });

  it('when a version moved on and the projector has no stores to rebuild from, then it refuses to start, saying so', async () => {
    const name = uniqueName('tally');
    await createProjector({ db, projection: tally(name, 1), logger: silentLogger() }).init();
    await expect(
      createProjector({ db, projection: tally(name, 2), logger: silentLogger() }).init(),
    ).rejects.toThrow(/no event stores to rebuild it from/);
  });

  it('when a read model is specified with given/when/then, then it reads like its behaviour, redelivery included', async () => {
    const added = (n: number, streamId = 's-1') => ({ type: 'added', data: { n }, streamId });
    const spec = projectionSpec({ db, projection: (schema) => tally(schema, 2) });
    await spec
      .given([added(1), added(2, 's-2')])
      .when([added(4), { type: 'renamed', data: { name: 'x' } }])
      .thenRedeliveryChangesNothing(async ({ db: read, schema }) => {
        expect(
          await rows(read, `SELECT stream_id, events, total FROM ${schema}.tally ORDER BY stream_id`),
        ).toEqual([
          { stream_id: 's-1', events: 2, total: 5 },
          { stream_id: 's-2', events: 1, total: 2 },
        ]);
      });
  });
});
