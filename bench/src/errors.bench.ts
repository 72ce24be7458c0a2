// Issue 31, on real PostgreSQL. The errors explorer at 1,000,000 results over 90 days in 2,000 test cases
// (VERDICT_BENCH_ERRORS_RESULTS to scale down): the failed attempts of those results (5% of tests fail
// both attempts, 3% fail once, then pass; ~12% of results) are generated as test-results events and fed
// straight into the error groups projection in batches of 1,000, then GET /{projectId}/errors is timed
// through the service's HTTP stack (internal identity, validation, envelope), next to the same request on
// an empty project. Then GET /{projectId}/test-runs/{runId}/compare of two 20,000-result runs recorded
// through ingest with every read model inline (VERDICT_BENCH_ERRORS_COMPARE_RESULTS to scale down), next to
// the explorer's p99. Then ingest with signatures (this tree) against the code before them (a git worktree
// of b74faac in the temporary folder), in the same run: every read model inline, four writers, batches of 500.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import path from 'node:path';
import {
  createHttpApp,
  createProjector,
  createSqlEventStore,
  INTERNAL_IDENTITY_HEADER,
  listen,
  mintInternalToken,
  newSecret,
  registerRoutes,
  requireInternalIdentity,
  silentLogger,
  systemClock,
  type SqlDatabase,
  type StoredEvent,
} from '@verdict/platform';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { createCompareRoutes } from '@verdict/test-results/src/compare/routes';
import { errorGroupsProjection } from '@verdict/test-results/src/errors/errorGroups';
import { createErrorRoutes } from '@verdict/test-results/src/errors/routes';
import type { inlineReadModels, testResultsReadModels } from '@verdict/test-results';
import { readModelSchemas } from '@verdict/test-results/src/readStore';
import type { createIngest } from '@verdict/test-results/src/runs/ingest';
import { batchOf } from './ingest.bench';
import { uniqueNameForBench } from './support';
import type { BenchRow } from './table';
import { percentile } from './table';

const TEST_CASES = 2_000;
const DAYS = 90;
const DAY_MS = 86_400_000;
const BATCH = 1_000;
const REQUESTS = 200;
const WARMUP = 20;
const P99_TARGET_MS = 100;
/** The commit before error signatures: its test-results code is the ingest baseline. */
const BEFORE_SIGNATURES = 'b74faac';
const INGEST_WRITERS = 4;
const INGEST_ROUNDS = 3;
const THROUGHPUT_SHARE_TARGET = 0.95;
const ROOT = path.resolve(__dirname, '../..');

const progress = (message: string) => process.stderr.write(`[bench] errors: ${message}\n`);

/** A deterministic pseudo-random sequence, so every run of the bench projects the same data. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * What tests fail with: a test keeps failing the same way, with numbers, ports and ids that change. The
 * order ids are short hex words the normalisation keeps, so one template in seven is a long tail of
 * groups of one (~15,000 at 1M results): the explorer sorts and pages far more groups than a real project has.
 */
const TEMPLATES: ((n: number, t: number) => string)[] = [
  (n) => `Error: expect(received).toBe(expected)\n\nExpected: ${n}\nReceived: ${n + 1}`,
  (n) =>
    `TimeoutError: locator.click: Timeout ${n}ms exceeded.\nCall log:\n  - waiting for getByRole('button')`,
  (n) => `Error: connect ECONNREFUSED 127.0.0.1:${5000 + (n % 1000)}`,
  (n) => `Error: Request failed with status code 503 after ${n} ms`,
  (n) => `TypeError: Cannot read properties of undefined (reading 'item${n % 7}')`,
  (n) => `Error: order ${n.toString(16)}-${(n * 7).toString(16)} was not found in /tmp/run-${n}/orders.json`,
  (_n, t) => `Error: snapshot "area-${t}" does not match`,
];

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
 * Runs spread evenly over the last 90 days, each executing every test case: the error groups see run.created
 * and the failed attempts (the passes, which they skip, are not generated). Yields batches of events.
 */
function* failuresOf(projectId: string, results: number, now: number): Generator<StoredEvent[]> {
  const next = random(31);
  const runs = Math.max(1, Math.round(results / (TEST_CASES * 1.08)));
  for (let r = 0; r < runs; r += 1) {
    const runId = `run-${r}`;
    const started = now - DAYS * DAY_MS + Math.floor(((r + 0.5) * DAYS * DAY_MS) / runs);
    const at = (ms: number) => new Date(started + ms).toISOString();
    const created = {
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
    };
    yield [event(`run-${runId}`, 1, 'run.created', created, projectId, at(0))];
    let batch: StoredEvent[] = [];
    let n = 0;
    for (let t = 0; t < TEST_CASES; t += 1) {
      const roll = next();
      const failedAttempts = roll < 0.05 ? 2 : roll < 0.08 ? 1 : 0;
      const spec = `tests/area-${t % 100}/spec-${t % 400}.spec.ts`;
      for (let attempt = 0; attempt < failedAttempts; attempt += 1) {
        n += 1;
        const message = (TEMPLATES[t % TEMPLATES.length] as (n: number, t: number) => string)(
          Math.floor(next() * 100_000),
          t,
        );
        const item = {
          file: spec,
          titlePath: [`Area ${t % 100}`, `test ${t}`],
          project: r % 2 === 0 ? 'chromium' : 'firefox',
          attempt,
          status: 'failed',
          durationMs: 1_000,
          startedAt: at(t * 10 + attempt),
          error: {
            message,
            stack: `${message.split('\n')[0]}\n    at helper (tests/support/helpers.ts:${t % 90}:5)\n    at ${spec}:${12 + (t % 40)}:7\n    at node_modules/@playwright/test/lib/worker/testInfo.js:310:9`,
            location: { file: spec, line: 12 + (t % 40), column: 7 },
          },
        };
        batch.push(
          event(
            `run-${runId}-results`,
            n,
            'test.result-recorded',
            { runId, item },
            projectId,
            item.startedAt,
          ),
        );
        if (batch.length === BATCH) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  }
}

async function serve(
  db: SqlDatabase,
  prefix: string,
  secret: string,
): Promise<{ server: Server; base: string }> {
  const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'test-results' });
  app.use(requireInternalIdentity({ secret }));
  registerRoutes(app, createErrorRoutes({ db, schemas: readModelSchemas(prefix), clock: systemClock }));
  finish(app);
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  const address = server.address();
  return { server, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

async function timeRequests(url: string, projectId: string, secret: string): Promise<number[]> {
  const times: number[] = [];
  const identity = { organizationId: 'o', projectId, userId: 'u', role: 'member' as const };
  for (let i = 0; i < REQUESTS + WARMUP; i += 1) {
    const token = mintInternalToken({ ...identity, scopes: ['public-api'], tokenId: 't' }, { secret });
    const started = performance.now();
    const response = await fetch(url, { headers: { [INTERNAL_IDENTITY_HEADER]: token } });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    if (i >= WARMUP) times.push(performance.now() - started);
  }
  return times;
}

async function benchExplorer(databaseUrl: string): Promise<{ rows: BenchRow[]; p99: number }> {
  const results = Number(process.env.VERDICT_BENCH_ERRORS_RESULTS ?? 1_000_000);
  const db = createPostgresDatabase({
    connectionString: databaseUrl,
    max: 4,
    applicationName: 'bench-errors',
  });
  const prefix = uniqueNameForBench('bench_err');
  const schema = readModelSchemas(prefix).errors;
  const projector = createProjector({
    db,
    name: schema,
    projections: [errorGroupsProjection(schema)],
    logger: silentLogger(),
  });
  await projector.init();
  const secret = newSecret(32);
  const { server, base } = await serve(db, prefix, secret);
  try {
    const now = Date.now();
    let hits = 0;
    const seeding = performance.now();
    for (const batch of failuresOf('p1', results, now)) {
      hits += batch.filter((e) => e.type === 'test.result-recorded').length;
      await projector.applyEvents(batch);
    }
    // As autovacuum does after a bulk load: statistics, and the visibility map index-only scans need.
    await db.exec(`VACUUM ANALYZE ${schema}.error_hits, ${schema}.error_days, ${schema}.error_signatures`);
    const { rows } = await db.query<{ groups: number }>(
      `SELECT count(*)::int AS groups FROM ${schema}.error_signatures`,
    );
    progress(
      `${hits} failed attempts of ${results} results in ${rows[0]?.groups} groups, seeded in ${Math.round((performance.now() - seeding) / 1000)} s`,
    );
    const ninety = `start_date=${new Date(now - DAYS * DAY_MS).toISOString()}&end_date=${new Date(now).toISOString()}`;
    const empty = await timeRequests(`${base}/empty/errors`, 'empty', secret);
    const last30 = await timeRequests(`${base}/p1/errors`, 'p1', secret);
    const allDays = await timeRequests(
      `${base}/p1/errors?${ninety}&branch=main&sortBy=lastSeen`,
      'p1',
      secret,
    );
    const p99 = (times: number[]) => percentile(times, 99);
    const scale = `${(results / 1e6).toFixed(results >= 1e6 ? 0 : 2)}M results, ${hits} failed attempts, ${DAYS} days`;
    const table: BenchRow[] = [
      {
        name: `errors explorer p99, default 30 days (${scale}; baseline: an empty project)`,
        unit: 'ms',
        ours: p99(last30),
        baseline: p99(empty),
        target: `< ${P99_TARGET_MS} ms p99`,
        met: p99(last30) < P99_TARGET_MS,
      },
      {
        name: `errors explorer p99, 90 days on main by last seen (${scale}; baseline: default 30 days)`,
        unit: 'ms',
        ours: p99(allDays),
        baseline: p99(last30),
        target: `< ${P99_TARGET_MS} ms p99`,
        met: p99(allDays) < P99_TARGET_MS,
      },
    ];
    return { rows: table, p99: p99(last30) };
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.close();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Ingest with signatures against the code before them

interface TestResults {
  createIngest: typeof createIngest;
  testResultsReadModels: typeof testResultsReadModels;
  inlineReadModels: typeof inlineReadModels;
  readModelSchemas: typeof readModelSchemas;
}

/** The test-results code of a tree: its own, imported from its folder (contracts and platform are ours). */
async function testResultsOf(root: string): Promise<TestResults> {
  const src = path.join(root, 'services/test-results/src');
  const [ingest, module, readStore] = (await Promise.all([
    import(path.join(src, 'runs/ingest.ts')),
    import(path.join(src, 'module.ts')),
    import(path.join(src, 'readStore.ts')),
  ])) as [TestResults, TestResults, TestResults];
  return {
    createIngest: ingest.createIngest,
    testResultsReadModels: module.testResultsReadModels,
    inlineReadModels: module.inlineReadModels,
    readModelSchemas: readStore.readModelSchemas,
  };
}

/**
 * A worktree of the commit before signatures, made once outside the repository (under the repository, Jest's
 * module map would find its packages twice), with our node_modules: its own test-results code on our
 * contracts and platform.
 */
function worktreeBefore(): string {
  const dir = path.join(tmpdir(), `verdict-bench-${BEFORE_SIGNATURES}`);
  if (!existsSync(dir)) {
    execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, BEFORE_SIGNATURES], {
      stdio: 'ignore',
    });
  }
  const modules = path.join(dir, 'node_modules');
  if (!existsSync(modules)) symlinkSync(path.join(ROOT, 'node_modules'), modules);
  return dir;
}

/** Results per second through `createIngest` with every read model inline, `writers` runs at once. */
async function ingestRate(db: SqlDatabase, code: TestResults, batches: number): Promise<number> {
  const prefix = uniqueNameForBench('bench_erri');
  const storeSchema = uniqueNameForBench('bench_errs');
  const projections = code.testResultsReadModels(code.readModelSchemas(prefix), prefix);
  await createProjector({ db, name: prefix, projections, logger: silentLogger() }).init();
  const store = createSqlEventStore({
    db,
    schema: storeSchema,
    inline: code.inlineReadModels(projections, silentLogger()),
  });
  await store.init();
  const ingest = code.createIngest({ store, clock: systemClock });
  try {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: INGEST_WRITERS }, async (_, w) => {
        const { run } = await ingest.startRun('p1', { title: `writer ${w}` });
        for (let b = 0; b < batches; b += 1) {
          await ingest.addResults(
            'p1',
            run.id,
            batchOf(`w${w}`, b) as Parameters<typeof ingest.addResults>[2],
          );
        }
      }),
    );
    return (INGEST_WRITERS * batches * batchOf('x', 0).length) / ((performance.now() - started) / 1000);
  } finally {
    for (const projection of projections) await db.exec(`DROP SCHEMA IF EXISTS ${projection.name} CASCADE`);
    await db.exec(`DROP SCHEMA IF EXISTS ${prefix} CASCADE; DROP SCHEMA IF EXISTS ${storeSchema} CASCADE`);
  }
}

async function benchIngestSignatures(databaseUrl: string): Promise<BenchRow[]> {
  const batches = Number(process.env.VERDICT_BENCH_ERRORS_INGEST_BATCHES ?? 10);
  const ours = await testResultsOf(ROOT);
  const before = await testResultsOf(worktreeBefore());
  const db = createPostgresDatabase({
    connectionString: databaseUrl,
    max: 8,
    applicationName: 'bench-errors-ingest',
  });
  const rates: { ours: number[]; before: number[] } = { ours: [], before: [] };
  try {
    await ingestRate(db, ours, 1);
    // Interleaved, each round in the other order, so that neither gains from the machine's moods.
    for (let round = 0; round < INGEST_ROUNDS; round += 1) {
      const order = round % 2 === 0 ? (['before', 'ours'] as const) : (['ours', 'before'] as const);
      for (const which of order)
        rates[which].push(await ingestRate(db, which === 'ours' ? ours : before, batches));
      progress(
        `ingest round ${round + 1}: ours ${Math.round(rates.ours.at(-1) ?? 0)}/s, before ${Math.round(rates.before.at(-1) ?? 0)}/s`,
      );
    }
  } finally {
    await db.close();
  }
  const median = (values: number[]) => percentile(values, 50);
  const results = INGEST_WRITERS * batches * batchOf('x', 0).length;
  return [
    {
      name: `ingest with error signatures, results/s (${INGEST_WRITERS} writers, ${results} results, 10% failing, every read model inline; median of ${INGEST_ROUNDS}; baseline ${BEFORE_SIGNATURES}, before signatures)`,
      unit: '/s',
      ours: median(rates.ours),
      baseline: median(rates.before),
      target: `≥ ${THROUGHPUT_SHARE_TARGET * 100}% of the baseline`,
      met: median(rates.ours) >= THROUGHPUT_SHARE_TARGET * median(rates.before),
    },
  ];
}

// ---------------------------------------------------------------------------------------------------------
// The comparison of two 20,000-result runs

const COMPARE_RESULTS = 20_000;

/** Test `i` of a run: the same 20,000 tests in both, a few failing in each, durations that move. */
function compareItem(i: number, head: boolean) {
  const failed = head ? i % 50 === 1 || i % 200 === 0 : i % 50 === 0;
  const spec = `tests/area-${i % 50}/feature-${i % 400}.spec.ts`;
  return {
    file: spec,
    titlePath: [`Area ${i % 50}`, `test ${head && i % 1_000 === 7 ? `${i} renamed` : i}`],
    project: 'chromium',
    attempt: 0,
    status: failed ? 'failed' : 'passed',
    durationMs: 100 + ((i * (head ? 41 : 37)) % 3_000),
    startedAt: new Date(Date.UTC(2026, 10, 1, head ? 10 : 9) + i * 10).toISOString(),
    ...(failed && {
      error: { message: `Error: expected ${i} to be ${i + 1}`, location: { file: spec, line: 12 } },
    }),
  };
}

async function benchCompare(databaseUrl: string, explorerP99: number): Promise<BenchRow[]> {
  const results = Number(process.env.VERDICT_BENCH_ERRORS_COMPARE_RESULTS ?? COMPARE_RESULTS);
  const db = createPostgresDatabase({
    connectionString: databaseUrl,
    max: 4,
    applicationName: 'bench-compare',
  });
  const code = await testResultsOf(ROOT);
  const prefix = uniqueNameForBench('bench_cmp');
  const storeSchema = uniqueNameForBench('bench_cmps');
  const schemas = code.readModelSchemas(prefix);
  const projections = code.testResultsReadModels(schemas, prefix);
  await createProjector({ db, name: prefix, projections, logger: silentLogger() }).init();
  const store = createSqlEventStore({
    db,
    schema: storeSchema,
    inline: code.inlineReadModels(projections, silentLogger()),
  });
  await store.init();
  const ingest = code.createIngest({ store, clock: systemClock });
  const secret = newSecret(32);
  const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'test-results' });
  app.use(requireInternalIdentity({ secret }));
  registerRoutes(app, createCompareRoutes({ db, schemas }));
  finish(app);
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  try {
    const runIds: string[] = [];
    for (const head of [false, true]) {
      const { run } = await ingest.startRun('p1', { branch: 'main', title: head ? 'head' : 'base' });
      for (let from = 0; from < results; from += 500) {
        const items = Array.from({ length: Math.min(500, results - from) }, (_, k) =>
          compareItem(from + k, head),
        );
        await ingest.addResults('p1', run.id, items as Parameters<typeof ingest.addResults>[2]);
      }
      await ingest.finish('p1', run.id, {});
      runIds.push(run.id);
    }
    progress(`two runs of ${results} results recorded`);
    // As autovacuum does after a bulk load (its naptime is a minute): the planner sees 20,000-row runs.
    await db.exec(`VACUUM ANALYZE ${schemas.runList}.run_tests, ${schemas.caseHistory}.test_cases`);
    const [baseRun, headRun] = runIds;
    const times = await timeRequests(`${base}/p1/test-runs/${headRun}/compare?base=${baseRun}`, 'p1', secret);
    const p99 = percentile(times, 99);
    return [
      {
        name: `run comparison p99, two ${results}-result runs (baseline: errors explorer p99, default 30 days)`,
        unit: 'ms',
        ours: p99,
        baseline: explorerP99,
        target: `< ${P99_TARGET_MS} ms p99`,
        met: p99 < P99_TARGET_MS,
      },
    ];
  } finally {
    await new Promise((resolve) => server.close(resolve));
    for (const projection of projections) await db.exec(`DROP SCHEMA IF EXISTS ${projection.name} CASCADE`);
    await db.exec(`DROP SCHEMA IF EXISTS ${prefix} CASCADE; DROP SCHEMA IF EXISTS ${storeSchema} CASCADE`);
    await db.close();
  }
}

/**
 * `npm run bench errors`; `VERDICT_BENCH_ERRORS_PARTS=explorer,compare` runs only those parts (the explorer
 * always runs: its p99 is the comparison's baseline).
 */
export async function benchErrors(databaseUrl: string): Promise<BenchRow[]> {
  const parts = (process.env.VERDICT_BENCH_ERRORS_PARTS ?? 'explorer,compare,ingest').split(',');
  const explorer = await benchExplorer(databaseUrl);
  return [
    ...explorer.rows,
    ...(parts.includes('compare') ? await benchCompare(databaseUrl, explorer.p99) : []),
    ...(parts.includes('ingest') ? await benchIngestSignatures(databaseUrl) : []),
  ];
}
