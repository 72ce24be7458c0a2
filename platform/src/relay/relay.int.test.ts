import { createInProcessBus } from '../eventBus/inProcess';
import { createKafkaBus } from '../eventBus/kafka';
import type { EventBus, IncomingMessage } from '../eventBus/types';
import { createSqlEventStore } from '../eventStore/sqlEventStore';
import type { EventStore, StoredEvent } from '../eventStore/types';
import { silentLogger } from '../logging';
import { eventOfMessage } from '../projections/projector';
import { createTestPGlite } from '../testing/databases';
import { createPostgresDatabase } from '../sql/postgres';
import type { SqlDatabase } from '../sql/types';
import { requireServer, uniqueName } from '../testing/env';
import { createMemoryCheckpointStore, createSqlCheckpointStore } from './checkpoints';
import { createOutboxRelay } from './outboxRelay';

interface Setup {
  db: SqlDatabase;
  bus: EventBus;
}

// The relay's contract, on the embedded pair (PGlite + in-process bus) and the distributed pair
// (PostgreSQL + Kafka): nothing appended is lost, nothing reordered within a stream.
const setups: [string, () => Promise<Setup>][] = [
  ['PGlite + in-process bus', async () => ({ db: await createTestPGlite(), bus: createInProcessBus() })],
  [
    'PostgreSQL + Kafka',
    async () => ({
      db: createPostgresDatabase({ connectionString: requireServer('DATABASE_URL'), max: 25 }),
      bus: createKafkaBus({
        brokers: requireServer('KAFKA_BROKERS').split(','),
        clientId: uniqueName('relay-test'),
        logger: silentLogger(),
      }),
    }),
  ],
];

/** Collects what a consumer group receives; dedupes by event id as a real idempotent consumer does. */
function collect(bus: EventBus, topic: string) {
  const received: StoredEvent[] = [];
  const seen = new Set<string>();
  let deliveries = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const subscription = bus.subscribe({
    groupId: uniqueName('relay-consumer'),
    topics: [topic],
    handleBatch: async (messages: IncomingMessage[]) => {
      for (const message of messages) {
        deliveries += 1;
        const event = eventOfMessage(message);
        if (seen.has(event.eventId)) continue;
        seen.add(event.eventId);
        received.push(event);
      }
      for (const waiter of [...waiters]) if (received.length >= waiter.count) waiter.resolve();
    },
  });
  return {
    received,
    deliveries: () => deliveries,
    subscription,
    until(count: number, timeoutMs = 90_000) {
      if (received.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`received ${received.length} of ${count} events`)),
          timeoutMs,
        );
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}

function expectStreamsInOrder(events: StoredEvent[]) {
  const last = new Map<string, number>();
  for (const event of events) {
    expect(event.streamPosition).toBe((last.get(event.streamId) ?? 0) + 1);
    last.set(event.streamId, event.streamPosition);
  }
}

describe.each(setups)('outbox relay on %s', (_name, makeSetup) => {
  let setup: Setup;
  let store: EventStore;
  let schema: string;
  let topic: string;

  beforeAll(async () => {
    setup = await makeSetup();
  });
  afterAll(async () => {
    await setup.bus.close();
    await setup.db.close();
  });
  beforeEach(async () => {
    schema = uniqueName('relay');
    topic = uniqueName('relay_topic');
    store = createSqlEventStore({ db: setup.db, schema });
    await store.init();
    await setup.bus.ensureTopics([topic], { partitions: 3 });
  });

  it('when 20 writers append 500 events each concurrently, then the relay delivers all 10,000 with none lost and every stream in order', async () => {
    const consumer = collect(setup.bus, topic);
    await consumer.subscription;
    const relay = createOutboxRelay({
      name: 'test',
      store,
      bus: setup.bus,
      checkpoints: await createSqlCheckpointStore(setup.db, schema),
      route: (event) => ({ topic, key: event.streamId }),
      logger: silentLogger(),
    });
    relay.start();
    await Promise.all(
      Array.from({ length: 20 }, async (_, writer) => {
        for (let batch = 0; batch < 10; batch += 1) {
          const events = Array.from({ length: 50 }, (_, i) => ({
            type: 'counted',
            version: 1,
            data: { writer, n: batch * 50 + i },
          }));
          await store.append(`writer-${writer}`, events, {
            expectedVersion: batch === 0 ? 'no_stream' : batch * 50,
          });
        }
      }),
    );
    await consumer.until(10_000);
    await relay.stop();
    expect(consumer.received).toHaveLength(10_000);
    expect(new Set(consumer.received.map((e) => e.eventId)).size).toBe(10_000);
    expectStreamsInOrder(consumer.received);
    for (let writer = 0; writer < 20; writer += 1) {
      const ns = consumer.received
        .filter((e) => e.streamId === `writer-${writer}`)
        .map((e) => (e.data as { n: number }).n);
      expect(ns).toEqual(Array.from({ length: 500 }, (_, i) => i));
    }
    await (await consumer.subscription).stop();
  });

  it('when a relay crashes after publishing but before saving its checkpoint, then a new relay republishes and nothing is lost', async () => {
    for (let s = 0; s < 5; s += 1) {
      await store.append(
        `stream-${s}`,
        Array.from({ length: 40 }, (_, i) => ({ type: 'e', version: 1, data: { i } })),
        {
          expectedVersion: 'no_stream',
        },
      );
    }
    const consumer = collect(setup.bus, topic);
    await consumer.subscription;
    const checkpoints = await createSqlCheckpointStore(setup.db, schema);
    const failingCheckpoints = {
      load: checkpoints.load,
      save: async () => {
        throw new Error('crash before the checkpoint is saved');
      },
    };
    const route = (event: StoredEvent) => ({ topic, key: event.streamId });
    const crashing = createOutboxRelay({
      name: 'r',
      store,
      bus: setup.bus,
      checkpoints: failingCheckpoints,
      route,
      logger: silentLogger(),
      batchSize: 50,
    });
    await expect(crashing.runOnce()).rejects.toThrow('crash before the checkpoint is saved');

    const restarted = createOutboxRelay({
      name: 'r',
      store,
      bus: setup.bus,
      checkpoints,
      route,
      logger: silentLogger(),
      batchSize: 50,
    });
    expect(await restarted.drain()).toBe(200);
    await consumer.until(200);
    expect(consumer.received).toHaveLength(200);
    expectStreamsInOrder(consumer.received);
    // The first 50 went out twice: at least once, never lost.
    expect(consumer.deliveries()).toBeGreaterThanOrEqual(250);
    expect(await checkpoints.load('r')).toEqual(restarted.position());
    await (await consumer.subscription).stop();
  });

  it('when a relay restarts from its saved checkpoint, then it publishes only what came after', async () => {
    const checkpoints = createMemoryCheckpointStore();
    const route = (event: StoredEvent) => ({ topic, key: event.streamId });
    await store.append('a', [{ type: 'e', version: 1, data: {} }], { expectedVersion: 'no_stream' });
    const first = createOutboxRelay({
      name: 'r',
      store,
      bus: setup.bus,
      checkpoints,
      route,
      logger: silentLogger(),
    });
    expect(await first.drain()).toBe(1);
    await store.append('a', [{ type: 'e', version: 1, data: {} }], { expectedVersion: 1 });
    const second = createOutboxRelay({
      name: 'r',
      store,
      bus: setup.bus,
      checkpoints,
      route,
      logger: silentLogger(),
    });
    expect(await second.drain()).toBe(1);
    expect(await second.drain()).toBe(0);
  });
});
