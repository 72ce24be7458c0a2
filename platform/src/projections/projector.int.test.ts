import { createInProcessBus } from '../eventBus/inProcess';
import { createKafkaBus } from '../eventBus/kafka';
import type { EventBus } from '../eventBus/types';
import { createSqlEventStore } from '../eventStore/sqlEventStore';
import type { EventStore, StoredEvent } from '../eventStore/types';
import { silentLogger } from '../logging';
import { createMemoryCheckpointStore } from '../relay/checkpoints';
import { createOutboxRelay } from '../relay/outboxRelay';
import { createTestPGlite } from '../testing/databases';
import { createPostgresDatabase } from '../sql/postgres';
import type { SqlDatabase, SqlExecutor } from '../sql/types';
import { requireServer, uniqueName } from '../testing/env';
import type { Projection } from './projector';
import { createProjector } from './projector';

/** A small read model: per stream, how many events and the sum of their `n`. */
function totalsProjection(name: string): Projection {
  return {
    name,
    async setup(tx: SqlExecutor, schema: string) {
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.totals (stream_id text PRIMARY KEY, events int NOT NULL, total bigint NOT NULL)`,
      );
    },
    async apply(tx: SqlExecutor, events: StoredEvent[], schema: string) {
      for (const event of events) {
        await tx.query(
          `INSERT INTO ${schema}.totals (stream_id, events, total) VALUES ($1, 1, $2)
           ON CONFLICT (stream_id) DO UPDATE SET events = totals.events + 1, total = totals.total + EXCLUDED.total`,
          [event.streamId, (event.data as { n: number }).n],
        );
      }
    },
  };
}

async function readTotals(db: SqlDatabase, schema: string) {
  const { rows } = await db.query(
    `SELECT stream_id, events, total::int AS total FROM ${schema}.totals ORDER BY stream_id`,
  );
  return rows;
}

async function until(check: () => Promise<boolean>, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const setups: [string, () => Promise<{ db: SqlDatabase; bus: EventBus }>][] = [
  ['PGlite + in-process bus', async () => ({ db: await createTestPGlite(), bus: createInProcessBus() })],
  [
    'PostgreSQL + Kafka',
    async () => ({
      db: createPostgresDatabase({ connectionString: requireServer('DATABASE_URL') }),
      bus: createKafkaBus({
        brokers: requireServer('KAFKA_BROKERS').split(','),
        clientId: uniqueName('projector-test'),
        logger: silentLogger(),
      }),
    }),
  ],
];

describe.each(setups)('projector runner on %s', (_name, makeSetup) => {
  let db: SqlDatabase;
  let bus: EventBus;
  let store: EventStore;
  let name: string;

  beforeAll(async () => {
    ({ db, bus } = await makeSetup());
  });
  afterAll(async () => {
    await bus.close();
    await db.close();
  });
  beforeEach(async () => {
    name = uniqueName('proj');
    store = createSqlEventStore({ db, schema: uniqueName('store') });
    await store.init();
  });

  async function appendSome(streams: number, perStream: number) {
    for (let s = 0; s < streams; s += 1) {
      const events = Array.from({ length: perStream }, (_, i) => ({
        type: 'added',
        version: 1,
        data: { n: i + 1 },
      }));
      await store.append(`s-${s}`, events, { expectedVersion: 'any' });
    }
  }

  it('when the same events are applied twice, then the read model is the same as after once', async () => {
    await appendSome(3, 10);
    const { events } = await store.readAll({ after: { transactionId: '0', globalPosition: 0 }, limit: 1000 });
    const projector = createProjector({ db, projection: totalsProjection(name), logger: silentLogger() });
    await projector.init();
    expect(await projector.applyEvents(events)).toBe(30);
    const once = await readTotals(db, name);
    expect(await projector.applyEvents(events)).toBe(0);
    expect(await projector.applyEvents(events.slice(5, 25))).toBe(0);
    expect(await readTotals(db, name)).toEqual(once);
    expect(once).toEqual([
      { stream_id: 's-0', events: 10, total: 55 },
      { stream_id: 's-1', events: 10, total: 55 },
      { stream_id: 's-2', events: 10, total: 55 },
    ]);
  });

  it('when a projection is rebuilt from position 0, then it equals the live one, and live updates go on into the rebuilt tables', async () => {
    const topic = uniqueName('proj_topic');
    await bus.ensureTopics([topic]);
    const relay = createOutboxRelay({
      name: 'r',
      store,
      bus,
      checkpoints: createMemoryCheckpointStore(),
      route: (event) => ({ topic, key: event.streamId }),
      logger: silentLogger(),
    });
    const projector = createProjector({ db, projection: totalsProjection(name), logger: silentLogger() });
    await projector.init();
    const subscription = await projector.subscribe(bus, [topic]);
    relay.start();
    await appendSome(8, 25);
    const caughtUp = async (events: number) => {
      const rows = await readTotals(db, name);
      return rows.reduce((sum, row) => sum + Number(row.events), 0) === events;
    };
    await until(() => caughtUp(200));
    const live = await readTotals(db, name);

    expect(await projector.rebuild(store)).toBe(200);
    expect(await readTotals(db, name)).toEqual(live);

    await appendSome(8, 1);
    await until(() => caughtUp(208));
    expect((await readTotals(db, name)).every((row) => Number(row.events) === 26)).toBe(true);

    await relay.stop();
    await subscription.stop();
  });
});
