import { createOutboxRelay, createSqlCheckpointStore, eventOfMessage, silentLogger } from '@verdict/platform';
import { createKafkaBus } from '@verdict/platform/kafka';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { createSqlEventStore, uniqueNameForBench } from './support';
import type { BenchRow } from './table';
import { percentile, sleep } from './table';

const RATE = 5_000;
const SECONDS = 10;
const TICK_MS = 20;

/**
 * Relay lag at a steady 5,000 events/s: writers append to PostgreSQL, the relay publishes to Kafka, a
 * consumer measures the time from each event's occurredAt (taken at append) to its arrival.
 */
export async function benchRelayLag(databaseUrl: string, brokers: string[]): Promise<BenchRow[]> {
  const db = createPostgresDatabase({
    connectionString: databaseUrl,
    max: 6,
    applicationName: 'bench-relay',
  });
  const schema = uniqueNameForBench('bench_relay');
  const store = createSqlEventStore({ db, schema });
  await store.init();
  const bus = createKafkaBus({ brokers, clientId: 'bench-relay', logger: silentLogger() });
  const topic = uniqueNameForBench('bench_relay');
  await bus.ensureTopics([topic], { partitions: 3 });
  const relay = createOutboxRelay({
    name: 'bench',
    store,
    bus,
    checkpoints: await createSqlCheckpointStore(db, schema),
    route: (event) => ({ topic, key: event.streamId }),
    logger: silentLogger(),
  });
  const lags: number[] = [];
  const total = RATE * SECONDS;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const subscription = await bus.subscribe({
    groupId: uniqueNameForBench('bench_relay_group'),
    topics: [topic],
    handleBatch: async (messages) => {
      const now = Date.now();
      for (const message of messages) lags.push(now - Date.parse(eventOfMessage(message).occurredAt));
      if (lags.length >= total) done();
    },
  });
  relay.start();
  const perTick = (RATE * TICK_MS) / 1000;
  const started = Date.now();
  let sent = 0;
  for (let tick = 0; sent < total; tick += 1) {
    const events = Array.from({ length: perTick }, (_, i) => ({
      type: 'bench.event',
      version: 1,
      data: { i: sent + i },
    }));
    await store.append(`s-${tick % 50}`, events, { expectedVersion: 'any' });
    sent += perTick;
    const wait = started + (tick + 1) * TICK_MS - Date.now();
    if (wait > 0) await sleep(wait);
  }
  const achieved = sent / ((Date.now() - started) / 1000);
  await Promise.race([finished, sleep(30_000)]);
  await relay.stop();
  await subscription.stop();
  await bus.close();
  await db.exec(`DROP SCHEMA ${schema} CASCADE`);
  await db.close();
  const p50 = percentile(lags, 50);
  const p99 = percentile(lags, 99);
  return [
    {
      name: `relay lag p50 at ${Math.round(achieved).toLocaleString('en-US')} events/s (PG → Kafka)`,
      unit: 'ms',
      ours: p50,
      baseline: null,
      target: '—',
      met: lags.length >= total,
    },
    {
      name: `relay lag p99 at ${Math.round(achieved).toLocaleString('en-US')} events/s (PG → Kafka)`,
      unit: 'ms',
      ours: p99,
      baseline: null,
      target: '< 250 ms',
      met: p99 < 250 && lags.length >= total,
    },
  ];
}
