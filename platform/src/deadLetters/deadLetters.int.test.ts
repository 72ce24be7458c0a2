import { Registry } from 'prom-client';
import { systemClock } from '../clock';
import { createInProcessBus } from '../eventBus/inProcess';
import { createKafkaBus } from '../eventBus/kafka';
import type { EventBus, Subscription } from '../eventBus/types';
import { createSqlEventStore } from '../eventStore/sqlEventStore';
import type { EventStore, StoredEvent } from '../eventStore/types';
import { createLogger, silentLogger } from '../logging';
import { createProjector, type Projection } from '../projections/projector';
import { createMemoryCheckpointStore } from '../relay/checkpoints';
import { createOutboxRelay, type OutboxRelay } from '../relay/outboxRelay';
import { createTestPGlite } from '../testing/databases';
import { createPostgresDatabase } from '../sql/postgres';
import type { SqlDatabase, SqlExecutor } from '../sql/types';
import { requireServer, uniqueName } from '../testing/env';
import { replayDeadLetters, withDeadLetters } from './bus';
import { createSqlDeadLetterStore, type DeadLetterStore } from './store';

// A Kafka group join takes seconds.
jest.setTimeout(120_000);

/**
 * A read model of "notes" that cannot take a note whose text is in `refused` (the bug), until the test
 * empties it (the fix). Each applied note is counted, so applying one twice would show.
 */
function notesProjection(name: string, refused: Set<string>): Projection {
  return {
    name,
    async setup(tx: SqlExecutor, schema: string) {
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.notes (text text PRIMARY KEY, applied int NOT NULL)`,
      );
    },
    async apply(tx: SqlExecutor, events: StoredEvent[], schema: string) {
      for (const event of events) {
        const { text } = event.data as { text: string };
        if (refused.has(text)) throw new RangeError(`cannot take the note ${text}`);
        await tx.query(
          `INSERT INTO ${schema}.notes (text, applied) VALUES ($1, 1)
           ON CONFLICT (text) DO UPDATE SET applied = notes.applied + 1`,
          [text],
        );
      }
    },
  };
}

async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The buses' own log lines, as JSON: each dead letter must get exactly one, with its event id and error. */
const logged: Record<string, unknown>[] = [];
const logger = createLogger({
  service: 'test',
  level: 'error',
  destination: { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) },
});

const setups: [string, () => Promise<{ db: SqlDatabase; bus: EventBus }>][] = [
  [
    'PGlite + in-process bus',
    async () => ({ db: await createTestPGlite(), bus: createInProcessBus({ logger }) }),
  ],
  [
    'PostgreSQL + Kafka',
    async () => ({
      db: createPostgresDatabase({ connectionString: requireServer('DATABASE_URL') }),
      bus: createKafkaBus({
        brokers: requireServer('KAFKA_BROKERS').split(','),
        clientId: uniqueName('dead-letters-test'),
        logger,
      }),
    }),
  ],
];

describe.each(setups)('dead letters on %s', (_name, makeSetup) => {
  let db: SqlDatabase;
  let raw: EventBus;
  let bus: EventBus;
  let deadLetters: DeadLetterStore;
  let metrics: Registry;
  let store: EventStore;
  let relay: OutboxRelay;
  let topic: string;
  const subscriptions: Subscription[] = [];

  beforeAll(async () => {
    ({ db, bus: raw } = await makeSetup());
  });
  afterAll(async () => {
    await raw.close();
    await db.close();
  });
  beforeEach(async () => {
    metrics = new Registry();
    deadLetters = createSqlDeadLetterStore({ db, clock: systemClock, schema: uniqueName('dead_letters') });
    await deadLetters.init();
    logged.length = 0;
    bus = withDeadLetters(raw, { store: deadLetters, logger: silentLogger(), metrics });
    topic = uniqueName('notes');
    await bus.ensureTopics([topic]);
    store = createSqlEventStore({ db, schema: uniqueName('store') });
    await store.init();
    relay = createOutboxRelay({
      name: 'r',
      store,
      bus,
      checkpoints: createMemoryCheckpointStore(),
      route: (event) => ({ topic, key: event.streamId }),
      logger: silentLogger(),
    });
    relay.start();
  });
  afterEach(async () => {
    await relay.stop();
    await Promise.all(subscriptions.splice(0).map((subscription) => subscription.stop()));
  });

  const note = (text: string) => ({ type: 'noted', version: 1, data: { text } });
  const quick = { maxAttempts: 2, backoff: { initialMs: 10, maxMs: 20 } };

  async function notesOf(schema: string) {
    const { rows } = await db.query<{ text: string; applied: number }>(
      `SELECT text, applied FROM ${schema}.notes ORDER BY text`,
    );
    return rows;
  }

  async function counted(consumer: string): Promise<number | undefined> {
    const metric = await metrics.getSingleMetric('verdict_dead_letters_total')?.get();
    return metric?.values.find((value) => value.labels.topic === topic && value.labels.consumer === consumer)
      ?.value;
  }

  it('when a projection cannot take an event, then the letter is kept with its event id and error, counted, logged once, and its stream goes on; once fixed and replayed, the event is applied once and the letter reads replayed', async () => {
    const refused = new Set(['poison']);
    const schema = uniqueName('notes');
    const projector = createProjector({
      db,
      projection: notesProjection(schema, refused),
      logger: silentLogger(),
    });
    await projector.init();
    const other = createProjector({
      db,
      projection: notesProjection(uniqueName('other'), new Set()),
      logger: silentLogger(),
    });
    await other.init();
    subscriptions.push(await projector.subscribe(bus, [topic], quick));
    expect(await counted(`projector.${schema}`)).toBe(0);

    const appended = await store.append('s-1', [note('first'), note('poison'), note('after')], {
      expectedVersion: 'no_stream',
    });
    const poisonId = (await store.readStream('s-1'))[1]?.eventId as string;
    expect(appended).toBeDefined();

    const [letter] = await until(async () => {
      const { items } = await deadLetters.list({ page: 1, limit: 10 });
      return items.length === 1 ? items : undefined;
    });
    expect(letter).toMatchObject({
      consumer: `projector.${schema}`,
      topic,
      eventId: poisonId,
      eventType: 'noted',
      error: 'RangeError: cannot take the note poison',
      // Twice in its batch of three, then twice alone (maxAttempts 2 each time).
      attempts: 4,
      times: 1,
      status: 'pending',
    });
    // Counted once it is kept, a moment after the row appears.
    await until(async () => (await counted(`projector.${schema}`)) === 1);
    await until(async () => (await notesOf(schema)).length === 2);
    expect(await notesOf(schema)).toEqual([
      { text: 'after', applied: 1 },
      { text: 'first', applied: 1 },
    ]);
    const lines = logged.filter((line) => line.msg === 'message dead-lettered');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ eventId: poisonId, error: 'RangeError: cannot take the note poison' });

    // Another consumer of the topic, which took the event, must not see the replay.
    subscriptions.push(await other.subscribe(bus, [topic], quick));
    refused.clear();
    const replayed = await replayDeadLetters({ store: deadLetters, bus }, { eventId: poisonId });
    expect(replayed.map((sent) => sent.id)).toEqual([letter?.id]);
    await until(async () => (await deadLetters.find([letter?.id as string]))[0]?.status === 'replayed');
    expect(await notesOf(schema)).toEqual([
      { text: 'after', applied: 1 },
      { text: 'first', applied: 1 },
      { text: 'poison', applied: 1 },
    ]);

    // Replaying again sends nothing: the letter is replayed, and the projection keeps what it applied.
    expect(await replayDeadLetters({ store: deadLetters, bus })).toEqual([]);
    await store.append('s-1', [note('later')], { expectedVersion: 3 });
    await until(async () => (await notesOf(schema)).length === 4);
    expect((await notesOf(schema)).find((row) => row.text === 'poison')).toEqual({
      text: 'poison',
      applied: 1,
    });
    expect(await counted(`projector.${schema}`)).toBe(1);
  });

  it('when a replay is delivered twice (replayed again while still replaying), then the projection applies it once', async () => {
    const refused = new Set(['poison']);
    const schema = uniqueName('notes');
    const projector = createProjector({
      db,
      projection: notesProjection(schema, refused),
      logger: silentLogger(),
    });
    await projector.init();
    subscriptions.push(await projector.subscribe(bus, [topic], quick));
    await store.append('s-2', [note('poison'), note('after')], { expectedVersion: 'no_stream' });
    const [letter] = await until(async () => {
      const { items } = await deadLetters.list({ page: 1, limit: 10 });
      return items.length === 1 ? items : undefined;
    });
    await until(async () => (await notesOf(schema)).length === 1);
    refused.clear();
    // Both go out before the consumer has handled the first: the second finds it replaying and sends it again.
    await deadLetters.markReplaying([letter?.id as string]);
    await replayDeadLetters({ store: deadLetters, bus });
    await replayDeadLetters({ store: deadLetters, bus });
    await until(async () => (await deadLetters.find([letter?.id as string]))[0]?.status === 'replayed');
    await store.append('s-2', [note('later')], { expectedVersion: 2 });
    await until(async () => (await notesOf(schema)).length === 3);
    expect(await notesOf(schema)).toEqual([
      { text: 'after', applied: 1 },
      { text: 'later', applied: 1 },
      { text: 'poison', applied: 1 },
    ]);
  });

  it('when a replayed letter fails again, then it is pending again, dead-lettered twice, and counted twice', async () => {
    const schema = uniqueName('notes');
    const projector = createProjector({
      db,
      projection: notesProjection(schema, new Set(['poison'])),
      logger: silentLogger(),
    });
    await projector.init();
    subscriptions.push(await projector.subscribe(bus, [topic], quick));
    await store.append('s-3', [note('poison')], { expectedVersion: 'no_stream' });
    const [letter] = await until(async () => {
      const { items } = await deadLetters.list({ page: 1, limit: 10, status: 'pending' });
      return items.length === 1 ? items : undefined;
    });
    const [sent] = await replayDeadLetters({ store: deadLetters, bus }, { consumer: `projector.${schema}` });
    expect(sent).toMatchObject({ id: letter?.id, status: 'replaying' });
    const again = await until(async () => {
      const [found] = await deadLetters.find([letter?.id as string]);
      return found?.times === 2 ? found : undefined;
    });
    expect(again).toMatchObject({ status: 'pending', times: 2, replayedAt: null });
    await until(async () => (await counted(`projector.${schema}`)) === 2);
    expect((await deadLetters.list({ page: 1, limit: 10 })).total).toBe(1);
  });
});
