import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { silentLogger } from '@verdict/platform';
import { createKafkaBus } from '@verdict/platform/kafka';
import { uniqueNameForBench } from './support';
import type { BenchRow } from './table';

const MESSAGES = 50_000;
const BATCH = 500;
const VALUE = 'x'.repeat(1000);

/**
 * Publish → consume throughput of 50,000 1-KB messages through the EventBus port on real Kafka, next to
 * raw kafkajs producing and consuming the same messages with the same durability (idempotent, acks=all).
 */
export async function benchEventBus(brokers: string[]): Promise<BenchRow[]> {
  const raw = await rawKafkajs(brokers);
  const ours = await throughPort(brokers);
  return [
    {
      name: `bus publish→consume, ${MESSAGES.toLocaleString('en-US')} × 1 KB (Kafka)`,
      unit: 'msg/s',
      ours,
      baseline: raw,
      target: 'near raw kafkajs',
      met: ours >= 0.5 * raw,
    },
  ];
}

function keyOf(i: number) {
  return `stream-${i % 200}`;
}

async function throughPort(brokers: string[]): Promise<number> {
  const bus = createKafkaBus({ brokers, clientId: 'bench', logger: silentLogger() });
  const topic = uniqueNameForBench('bench_bus');
  await bus.ensureTopics([topic], { partitions: 3 });
  let received = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const subscription = await bus.subscribe({
    groupId: uniqueNameForBench('bench_group'),
    topics: [topic],
    fromBeginning: true,
    maxBatchSize: 1000,
    handleBatch: async (messages) => {
      received += messages.length;
      if (received >= MESSAGES) done();
    },
  });
  const started = performance.now();
  for (let i = 0; i < MESSAGES; i += BATCH) {
    const messages = Array.from({ length: BATCH }, (_, j) => ({ key: keyOf(i + j), value: VALUE }));
    await bus.publish(topic, messages);
  }
  await finished;
  const rate = MESSAGES / ((performance.now() - started) / 1000);
  await subscription.stop();
  await bus.close();
  return rate;
}

async function rawKafkajs(brokers: string[]): Promise<number> {
  const kafka = new Kafka({ clientId: 'bench-raw', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const topic = uniqueNameForBench('bench_raw');
  await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const consumer = kafka.consumer({ groupId: uniqueNameForBench('bench_raw_group') });
  await producer.connect();
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let received = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  await consumer.run({
    eachBatch: async ({ batch }) => {
      received += batch.messages.length;
      if (received >= MESSAGES) done();
    },
  });
  const started = performance.now();
  for (let i = 0; i < MESSAGES; i += BATCH) {
    const messages = Array.from({ length: BATCH }, (_, j) => ({ key: keyOf(i + j), value: VALUE }));
    await producer.send({ topic, acks: -1, messages });
  }
  await finished;
  const rate = MESSAGES / ((performance.now() - started) / 1000);
  await consumer.disconnect();
  await producer.disconnect();
  return rate;
}
