// Analytics at scale: 1,000,000 results over 90 days in 2,000 test cases (VERDICT_BENCH_ANALYTICS_RESULTS
// to scale down), generated as test-results events and fed straight into the projector in batches of 1,000
// (as the bus delivers them), on real PostgreSQL. Then the explorer and the analytics summary through an
// in-process gateway (token check, rate limits, internal JWT) next to token-info through the same gateway,
// and the projection's throughput next to a plain multi-row INSERT of the same results.
import { randomUUID } from 'node:crypto';
import { createAnalyticsModule } from '@verdict/analytics';
import { startGateway } from '@verdict/gateway';
import {
  createInProcessBus,
  createMemoryCheckpointStore,
  createSqlDeadLetterStore,
  createMemoryKeyValue,
  createMemoryRateLimiter,
  listen,
  newSecret,
  silentLogger,
  systemClock,
  type StoredEvent,
} from '@verdict/platform';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { benchTenant, timeRequests, uniqueNameForBench } from './support';
import type { BenchRow } from './table';
import { percentile } from './table';

const TEST_CASES = 2_000;
const DAYS = 90;
const BATCH = 1_000;
const REQUESTS = 300;
const WARMUP = 20;
const P99_TARGET_MS = 50;
// Issue 24: the analytics projection keeps up with 15,000 results/s.
const INGEST_RATE = 15_000;
const DAY_MS = 86_400_000;
const ADMIN_KEY = 'bench-admin-key-0123456789';

/** A deterministic pseudo-random sequence, so every run of the bench projects the same data. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

let position = 0;
function event(
  streamId: string,
  streamPosition: number,
  type: string,
  data: unknown,
  projectId: string,
  at: string,
) {
  position += 1;
  return {
    eventId: randomUUID(),
    type,
    version: 1,
    streamId,
    streamPosition,
    globalPosition: position,
    occurredAt: at,
    correlationId: null,
    causationId: null,
    projectId,
    data,
  } satisfies StoredEvent;
}

/**
 * Runs spread evenly over the last 90 days, each executing every test case on one platform: 2% fail at every
 * attempt, 1% fail then pass on a retry (a second result). Yields the events run by run, in batches.
 */
export function* runsOf(projectId: string, results: number, now: number): Generator<StoredEvent[]> {
  const next = random(42);
  const runs = Math.max(1, Math.round(results / (TEST_CASES * 1.01)));
  const base = Array.from({ length: TEST_CASES }, () => 20 + Math.floor(next() * next() * 3_000));
  for (let r = 0; r < runs; r += 1) {
    const runId = `run-${r}`;
    const started = now - DAYS * DAY_MS + Math.floor(((r + 0.5) * DAYS * DAY_MS) / runs);
    const at = (ms: number) => new Date(started + ms).toISOString();
    const stream = `run-${runId}`;
    yield [
      event(
        stream,
        1,
        'run.created',
        {
          runId,
          projectId,
          counter: r + 1,
          ciRunId: null,
          title: null,
          branch: r % 4 === 0 ? 'feature/checkout' : 'main',
          environment: r % 3 === 0 ? 'production' : 'staging',
          commit: { sha: `sha-${Math.floor(r / 2)}` },
          ci: null,
          framework: null,
          shardTotal: null,
          startedAt: at(0),
          tags: [],
        },
        projectId,
        at(0),
      ),
    ];
    const platform = r % 2 === 0 ? 'chromium' : 'firefox';
    let batch: StoredEvent[] = [];
    let n = 0;
    for (let t = 0; t < TEST_CASES; t += 1) {
      const roll = next();
      const duration = Math.round((base[t] ?? 100) * (0.8 + next() * 0.4));
      const attempts = roll < 0.01 ? ['failed', 'passed'] : roll < 0.03 ? ['failed'] : ['passed'];
      for (const [attempt, status] of attempts.entries()) {
        n += 1;
        batch.push(
          event(
            `${stream}-results`,
            n,
            'test.result-recorded',
            {
              runId,
              item: {
                file: `tests/area-${t % 100}/spec-${t % 400}.spec.ts`,
                titlePath: [`Area ${t % 100}`, `test ${t}`],
                project: platform,
                attempt,
                status,
                durationMs: duration,
                startedAt: at(t * 10 + attempt),
                tags: t % 10 === 0 ? ['@smoke'] : [],
              },
            },
            projectId,
            at(t * 10 + attempt),
          ),
        );
        if (batch.length === BATCH) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
    yield [
      event(
        stream,
        2,
        'run.finished',
        { runId, finishedAt: at(TEST_CASES * 10 + 60_000), status: null },
        projectId,
        at(TEST_CASES * 10 + 60_000),
      ),
    ];
  }
}

export async function benchAnalytics(databaseUrl: string): Promise<BenchRow[]> {
  const results = Number(process.env.VERDICT_BENCH_ANALYTICS_RESULTS ?? 1_000_000);
  const db = createPostgresDatabase({
    connectionString: databaseUrl,
    max: 8,
    applicationName: 'bench-analytics',
  });
  const bus = createInProcessBus();
  const internalSecret = newSecret(32);
  const names = {
    readModelSchema: uniqueNameForBench('bench_an'),
    organizationsSchema: uniqueNameForBench('bench_ao'),
    testResultsTopic: uniqueNameForBench('tr'),
    identityTopic: uniqueNameForBench('id'),
  };
  const analytics = createAnalyticsModule(
    { db, bus, clock: systemClock, logger: silentLogger() },
    { internalSecret, names },
  );
  await analytics.projectors.analytics.init();
  const gatewayNames = {
    storeSchema: uniqueNameForBench('bench_gw'),
    readModelSchema: uniqueNameForBench('bench_gwi'),
    topic: uniqueNameForBench('identity'),
  };
  const gateway = await startGateway(
    {
      db,
      bus,
      kv: createMemoryKeyValue(),
      rateLimiter: createMemoryRateLimiter(),
      checkpoints: createMemoryCheckpointStore(),
      clock: systemClock,
      logger: silentLogger(),
      deadLetters: createSqlDeadLetterStore({
        db,
        clock: systemClock,
        schema: uniqueNameForBench('bench_dl'),
      }),
    },
    {
      adminKey: ADMIN_KEY,
      internalSecret,
      publicUrl: 'http://localhost',
      ingestLimitPerMinute: 1200,
      trustProxy: true,
      services: [
        {
          name: 'analytics',
          routes: analytics.routes,
          target: { kind: 'in-process', router: analytics.router },
        },
      ],
      names: gatewayNames,
    },
  );
  const server = await listen(gateway.app, { host: '127.0.0.1', port: 0 });
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // Reads are limited to 100 a minute per token (spec §8): enough tokens for every request of the bench.
  const tenant = await benchTenant(base, ADMIN_KEY, {
    role: 'member',
    tokens: Math.ceil((3 * (REQUESTS + WARMUP)) / 90),
  });
  const { tokens } = tenant;
  const project = { id: tenant.projectId };

  // Projection throughput, next to the same results stored as plain rows.
  const plain = uniqueNameForBench('bench_plain');
  await db.exec(`CREATE TABLE ${plain} (run_id text, file text, title jsonb, project text, attempt int,
    status text, duration_ms float8, started_at timestamptz)`);
  let projected = 0;
  let projectMs = 0;
  let plainMs = 0;
  let seeded = 0;
  const now = Date.now();
  for (const batch of runsOf(project.id, results, now)) {
    let started = performance.now();
    await analytics.projectors.analytics.applyEvents(batch);
    projectMs += performance.now() - started;
    const items = batch.filter((e) => e.type === 'test.result-recorded');
    projected += items.length;
    started = performance.now();
    if (items.length > 0) {
      await db.query(
        `INSERT INTO ${plain} SELECT (e->>'runId'), e->'item'->>'file', e->'item'->'titlePath', e->'item'->>'project',
           (e->'item'->>'attempt')::int, e->'item'->>'status', (e->'item'->>'durationMs')::float8,
           (e->'item'->>'startedAt')::timestamptz
         FROM jsonb_array_elements($1::jsonb) AS e`,
        [JSON.stringify(items.map((e) => e.data))],
      );
    }
    plainMs += performance.now() - started;
    if (projected - seeded >= 100_000) {
      seeded = projected;
      process.stderr.write(`[bench] analytics: ${projected} results projected\n`);
      // What autovacuum does on its own, sooner: a load this fast outruns its analyze threshold, and plans
      // made on the statistics of an empty table scan instead of looking up.
      await db.exec(`ANALYZE ${names.readModelSchema}.case_runs; ANALYZE ${names.readModelSchema}.case_days`);
    }
  }
  // Reads are measured on a settled read model, as autovacuum keeps one whose history is days old: the
  // million rows just loaded vacuumed (visibility map set, so index-only scans stay index-only) and
  // analyzed, rather than with autovacuum working through them while the requests are timed.
  const { rows: tables } = await db.query<{ name: string }>(
    `SELECT tablename AS name FROM pg_tables WHERE schemaname = $1`,
    [names.readModelSchema],
  );
  for (const { name } of tables) await db.exec(`VACUUM (ANALYZE) ${names.readModelSchema}.${name}`);
  const projectionRate = projected / (projectMs / 1000);
  const plainRate = projected / (plainMs / 1000);

  const p = `${base}/api/public/v1/${project.id}`;
  const explorer = await timeRequests(`${p}/test-case-explorer`, tokens, {
    rounds: REQUESTS,
    warmup: WARMUP,
    addressPrefix: '10.1',
  });
  const summary = await timeRequests(`${p}/analytics/summary?dateRange=30d`, tokens, {
    rounds: REQUESTS,
    warmup: WARMUP,
    addressPrefix: '10.1',
  });
  const tokenInfo = await timeRequests(`${p}/token-info`, tokens, {
    rounds: REQUESTS,
    warmup: WARMUP,
    addressPrefix: '10.1',
  });

  await new Promise((resolve) => server.close(resolve));
  await gateway.stop();
  await db.exec(`DROP TABLE ${plain}`);
  // VERDICT_BENCH_ANALYTICS_KEEP=1 keeps the projected read model, to EXPLAIN queries on it afterwards.
  const keep = process.env.VERDICT_BENCH_ANALYTICS_KEEP === '1';
  if (keep) process.stderr.write(`[bench] analytics: read model kept in schema ${names.readModelSchema}\n`);
  for (const schema of [
    ...(keep ? [] : [names.readModelSchema]),
    gatewayNames.storeSchema,
    gatewayNames.readModelSchema,
  ]) {
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
  await db.close();
  const scale = `${(projected / 1e6).toFixed(2)}M results`;
  /** The p99 row (the target) and the p50 row (a typical request) of one endpoint's latencies. */
  const latency = (label: string, times: number[]): BenchRow[] =>
    [99, 50].map((p) => ({
      name: `${label} p${p} through the gateway (${scale}; baseline token-info)`,
      unit: 'ms',
      ours: percentile(times, p),
      baseline: percentile(tokenInfo, p),
      target: p === 99 ? `< ${P99_TARGET_MS} ms` : `p99 < ${P99_TARGET_MS} ms`,
      met: percentile(times, 99) < P99_TARGET_MS,
    }));
  return [
    ...latency('explorer', explorer),
    ...latency('analytics summary', summary),
    {
      name: `projection throughput (${scale}; baseline plain INSERT of the results)`,
      unit: 'results/s',
      ours: projectionRate,
      baseline: plainRate,
      target: `>= ${INGEST_RATE.toLocaleString('en-US')} results/s`,
      met: projectionRate >= INGEST_RATE,
    },
  ];
}
