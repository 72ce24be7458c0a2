import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  createHttpApp,
  createSqlCheckpointStore,
  createFilesystemBlobStore,
  INTERNAL_IDENTITY_HEADER,
  listen,
  mintInternalToken,
  newSecret,
  silentLogger,
  systemClock,
  type EventBus,
  type SqlDatabase,
  type SqlExecutor,
} from '@verdict/platform';
import { createKafkaBus } from '@verdict/platform/kafka';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { createTestResultsModule } from '@verdict/test-results';
import { createWebhooksModule } from '@verdict/webhooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { uniqueNameForBench } from './support';
import type { BenchRow } from './table';
import { percentile, sleep } from './table';

const RUNS_PER_SECOND = 50;
const SECONDS = 10;
const PROJECTS = 50;
const SUBSCRIPTIONS_PER_PROJECT = 4;
const RESULTS_PER_RUN = 5;

/** Wall-clock milliseconds, comparable with the timestamps the services write (Date-based clocks). */
const wallNow = () => performance.timeOrigin + performance.now();

interface StatementStats {
  count: number;
  rows: number[];
  ms: number[];
}

/**
 * Counts the statements a database runs (transactions included), to see the queries per event, and times
 * those whose text contains one of `watched` (the dispatcher's claim, its recording of successes…).
 */
function countingDb(
  db: SqlDatabase,
  watched: Record<string, string>,
): { db: SqlDatabase; count(): number; stats: Record<string, StatementStats>; reset(): void } {
  let statements = 0;
  const stats: Record<string, StatementStats> = {};
  const reset = () => {
    statements = 0;
    for (const name of Object.keys(watched)) stats[name] = { count: 0, rows: [], ms: [] };
  };
  reset();
  const run = async <Row>(work: () => Promise<{ rows: Row[]; rowCount: number }>, text: string) => {
    statements += 1;
    const started = performance.now();
    const result = await work();
    for (const [name, marker] of Object.entries(watched)) {
      const entry = stats[name];
      if (entry && text.includes(marker)) {
        entry.count += 1;
        entry.rows.push(result.rows.length);
        entry.ms.push(performance.now() - started);
      }
    }
    return result;
  };
  const counted = (executor: SqlExecutor): SqlExecutor => ({
    query: (text, params, options) => run(() => executor.query(text, params, options), text),
  });
  const wrapped: SqlDatabase = {
    kind: db.kind,
    query: (text, params, options) => run(() => db.query(text, params, options), text),
    transaction: (work) => db.transaction((tx) => work(counted(tx))),
    exec: (sql) => db.exec(sql),
    ping: () => db.ping(),
    close: () => db.close(),
  };
  return { db: wrapped, count: () => statements, stats, reset };
}

/** Per event id: when the relay's publish of it resolved. */
function timedPublisher(bus: EventBus, published: Map<string, number>): EventBus {
  return {
    ...bus,
    publish: async (topic, messages) => {
      await bus.publish(topic, messages);
      const at = wallNow();
      for (const m of messages) published.set(m.headers?.['event-id'] ?? '', at);
    },
  };
}

/** Per event id: when the webhooks consumer got it; and each batch's size and handling time. */
function timedConsumer(
  bus: EventBus,
  consumed: Map<string, number>,
  batches: { size: number; ms: number }[],
): EventBus {
  return {
    ...bus,
    subscribe: (options) =>
      bus.subscribe({
        ...options,
        handleBatch: async (messages, context) => {
          const at = wallNow();
          for (const m of messages) consumed.set(m.headers['event-id'] ?? '', at);
          await options.handleBatch(messages, context);
          batches.push({ size: messages.length, ms: wallNow() - at });
        },
      }),
  };
}

const median = (values: number[]) => percentile(values, 50);
const describe = (values: number[]) =>
  `p50 ${median(values).toFixed(0)} / p99 ${percentile(values, 99).toFixed(0)} ms`;

/**
 * Webhook latency: the time from `run.finished` accepted (the finish call of ingest resolved, so the event
 * is durable) to the signed POST arriving at a loopback receiver, at 50 runs/s with 200 subscriptions over
 * 50 projects. Distributed-like: real PostgreSQL and Kafka, the test-results and webhooks modules in this
 * process (each on its own connections, consumer group and schema), the receiver in this process too.
 * Baseline: the same body POSTed straight to the receiver, the floor of any delivery.
 */
export async function benchWebhooks(options: {
  databaseUrl: string;
  kafkaBrokers: string[];
}): Promise<BenchRow[]> {
  const logger = silentLogger();
  const internalSecret = newSecret(32);
  const trDb = createPostgresDatabase({
    connectionString: options.databaseUrl,
    max: 8,
    applicationName: 'bench-tr',
  });
  const whPool = createPostgresDatabase({
    connectionString: options.databaseUrl,
    max: 8,
    applicationName: 'bench-wh',
  });
  const whCounted = countingDb(whPool, {
    claim: 'SKIP LOCKED',
    successes: 'AS i(id text, lease text',
    enqueue: "'dlv_' || md5(s.id",
  });
  const whDb = whCounted.db;
  const published = new Map<string, number>();
  const consumed = new Map<string, number>();
  const batches: { size: number; ms: number }[] = [];
  const trBusRaw = createKafkaBus({ brokers: options.kafkaBrokers, clientId: 'bench-tr', logger });
  const whBusRaw = createKafkaBus({ brokers: options.kafkaBrokers, clientId: 'bench-wh', logger });
  const trBus = timedPublisher(trBusRaw, published);
  const whBus = timedConsumer(whBusRaw, consumed, batches);
  const topic = uniqueNameForBench('bench_tr');
  const trSchema = uniqueNameForBench('bench_tr');
  const webhooksSchema = uniqueNameForBench('bench_wh');
  const blobDir = mkdtempSync(path.join(tmpdir(), 'bench-wh-'));
  const testResults = createTestResultsModule(
    {
      db: trDb,
      bus: trBus,
      blobs: createFilesystemBlobStore({ root: blobDir }),
      checkpoints: await createSqlCheckpointStore(trDb, trSchema),
      clock: systemClock,
      logger,
    },
    {
      internalSecret,
      artifactMaxBytes: 1024,
      publicUrl: 'http://localhost:8080',
      urlSigningSecret: newSecret(32),
      names: { storeSchema: trSchema, topic, readModelSchema: uniqueNameForBench('bench_trr') },
    },
  );
  const webhooks = createWebhooksModule(
    { db: whDb, bus: whBus, clock: systemClock, logger },
    {
      internalSecret,
      secretKey: newSecret(32),
      publicUrl: 'http://localhost:8080',
      eventNameCutover: new Date('2026-12-11T00:00:00Z'),
      retryDelaysMs: [60_000, 300_000, 1_800_000, 7_200_000],
      allowPrivateNetworks: true,
      timeoutMs: 15_000,
      concurrency: 64,
      names: {
        schema: webhooksSchema,
        projection: uniqueNameForBench('bench_whr'),
        topic,
        consumerGroup: uniqueNameForBench('bench_whg'),
      },
    },
  );
  await testResults.start();
  await webhooks.start();
  const { app, finish } = createHttpApp({ logger, service: 'webhooks' });
  app.use(webhooks.router);
  finish(app);
  const api = await listen(app, { host: '127.0.0.1', port: 0 });
  const apiBase = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;

  const arrivals = new Map<string, number[]>();
  let baselineArrival: (() => void) | null = null;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { run?: { id: string } } };
      const runId = body.data?.run?.id;
      if (runId === 'baseline') baselineArrival?.();
      else if (runId !== undefined) arrivals.set(runId, [...(arrivals.get(runId) ?? []), at]);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const projects = Array.from({ length: PROJECTS }, (_, i) => `bench-project-${i}`);
  for (const projectId of projects) {
    const token = mintInternalToken(
      { organizationId: 'o', projectId, userId: 'u', role: 'owner', scopes: ['public-api'], tokenId: 't' },
      { secret: internalSecret },
    );
    for (let s = 0; s < SUBSCRIPTIONS_PER_PROJECT; s += 1) {
      const response = await fetch(`${apiBase}/${projectId}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_IDENTITY_HEADER]: token },
        body: JSON.stringify({ url: hookUrl, events: ['run.finished'] }),
      });
      if (response.status !== 200) throw new Error(`subscription refused: ${response.status}`);
    }
  }

  // Warm-up: one run end to end, so connections, partitions and the consumer group are settled.
  const warm = await testResults.ingest.startRun(projects[0] as string, { title: 'warm-up' });
  await testResults.ingest.finish(projects[0] as string, warm.run.id, {});
  while ((arrivals.get(warm.run.id)?.length ?? 0) < SUBSCRIPTIONS_PER_PROJECT) await sleep(20);

  const acceptedAt = new Map<string, number>();
  const total = RUNS_PER_SECOND * SECONDS;
  batches.length = 0;
  whCounted.reset();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const finishCalls: number[] = [];
  const work: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / RUNS_PER_SECOND;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const projectId = projects[i % PROJECTS] as string;
    work.push(
      (async () => {
        const { run } = await testResults.ingest.startRun(projectId, { title: `bench ${i}`, branch: 'main' });
        await testResults.ingest.addResults(
          projectId,
          run.id,
          Array.from({ length: RESULTS_PER_RUN }, (_, r) => ({
            file: 'tests/bench.spec.ts',
            titlePath: ['Bench', `test ${r}`],
            attempt: 0,
            status: r === 0 && i % 10 === 0 ? 'failed' : 'passed',
            durationMs: 5,
            startedAt: new Date().toISOString(),
          })),
        );
        const calledAt = performance.now();
        await testResults.ingest.finish(projectId, run.id, {});
        acceptedAt.set(run.id, performance.now());
        finishCalls.push(performance.now() - calledAt);
      })(),
    );
  }
  await Promise.all(work);
  const offered = total / ((performance.now() - started) / 1000);
  const deadline = Date.now() + 120_000;
  const expected = total * SUBSCRIPTIONS_PER_PROJECT;
  const received = () => [...acceptedAt.keys()].reduce((n, id) => n + (arrivals.get(id)?.length ?? 0), 0);
  while (received() < expected && Date.now() < deadline) await sleep(50);
  const latencies = [...acceptedAt].flatMap(([id, at]) => (arrivals.get(id) ?? []).map((t) => t - at));
  loopDelay.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const cpuShare = (cpu.user + cpu.system) / 1000 / (performance.now() - wallBefore);
  const statements = whCounted.count();

  // Baseline: a POST of a delivery-sized body straight to the receiver.
  const sample = JSON.stringify({
    id: 'x',
    event: 'RUN_FINISHED',
    data: { run: { id: 'baseline', pad: 'x'.repeat(500) } },
  });
  const direct: number[] = [];
  for (let i = 0; i < 500; i += 1) {
    const arrived = new Promise<void>((resolve) => (baselineArrival = resolve));
    const t0 = performance.now();
    await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: sample });
    await arrived;
    direct.push(performance.now() - t0);
  }

  // Where the time goes, per run.finished: accepted → relayed to Kafka → consumed by the webhooks service →
  // queued (committed with the projection) → first attempt → received.
  const { rows: stages } = await whDb.query<{ run_id: string; source_event_id: string; created_at: Date }>(
    `SELECT DISTINCT run_json::jsonb->>'id' AS run_id, source_event_id, created_at
     FROM ${webhooksSchema}.deliveries WHERE event_name = 'run.finished'`,
  );
  const toWall = (at: number) => performance.timeOrigin + at;
  const stage = {
    relayed: [] as number[],
    consumed: [] as number[],
    queued: [] as number[],
    sent: [] as number[],
  };
  for (const row of stages) {
    const accepted = acceptedAt.get(row.run_id);
    const relayed = published.get(row.source_event_id);
    const got = consumed.get(row.source_event_id);
    const arrived = arrivals.get(row.run_id);
    if (accepted === undefined || relayed === undefined || got === undefined || arrived === undefined)
      continue;
    const queued = new Date(row.created_at).getTime();
    stage.relayed.push(relayed - toWall(accepted));
    stage.consumed.push(got - relayed);
    stage.queued.push(queued - got);
    stage.sent.push(toWall(Math.max(...arrived)) - queued);
  }
  const sizes = batches.map((b) => b.size);
  process.stderr.write(
    [
      `[bench] webhooks stages (per run.finished): accepted→relayed ${describe(stage.relayed)}; relayed→consumed ${describe(stage.consumed)}; consumed→queued ${describe(stage.queued)}; queued→last of its deliveries received ${describe(stage.sent)}`,
      `[bench] webhooks consumer: ${batches.length} batches, size p50 ${median(sizes)} max ${Math.max(...sizes)}, handling ${describe(batches.map((b) => b.ms))}; ${statements} webhooks statements for ${total * 3} events (${(statements / (total * 3)).toFixed(2)} each, attempts included)`,
      ...Object.entries(whCounted.stats).map(
        ([name, st]) =>
          `[bench] webhooks ${name}: ${st.count} statements, rows p50 ${median(st.rows)} max ${Math.max(0, ...st.rows)}, ${describe(st.ms)}`,
      ),
      `[bench] bench process CPU ${(cpuShare * 100).toFixed(0)}% of one core over the load phase`,
      `[bench] ingest finish call ${describe(finishCalls)}; event-loop delay p50 ${(loopDelay.percentile(50) / 1e6).toFixed(0)} / p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} / max ${(loopDelay.max / 1e6).toFixed(0)} ms`,
      '',
    ].join('\n'),
  );
  await webhooks.stop();
  await testResults.stop();
  await new Promise<void>((resolve) => api.close(() => resolve()));
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await Promise.all([trBusRaw.close(), whBusRaw.close()]);
  await Promise.all([trDb.close(), whPool.close()]);
  rmSync(blobDir, { recursive: true, force: true });

  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  process.stderr.write(
    `[bench] webhooks: ${latencies.length}/${expected} deliveries received, offered ${offered.toFixed(1)} runs/s\n`,
  );
  return [
    {
      name: `webhook run.finished → received p50 (${RUNS_PER_SECOND} runs/s, ${PROJECTS * SUBSCRIPTIONS_PER_PROJECT} subs)`,
      unit: 'ms',
      ours: p50,
      baseline: percentile(direct, 50),
      target: 'p99 under 1 s',
      met: p50 < 1_000,
    },
    {
      name: `webhook run.finished → received p99 (${RUNS_PER_SECOND} runs/s, ${PROJECTS * SUBSCRIPTIONS_PER_PROJECT} subs)`,
      unit: 'ms',
      ours: p99,
      baseline: percentile(direct, 99),
      target: 'p99 under 1 s, every delivery received',
      met: p99 < 1_000 && latencies.length === expected,
    },
  ];
}
