// Ingest through the gateway in the distributed mode: the gateway, the test-results API and its projector as
// their own processes on real PostgreSQL, Kafka and Redis, fed batches of 500 realistic results (5 steps, a few
// lines of stdout, one in ten failing and half of those with a stack). Next to it, in the same run, the
// baseline: a raw multi-row INSERT of the same rows into PostgreSQL from as many writers.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { AdminOrganization, AdminProject, AdminUser, IssuedToken, successEnvelope } from '@verdict/contracts';
import { adminClient, inParallel, startService, type Admin, type Child } from './processes';
import type { BenchRow } from './table';
import { percentile, sleep } from './table';

export interface IngestBenchServers {
  databaseUrl: string;
  kafkaBrokers: string;
  redisUrl: string;
}

export const BATCH = 500;
/** Concurrent writers, each a CI shard streaming into its own run, as a sharded Playwright suite does. */
const WRITERS = 8;
const THROUGHPUT_S = 20;
const LAG_RATE = 5_000;
const LAG_S = 20;
const READ_TOKENS = 60;
const POLL_MS = 20;
const THROUGHPUT_TARGET = 20_000;
const RAW_SHARE_TARGET = 0.4;
const LAG_P99_TARGET_MS = 100;
/** The runs read model is written with the results (inline): readable should follow accepted closely. */
const READABLE_SHARE_TARGET = 0.95;
const RSS_TARGET_MB = 300;

const progress = (message: string) => process.stderr.write(`[bench] ingest: ${message}\n`);

// ---------------------------------------------------------------------------------------------------------
// Results

/** A result as a Playwright reporter sends it: about 1.2 KB of JSON, a stack on half the failures. */
function result(run: string, index: number) {
  const spec = `tests/area-${index % 50}/feature-${index % 400}.spec.ts`;
  const failed = index % 10 === 0;
  const line = 12 + (index % 200);
  const startedAt = new Date(Date.UTC(2026, 10, 1, 9) + index * 40).toISOString();
  return {
    file: spec,
    titlePath: [`Area ${index % 50}`, `feature ${index % 400}`, `${run} test ${index}`],
    project: ['chromium', 'firefox', 'webkit'][index % 3],
    attempt: 0,
    status: failed ? 'failed' : 'passed',
    durationMs: 150 + ((index * 37) % 3_000),
    startedAt,
    ...(failed && {
      error: {
        message: `Error: expect(received).toBe(expected)\n\nExpected: ${index}\nReceived: ${index + 1}`,
        ...(index % 20 === 0 && {
          stack: `Error: expect(received).toBe(expected)\n    at ${spec}:${line}:21\n    at async Promise.all (index 0)\n    at async Test.run (node_modules/@playwright/test/lib/worker/testInfo.js:310:9)`,
        }),
        location: { file: spec, line, column: 21 },
      },
    }),
    steps: [
      { title: 'Before Hooks', category: 'hook', durationMs: 35 },
      { title: `page.goto(/area/${index % 50})`, category: 'pw:api', durationMs: 210 },
      { title: "locator.fill(getByLabel('Search'))", category: 'pw:api', durationMs: 40 },
      { title: 'expect.toBe', category: 'expect', durationMs: 2, location: { file: spec, line, column: 21 } },
      { title: 'After Hooks', category: 'hook', durationMs: 12 },
    ],
    stdout: [`[area ${index % 50}] fixture ready\n`, `[area ${index % 50}] request took ${index % 90} ms\n`],
    tags: ['@regression'],
    location: { file: spec, line: line - 4, column: 3 },
  };
}

export const batchOf = (run: string, batch: number) =>
  Array.from({ length: BATCH }, (_, i) => result(run, batch * BATCH + i));

// ---------------------------------------------------------------------------------------------------------
// HTTP through the gateway

type Headers = Record<string, string>;

/**
 * The gateway trusts X-Forwarded-For here (VERDICT_TRUST_PROXY), so the per-IP limit of 200 a minute
 * counts each request's own address, as behind a load balancer in front of many CI machines.
 */
let sent = 0;
const clientAddress = () => {
  const n = sent++;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function request(
  port: number,
  method: string,
  urlPath: string,
  token: string,
  body?: string,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const headers: Headers = { authorization: `Bearer ${token}`, 'x-forwarded-for': clientAddress() };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent });
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${urlPath} timed out`)));
    req.once('error', reject);
    req.once('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) });
        } catch {
          resolve({ status: response.statusCode ?? 0, json: text });
        }
      });
    });
    req.end(body);
  });
}

interface Api {
  startRun(title: string): Promise<string>;
  addResults(runId: string, body: string): Promise<void>;
  finishRun(runId: string): Promise<void>;
  /** The run's test count as the run detail shows it. */
  readableTotal(runId: string): Promise<number>;
}

function api(port: number, projectId: string, writeToken: string, readTokens: string[]): Api {
  const base = `/api/public/v1/${projectId}`;
  let reads = 0;
  const expect = (status: number, wanted: number, what: string, json: unknown) => {
    if (status !== wanted) throw new Error(`${what}: ${status} ${JSON.stringify(json).slice(0, 500)}`);
  };
  return {
    async startRun(title) {
      const { status, json } = await request(
        port,
        'POST',
        `${base}/test-runs`,
        writeToken,
        JSON.stringify({ title }),
      );
      expect(status, 201, 'start run', json);
      return (json as { data: { id: string } }).data.id;
    },
    async addResults(runId, body) {
      const { status, json } = await request(
        port,
        'POST',
        `${base}/test-runs/${runId}/results`,
        writeToken,
        body,
      );
      expect(status, 202, 'add results', json);
    },
    async finishRun(runId) {
      const { status, json } = await request(
        port,
        'POST',
        `${base}/test-runs/${runId}/finish`,
        writeToken,
        '{}',
      );
      expect(status, 200, 'finish run', json);
    },
    async readableTotal(runId) {
      const token = readTokens[reads++ % readTokens.length] ?? '';
      const { status, json } = await request(port, 'GET', `${base}/test-runs/${runId}`, token);
      // The run is readable once the projection has seen it start.
      if (status === 404) return 0;
      expect(status, 200, 'run detail', json);
      return (json as { data: { stats: { total: number } } }).data.stats.total;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Processes and provisioning

interface Fixture {
  projectId: string;
  writeToken: string;
  readTokens: string[];
}

async function provision(admin: Admin): Promise<Fixture> {
  const unique = randomBytes(4).toString('hex');
  const organization = successEnvelope(AdminOrganization).parse(
    await admin('POST', '/organizations', {
      name: `bench ingest ${unique}`,
      plan: { name: 'bench', testCaseLimit: 100_000_000, projectLimit: 10 },
    }),
  ).data;
  const project = successEnvelope(AdminProject).parse(
    await admin('POST', `/organizations/${organization.id}/projects`, { name: `ingest ${unique}` }),
  ).data;
  const user = successEnvelope(AdminUser).parse(
    await admin('POST', '/users', {
      email: `ingest-${unique}@example.com`,
      firstName: 'CI',
      lastName: 'Bot',
    }),
  ).data;
  await admin('PUT', `/organizations/${organization.id}/members/${user.id}`, { role: 'member' });
  const tokens = await inParallel(READ_TOKENS + 1, 10, async (i) => {
    const answer = await admin('POST', '/tokens', {
      kind: 'personal',
      userId: user.id,
      name: `ingest ${i}`,
      projectIds: [project.id],
    });
    return successEnvelope(IssuedToken).parse(answer).data.token;
  });
  const [writeToken, ...readTokens] = tokens;
  return { projectId: project.id, writeToken: writeToken ?? '', readTokens };
}

/** Resident set size of a process, in MB (Linux). */
function rssMb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The highest RSS of each child while `work` runs, sampled every 250 ms. */
async function withPeakRss<T>(
  children: Child[],
  work: () => Promise<T>,
): Promise<{ value: T; peaks: number[] }> {
  const peaks = children.map(() => 0);
  const sample = () =>
    children.forEach((child, i) => (peaks[i] = Math.max(peaks[i] ?? 0, rssMb(child.process.pid))));
  const timer = setInterval(sample, 250);
  try {
    const value = await work();
    sample();
    return { value, peaks };
  } finally {
    clearInterval(timer);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Phases

/** WRITERS shards post batches back to back for `seconds`; then the time until every result is readable. */
async function sustained(client: Api, seconds: number) {
  const runs = await Promise.all(
    Array.from({ length: WRITERS }, (_, w) => client.startRun(`bench shard ${w + 1}`)),
  );
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const counts = runs.map(() => 0);
  await Promise.all(
    runs.map(async (runId, w) => {
      for (let batch = 0; performance.now() < deadline; batch += 1) {
        await client.addResults(runId, JSON.stringify({ results: batchOf(`w${w}`, batch) }));
        counts[w] = (counts[w] ?? 0) + BATCH;
      }
    }),
  );
  const acceptedMs = performance.now() - started;
  const total = counts.reduce((sum, n) => sum + n, 0);
  for (const [w, runId] of runs.entries()) {
    while ((await client.readableTotal(runId)) < (counts[w] ?? 0)) await sleep(50);
  }
  const readableMs = performance.now() - started;
  await Promise.all(runs.map((runId) => client.finishRun(runId)));
  return {
    total,
    acceptedPerSecond: (total * 1000) / acceptedMs,
    readablePerSecond: (total * 1000) / readableMs,
  };
}

/**
 * Batches due every BATCH / rate seconds whatever the answers (open loop). A batch's lag runs from its 202
 * to the first run detail that shows at least every result accepted by then (its own included).
 */
async function readYourWrites(client: Api, rate: number, seconds: number) {
  const runId = await client.startRun('bench lag');
  const intervalMs = (BATCH * 1000) / rate;
  const total = Math.round((rate * seconds) / BATCH);
  const waiting: { atLeast: number; acceptedAt: number }[] = [];
  const lags: number[] = [];
  let accepted = 0;
  let posting = true;
  const poller = (async () => {
    while (posting || waiting.length > 0) {
      const readable = await client.readableTotal(runId);
      const now = performance.now();
      for (let i = waiting.length - 1; i >= 0; i -= 1) {
        const entry = waiting[i];
        if (entry && readable >= entry.atLeast) {
          lags.push(now - entry.acceptedAt);
          waiting.splice(i, 1);
        }
      }
      await sleep(POLL_MS);
    }
  })();
  // Its error surfaces at `await poller` below; until then it must not count as unhandled.
  poller.catch(() => undefined);
  const start = performance.now();
  const posts: Promise<void>[] = [];
  for (let batch = 0; batch < total; batch += 1) {
    const due = start + batch * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const body = JSON.stringify({ results: batchOf('lag', batch) });
    posts.push(
      client.addResults(runId, body).then(() => {
        accepted += BATCH;
        waiting.push({ atLeast: accepted, acceptedAt: performance.now() });
      }),
    );
  }
  await Promise.all(posts);
  const offered = (accepted * 1000) / (performance.now() - start);
  posting = false;
  await poller;
  await client.finishRun(runId);
  return { p50: percentile(lags, 50), p99: percentile(lags, 99), offered };
}

/** The same rows, straight into PostgreSQL: WRITERS connections, one 500-row INSERT after another. */
async function rawInsert(databaseUrl: string, seconds: number): Promise<number> {
  const pool = new Pool({ connectionString: databaseUrl, max: WRITERS });
  const table = `bench_raw_results_${randomBytes(4).toString('hex')}`;
  await pool.query(
    `CREATE UNLOGGED TABLE IF NOT EXISTS ${table} (id bigserial PRIMARY KEY, run_id text, file text, title_path jsonb,
     project text, attempt int, status text, duration_ms int, started_at timestamptz, data jsonb)`,
  );
  // A logged table, as the event store's: UNLOGGED would flatter the baseline.
  await pool.query(`ALTER TABLE ${table} SET LOGGED`);
  const columns = 9;
  const placeholders = Array.from(
    { length: BATCH },
    (_, r) => `(${Array.from({ length: columns }, (_, c) => `$${r * columns + c + 1}`).join(', ')})`,
  ).join(', ');
  const text = `INSERT INTO ${table} (run_id, file, title_path, project, attempt, status, duration_ms, started_at, data) VALUES ${placeholders}`;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let rows = 0;
  try {
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let batch = 0; performance.now() < deadline; batch += 1) {
          const values = batchOf(`raw${w}`, batch).flatMap((item) => [
            `raw-${w}`,
            item.file,
            JSON.stringify(item.titlePath),
            item.project,
            item.attempt,
            item.status,
            item.durationMs,
            item.startedAt,
            JSON.stringify(item),
          ]);
          await pool.query(text, values);
          rows += BATCH;
        }
      }),
    );
    return (rows * 1000) / (performance.now() - started);
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await pool.end();
  }
}

/**
 * @example const rows = await benchIngest({ databaseUrl, kafkaBrokers, redisUrl });
 */
export async function benchIngest(servers: IngestBenchServers): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-bench-ingest-'));
  const secrets = {
    VERDICT_INTERNAL_SECRET: randomBytes(32).toString('hex'),
    VERDICT_URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
  };
  const adminKey = `bench-${randomBytes(16).toString('hex')}`;
  const shared = {
    ...secrets,
    DATABASE_URL: servers.databaseUrl,
    KAFKA_BROKERS: servers.kafkaBrokers,
    VERDICT_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  // VERDICT_BENCH_CPU_PROF=<dir> writes V8 CPU profiles of both processes there.
  const profile = process.env.VERDICT_BENCH_CPU_PROF;
  const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  // As `npm run start:distributed` runs them: the API with its relay, and the runs projector on its own.
  const testResults = await startService(
    'ingest-test-results',
    'test-results',
    { ...shared, VERDICT_TEST_RESULTS_ROLE: 'api' },
    { flags },
  );
  let projector: Child | undefined;
  let gateway: Child | undefined;
  try {
    projector = await startService(
      'ingest-test-results-projector',
      'test-results',
      { ...shared, VERDICT_TEST_RESULTS_ROLE: 'projector' },
      { flags },
    );
    gateway = await startService(
      'ingest-gateway',
      'gateway',
      {
        ...shared,
        REDIS_URL: servers.redisUrl,
        VERDICT_ADMIN_KEY: adminKey,
        VERDICT_TEST_RESULTS_URL: `http://127.0.0.1:${testResults.port}`,
        VERDICT_TRUST_PROXY: 'true',
        // One CI token posting 40+ batches a second: far above the default ingest bucket of 1,200 a minute.
        VERDICT_INGEST_RATE_LIMIT: '1000000',
      },
      { flags },
    );
    const fixture = await provision(adminClient(gateway.port, adminKey));
    const client = api(gateway.port, fixture.projectId, fixture.writeToken, fixture.readTokens);
    progress('warming up');
    await sustained(client, 3);

    progress(`raw INSERT baseline, ${WRITERS} writers, ${THROUGHPUT_S} s`);
    const raw = await rawInsert(servers.databaseUrl, THROUGHPUT_S);
    progress(`sustained ingest, ${WRITERS} shards, ${THROUGHPUT_S} s`);
    const children = [gateway, testResults, projector];
    const { value: load, peaks } = await withPeakRss(children, () => sustained(client, THROUGHPUT_S));
    progress(
      `raw ${Math.round(raw)}/s; accepted ${Math.round(load.acceptedPerSecond)}/s, readable ${Math.round(load.readablePerSecond)}/s; RSS ${peaks.map(Math.round).join(', ')} MB`,
    );
    progress(`read-your-writes lag at ${LAG_RATE} results/s, ${LAG_S} s`);
    const lag = await readYourWrites(client, LAG_RATE, LAG_S);
    const [gatewayRss = 0, testResultsRss = 0, projectorRss = 0] = peaks;
    return [
      {
        name: `ingest accepted (202), ${WRITERS} shards × ${BATCH}-result batches`,
        unit: 'results/s',
        ours: load.acceptedPerSecond,
        baseline: raw,
        target: `≥ ${THROUGHPUT_TARGET.toLocaleString('en-US')}/s and ≥ ${RAW_SHARE_TARGET * 100}% of raw INSERT`,
        met: load.acceptedPerSecond >= THROUGHPUT_TARGET && load.acceptedPerSecond >= RAW_SHARE_TARGET * raw,
      },
      {
        name: 'ingest until readable in the run detail (same load)',
        unit: 'results/s',
        ours: load.readablePerSecond,
        baseline: raw,
        target: `≥ ${THROUGHPUT_TARGET.toLocaleString('en-US')}/s`,
        met: load.readablePerSecond >= THROUGHPUT_TARGET,
      },
      {
        name: 'readable / accepted (same load)',
        unit: 'ratio',
        ours: load.readablePerSecond / load.acceptedPerSecond,
        baseline: null,
        target: `≥ ${READABLE_SHARE_TARGET}`,
        met: load.readablePerSecond >= READABLE_SHARE_TARGET * load.acceptedPerSecond,
      },
      {
        name: `read-your-write lag p50 at ${LAG_RATE.toLocaleString('en-US')} results/s (offered ${Math.round(lag.offered)}/s)`,
        unit: 'ms',
        ours: lag.p50,
        baseline: null,
        target: `p99 < ${LAG_P99_TARGET_MS} ms`,
        met: lag.p99 < LAG_P99_TARGET_MS,
      },
      {
        name: `read-your-write lag p99 at ${LAG_RATE.toLocaleString('en-US')} results/s`,
        unit: 'ms',
        ours: lag.p99,
        baseline: null,
        target: `< ${LAG_P99_TARGET_MS} ms`,
        met: lag.p99 < LAG_P99_TARGET_MS,
      },
      {
        name: 'gateway peak RSS under load',
        unit: 'MB',
        ours: gatewayRss,
        baseline: null,
        target: `< ${RSS_TARGET_MB} MB`,
        met: gatewayRss < RSS_TARGET_MB,
      },
      {
        name: 'test-results (API) peak RSS under load',
        unit: 'MB',
        ours: testResultsRss,
        baseline: null,
        target: `< ${RSS_TARGET_MB} MB`,
        met: testResultsRss < RSS_TARGET_MB,
      },
      {
        name: 'test-results-projector peak RSS under load',
        unit: 'MB',
        ours: projectorRss,
        baseline: null,
        target: `< ${RSS_TARGET_MB} MB`,
        met: projectorRss < RSS_TARGET_MB,
      },
    ];
  } finally {
    await Promise.all([gateway?.stop(), projector?.stop(), testResults.stop()]);
    agent.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
