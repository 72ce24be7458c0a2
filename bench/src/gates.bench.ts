// Issue 32, on real PostgreSQL, through an in-process gateway (token check, rate limits, internal JWT) in
// front of the test-results module. Runs of 20,000 results in 8 shards (VERDICT_BENCH_GATES_RESULTS to
// scale down) are recorded through ingest; the project has gate rules and 1,000 quarantined tests. Timed:
// - the gate's judgement as a finishing run makes it (the verdicts of its failures and the rules against
//   its stats, what run.finished waits for), 200 times on the last run;
// - POST …/finish of each run's last shard through the gateway (records run.finished with the gate);
// - the reporters' quarantine fetch, GET /quarantined-tests (1,000 of them) through the gateway;
// each next to token-info through the same gateway, in the same run.
import { startGateway } from '@verdict/gateway';
import {
  createInProcessBus,
  createMemoryCheckpointStore,
  createMemoryKeyValue,
  createMemoryRateLimiter,
  createSqlDeadLetterStore,
  listen,
  newSecret,
  silentLogger,
  systemClock,
} from '@verdict/platform';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { createTestResultsModule } from '@verdict/test-results';
import { judgeRun } from '@verdict/test-results/src/gates/runGate';
import { readModelSchemas } from '@verdict/test-results/src/readStore';
import { runFailures } from '@verdict/test-results/src/verdicts/runFailures';
import { createFilesystemBlobStore } from '@verdict/platform';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchTenant, timeRequests, uniqueNameForBench } from './support';
import type { BenchRow } from './table';
import { percentile } from './table';

const SHARDS = 8;
const RUNS = 5;
const BATCH = 500;
const QUARANTINED = 1_000;
const REQUESTS = 200;
const WARMUP = 20;
const GATE_TARGET_MS = 200;
const FETCH_TARGET_MS = 50;
const ADMIN_KEY = 'bench-admin-key-0123456789';

const progress = (message: string) => process.stderr.write(`[bench] gates: ${message}\n`);

interface Item {
  file: string;
  titlePath: string[];
  project: string;
  attempt: number;
  status: 'passed' | 'failed';
  durationMs: number;
  startedAt: string;
  error?: { message: string; location: { file: string; line: number; column: number } };
}

/** Shard `shard` of a run of `results` results: 2% of tests fail (with one of five errors), 1% flake. */
function shardItems(results: number, shard: number, run: number, at: string): Item[] {
  const perShard = Math.floor(results / SHARDS);
  const items: Item[] = [];
  for (let i = 0; i < perShard; i += 1) {
    const t = shard * perShard + i;
    const file = `tests/area-${t % 50}/spec-${t % 500}.spec.ts`;
    const base = {
      file,
      titlePath: [`Area ${t % 50}`, `test ${t}`],
      project: 'chromium',
      durationMs: 120,
      startedAt: at,
    };
    const roll = (t * 7919 + run * 104729) % 1000;
    const error = {
      message: `Error: expected ${t % 5} to equal ${(t % 5) + 1}`,
      location: { file, line: 10 + (t % 5), column: 3 },
    };
    if (roll < 20) items.push({ ...base, attempt: 0, status: 'failed', error });
    else if (roll < 30) {
      items.push({ ...base, attempt: 0, status: 'failed', error });
      items.push({ ...base, attempt: 1, status: 'passed' });
    } else items.push({ ...base, attempt: 0, status: 'passed' });
  }
  return items;
}

export async function benchGates(databaseUrl: string): Promise<BenchRow[]> {
  const results = Number(process.env.VERDICT_BENCH_GATES_RESULTS ?? 20_000);
  const db = createPostgresDatabase({
    connectionString: databaseUrl,
    max: 8,
    applicationName: 'bench-gates',
  });
  const bus = createInProcessBus();
  const internalSecret = newSecret(32);
  const blobDir = mkdtempSync(path.join(tmpdir(), 'verdict-bench-gates-'));
  const gatewayNames = {
    storeSchema: uniqueNameForBench('bench_gw'),
    readModelSchema: uniqueNameForBench('bench_gwi'),
    topic: uniqueNameForBench('identity'),
  };
  const names = {
    storeSchema: uniqueNameForBench('bench_tr'),
    topic: uniqueNameForBench('tr'),
    readModelSchema: uniqueNameForBench('bench_trr'),
    identityTopic: gatewayNames.topic,
    identityStoreSchema: gatewayNames.storeSchema,
  };
  const testResults = createTestResultsModule(
    {
      db,
      bus,
      blobs: createFilesystemBlobStore({ root: blobDir }),
      checkpoints: createMemoryCheckpointStore(),
      clock: systemClock,
      logger: silentLogger(),
    },
    {
      internalSecret,
      artifactMaxBytes: 1024,
      publicUrl: 'http://localhost',
      urlSigningSecret: newSecret(32),
      names,
    },
  );
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
      ingestLimitPerMinute: 100_000,
      trustProxy: true,
      services: [
        {
          name: 'test-results',
          routes: testResults.routes,
          target: { kind: 'in-process', router: testResults.router },
        },
      ],
      names: gatewayNames,
    },
  );
  // After the gateway: its identity store exists for the members read model to be rebuilt from.
  await testResults.start();
  const server = await listen(gateway.app, { host: '127.0.0.1', port: 0 });
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // Reads are limited to 100 a minute per token and writes to 60 (spec §8): enough tokens for every
  // request of the bench. An admin: the gate rules are set by owners and admins.
  const tenant = await benchTenant(base, ADMIN_KEY, {
    role: 'admin',
    tokens: Math.ceil((2 * (REQUESTS + WARMUP)) / 90) + Math.ceil(QUARANTINED / 45),
  });
  const { tokens } = tenant;
  const project = { id: tenant.projectId };
  const user = { id: tenant.userId };
  let turn = 0;
  const api = async <T>(
    method: string,
    route: string,
    body?: unknown,
  ): Promise<{ status: number; data: T }> => {
    turn += 1;
    const response = await fetch(`${base}/api/public/v1/${project.id}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[turn % tokens.length] as string}`,
        'content-type': 'application/json',
        'x-forwarded-for': `10.3.${(turn >> 8) & 255}.${turn & 255}`,
      },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const parsed = (await response.json()) as { data: T };
    return { status: response.status, data: parsed.data };
  };
  const rules = await api('PUT', '/gate-rules', {
    maxFailedTests: 0,
    noNewFailures: true,
    minPassRate: 0.9,
    maxFlakyRate: 0.05,
    minTestCount: 100,
    requiredProjects: ['chromium'],
  });
  if (rules.status !== 200) throw new Error(`gate rules: ${rules.status}`);

  const ingest = testResults.ingest;
  const lastShard: number[] = [];
  let lastRunId = '';
  let quarantined = 0;
  for (let run = 0; run < RUNS; run += 1) {
    const at = new Date().toISOString();
    let runId = '';
    for (let shard = 0; shard < SHARDS; shard += 1) {
      const { run: started } = await ingest.startRun(project.id, {
        ciRunId: `bench-${run}`,
        branch: 'main',
        shard: { current: shard + 1, total: SHARDS },
      });
      runId = started.id;
      const items = shardItems(results, shard, run, at);
      for (let i = 0; i < items.length; i += BATCH) {
        await ingest.addResults(project.id, runId, items.slice(i, i + BATCH));
      }
    }
    for (let shard = 0; shard < SHARDS - 1; shard += 1) {
      await ingest.finish(project.id, runId, { shard: { current: shard + 1, total: SHARDS } });
    }
    const started = performance.now();
    const finished = await api('POST', `/test-runs/${runId}/finish`, {
      shard: { current: SHARDS, total: SHARDS },
    });
    lastShard.push(performance.now() - started);
    if (finished.status !== 200) throw new Error(`finish: ${finished.status}`);
    lastRunId = runId;
    progress(`run ${run + 1}/${RUNS} of ${results} results in ${SHARDS} shards recorded`);
    if (run === 0) {
      // 1,000 quarantined tests (by id, naming the signature they fail with): what the reporters fetch.
      const { data: cases } = await api<{
        failures: { items: { testCaseId: string; signature: { id: string } | null }[] };
      }>('GET', `/test-runs/${runId}?include=failures`);
      const failing = cases.failures.items;
      const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
      let made = 0;
      // A scaled-down run has fewer tests than that: each of them, then.
      for (let t = 0; made < QUARANTINED && t < results; t += 1) {
        const failure = failing[t];
        const body = failure
          ? {
              testCaseId: failure.testCaseId,
              signatures: failure.signature ? [failure.signature.id] : ['000000000000'],
            }
          : {
              file: `tests/area-${t % 50}/spec-${t % 500}.spec.ts`,
              titlePath: [`Area ${t % 50}`, `test ${t}`],
              signatures: ['000000000000'],
            };
        const answer = await api('POST', '/quarantines', {
          ...body,
          reason: 'bench',
          ownerId: user.id,
          expiresAt,
        });
        if (answer.status === 201) made += 1;
        else if (answer.status !== 409)
          throw new Error(`quarantine: ${answer.status} ${JSON.stringify(answer.data)}`);
      }
      quarantined = made;
      progress(`${made} tests quarantined`);
    }
  }
  // The judgement alone, as a finishing run makes it: the failures' verdicts, then the rules.
  const store = { db, schemas: readModelSchemas(names.readModelSchema) };
  const judged: number[] = [];
  const finishedAt = new Date().toISOString();
  for (let i = 0; i < REQUESTS + WARMUP; i += 1) {
    const started = performance.now();
    const failures = await runFailures(store, project.id, lastRunId, new Date(finishedAt));
    await judgeRun(store, project.id, lastRunId, failures, finishedAt);
    if (i >= WARMUP) judged.push(performance.now() - started);
  }
  const p = `${base}/api/public/v1/${project.id}`;
  const fetches = await timeRequests(`${p}/quarantined-tests`, tokens, {
    rounds: REQUESTS,
    warmup: WARMUP,
    addressPrefix: '10.2',
  });
  const tokenInfo = await timeRequests(`${p}/token-info`, tokens, {
    rounds: REQUESTS,
    warmup: WARMUP,
    addressPrefix: '10.2',
  });

  await new Promise((resolve) => server.close(resolve));
  await testResults.stop();
  await gateway.stop();
  await db.close();
  rmSync(blobDir, { recursive: true, force: true });
  const scale = `${results.toLocaleString('en-US')} results in ${SHARDS} shards`;
  return [
    ...[99, 50].map((q) => ({
      name: `gate judged as the last shard finishes p${q} (${scale}; baseline token-info)`,
      unit: 'ms',
      ours: percentile(judged, q),
      baseline: percentile(tokenInfo, q),
      target: q === 99 ? `< ${GATE_TARGET_MS} ms` : `p99 < ${GATE_TARGET_MS} ms`,
      met: percentile(judged, 99) < GATE_TARGET_MS,
    })),
    {
      name: `POST finish of the last shard through the gateway, slowest of ${RUNS} runs (${scale}; baseline token-info p99)`,
      unit: 'ms',
      ours: Math.max(...lastShard),
      baseline: percentile(tokenInfo, 99),
      target: 'reported (includes the gate)',
      met: true,
    },
    ...[99, 50].map((q) => ({
      name: `quarantine fetch, ${quarantined} quarantined tests, p${q} (baseline token-info)`,
      unit: 'ms',
      ours: percentile(fetches, q),
      baseline: percentile(tokenInfo, q),
      target: q === 99 ? `< ${FETCH_TARGET_MS} ms` : `p99 < ${FETCH_TARGET_MS} ms`,
      met: percentile(fetches, 99) < FETCH_TARGET_MS,
    })),
  ];
}
