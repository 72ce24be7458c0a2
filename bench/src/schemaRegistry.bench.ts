import { EVENT_CATALOG, TestResultRecorded } from '@verdict/contracts';
import { silentLogger, toMessage, type OutgoingMessage } from '@verdict/platform';
import { createKafkaBus } from '@verdict/platform/kafka';
import { createSchemaRegistryCodec } from '@verdict/platform/schemaRegistry';
import { uniqueNameForBench } from './support';
import type { BenchRow } from './table';

const EVENTS = 50_000;
const BATCH = 500;

/** test.result-recorded envelopes as the relay publishes them (about 0.5 KB each). */
function resultEvents(): OutgoingMessage[] {
  return Array.from({ length: EVENTS }, (_, i) =>
    toMessage(
      {
        eventId: `event-${i}`,
        type: TestResultRecorded.type,
        version: TestResultRecorded.version,
        streamId: `run-${i % 50}-results`,
        streamPosition: Math.floor(i / 50) + 1,
        globalPosition: i + 1,
        occurredAt: '2026-01-02T03:04:05.000Z',
        correlationId: `request-${i % 100}`,
        causationId: null,
        projectId: `project-${i % 5}`,
        data: TestResultRecorded.of({
          runId: `run-${i % 50}`,
          item: {
            file: 'tests/checkout.spec.ts',
            titlePath: ['cart', `adds item ${i}`],
            project: 'chromium',
            attempt: 0,
            status: i % 20 === 0 ? 'failed' : 'passed',
            durationMs: 120 + (i % 400),
            startedAt: '2026-01-02T03:04:05.000Z',
            ...(i % 20 === 0 ? { error: { message: 'expected 2 items, got 1' } } : {}),
            tags: ['@cart'],
          },
        }).data,
      },
      `project-${i % 5}`,
    ),
  );
}

/**
 * Publish → consume throughput of 50,000 test.result-recorded events through the Kafka bus with the schema
 * registry's codec (framed, validated on both sides) next to the same bus without it, in the same run.
 */
export async function benchSchemaRegistry(brokers: string[], registryUrl: string): Promise<BenchRow[]> {
  const events = resultEvents();
  const plain = await throughBus(brokers, events, undefined);
  const codec = createSchemaRegistryCodec({ url: registryUrl, events: EVENT_CATALOG });
  await codec.register();
  const framed = await throughBus(brokers, events, codec);
  return [
    {
      name: `bus with schema registry, ${EVENTS.toLocaleString('en-US')} test results (Kafka)`,
      unit: 'msg/s',
      ours: framed,
      baseline: plain,
      target: 'at least half the bus without it',
      met: framed >= 0.5 * plain,
    },
  ];
}

async function throughBus(
  brokers: string[],
  events: OutgoingMessage[],
  codec: ReturnType<typeof createSchemaRegistryCodec> | undefined,
): Promise<number> {
  const bus = createKafkaBus({ brokers, clientId: 'bench-registry', logger: silentLogger(), codec });
  const topic = uniqueNameForBench('bench_registry');
  await bus.ensureTopics([topic], { partitions: 3 });
  let received = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const subscription = await bus.subscribe({
    groupId: uniqueNameForBench('bench_registry_group'),
    topics: [topic],
    fromBeginning: true,
    maxBatchSize: 1000,
    handleBatch: async (messages) => {
      received += messages.length;
      if (received >= EVENTS) done();
    },
  });
  const started = performance.now();
  for (let i = 0; i < EVENTS; i += BATCH) await bus.publish(topic, events.slice(i, i + BATCH));
  await finished;
  const rate = EVENTS / ((performance.now() - started) / 1000);
  await subscription.stop();
  await bus.close();
  return rate;
}
