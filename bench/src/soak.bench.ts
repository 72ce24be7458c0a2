// `npm run bench soak` (issue 33): the distributed Verdict as `npm run start:distributed` runs it (every
// service its own process, started by scripts/start-distributed.cjs), under a steady mixed load for
// VERDICT_SOAK_MINUTES (default 30) after a warm-up: ingest through @verdict/client, reads, manual-testing
// writes, webhook deliveries to a receiver here, and web sessions. It reports per load its throughput and
// its p99 in the first and the last sixth of the run, every error, and per process its resident memory at
// the start and the end, its open file descriptors and its PostgreSQL connections at the end. No threshold:
// a soak shows drift, and the figures are read, not asserted.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Client } from 'pg';
import { tcpSocketInodes } from '@verdict/platform';
import {
  createVerdictClient,
  unwrap,
  VerdictApiError,
  type ResultItem,
  type VerdictClient,
} from '@verdict/client';
import { AdminOrganization, AdminProject, AdminUser, IssuedToken, successEnvelope } from '@verdict/contracts';
import { adminClient, freePort, repoRoot, type Admin } from './processes';
import { percentile, sleep, type BenchRow } from './table';

export interface SoakServers {
  databaseUrl: string;
  kafkaBrokers: string;
  redisUrl: string;
  schemaRegistryUrl: string;
}

const MINUTES = Number(process.env.VERDICT_SOAK_MINUTES ?? '30');
/** The steady offered load: one operation of each kind every so many milliseconds. */
const EVERY_MS = { ingest: 5_000, read: 500, manual: 2_000, web: 10_000 } as const;
const RESULTS_PER_RUN = 200;
const RESULTS_PER_BATCH = 100;
/** Operations of one kind in flight at most: past it an operation due is counted as skipped, not queued. */
const MAX_IN_FLIGHT = 16;
const WEBHOOK_SUBSCRIPTIONS = 2;
/** Resident memory is sampled every 10 s, more often in a short run (at least 5 samples a sixth). */
const rssEveryMs = (seconds: number) => Math.min(10_000, (seconds * 1000) / 30);
const DRAIN_MS = 60_000;

type Kind = 'ingest' | 'read' | 'manual' | 'web' | 'webhooks';
const KINDS: Kind[] = ['ingest', 'read', 'manual', 'web', 'webhooks'];
const DESCRIBED: Record<Kind, string> = {
  ingest: `ingest: a run of ${RESULTS_PER_RUN} results every ${EVERY_MS.ingest / 1000} s (start, ${RESULTS_PER_RUN / RESULTS_PER_BATCH} batches, finish)`,
  read: `reads: one every ${EVERY_MS.read} ms (run list, run detail, its specs, analytics summary in turn)`,
  manual: `manual writes: one every ${EVERY_MS.manual / 1000} s (cases; a run of 5 every 10th; verdicts)`,
  web: `web sessions: one every ${EVERY_MS.web / 1000} s (sign in, app shell, 4 page-data GETs, sign out)`,
  webhooks: `webhooks: run.started and run.finished of each run to ${WEBHOOK_SUBSCRIPTIONS} subscriptions`,
};

const progress = (message: string) => process.stderr.write(`[bench] soak: ${message}\n`);

// ---------------------------------------------------------------------------------------------------------
// What each request answered, when and how fast; `at` counts from the end of the warm-up.

interface Sample {
  kind: Kind;
  at: number;
  ms: number;
  ok: boolean;
}

class Recorder {
  readonly samples: Sample[] = [];
  /** Answers of 500 and above, retried ones included (the client retries them; they still count). */
  readonly serverErrors = new Map<Kind, number>();
  readonly throttled = new Map<Kind, number>();
  readonly skipped = new Map<Kind, number>();
  /** Failed operations by kind and message (the first 200 characters), so that a failure is named. */
  readonly failures = new Map<string, number>();
  /** Results the API acknowledged during the measured time. */
  results = 0;
  measuredFrom = Number.POSITIVE_INFINITY;

  count(map: Map<Kind, number>, kind: Kind, by = 1) {
    map.set(kind, (map.get(kind) ?? 0) + by);
  }

  answered(kind: Kind, status: number) {
    if (performance.now() < this.measuredFrom) return;
    if (status >= 500) this.count(this.serverErrors, kind);
    if (status === 429) this.count(this.throttled, kind);
  }

  async time<T>(kind: Kind, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let ok = false;
    try {
      const value = await work();
      ok = true;
      return value;
    } finally {
      if (started >= this.measuredFrom)
        this.samples.push({ kind, at: started - this.measuredFrom, ms: performance.now() - started, ok });
    }
  }

  failed(kind: Kind, error: unknown) {
    if (performance.now() < this.measuredFrom) return;
    const message = error instanceof VerdictApiError ? error.toString() : String(error);
    const key = `${kind}: ${message.slice(0, 200)}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
  }
}

/** A client address per request (the gateway trusts X-Forwarded-For here), as many machines would send. */
function addresses(kind: Kind) {
  let n = 0;
  const octet = KINDS.indexOf(kind) + 1;
  return () => {
    n += 1;
    return `10.${octet}.${(n >> 8) & 255}.${n & 255}`;
  };
}

/** A @verdict/client of `kind` whose every attempt (retries included) is counted by its status. */
function clientOf(
  recorder: Recorder,
  kind: Kind,
  base: string,
  token: string,
  projectId: string,
): VerdictClient {
  const address = addresses(kind);
  return createVerdictClient({
    baseUrl: base,
    token,
    project: projectId,
    headers: () => ({ 'x-forwarded-for': address() }),
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      recorder.answered(kind, response.status);
      return response;
    },
  });
}

// ---------------------------------------------------------------------------------------------------------
// The distributed Verdict, through its launcher

interface Launcher {
  base: string;
  adminKey: string;
  /** Service name → pid, as the launcher printed them (`started gateway (pid 123)`). */
  pids: Map<string, number>;
  stop(): Promise<void>;
}

const lib = createRequire(__filename)('../../scripts/lib.cjs') as {
  node22: string;
  withLauncherPipe(options: object, stdio: string[]): object;
};

/**
 * Starts scripts/start-distributed.cjs on free ports and `servers` (so it provisions nothing, and stops
 * nothing of infra/local), with secrets of its own; resolves once it prints that Verdict is running. It
 * holds a pipe from this process: if the bench dies, the launcher stops its services.
 */
async function startDistributed(servers: SoakServers, dataDir: string): Promise<Launcher> {
  const [gateway, testResults, projector, manual, webhooks, analytics] = await Promise.all(
    Array.from({ length: 6 }, () => freePort()),
  );
  const adminKey = `soak-${randomBytes(16).toString('hex')}`;
  const env = {
    ...process.env,
    DATABASE_URL: servers.databaseUrl,
    KAFKA_BROKERS: servers.kafkaBrokers,
    REDIS_URL: servers.redisUrl,
    SCHEMA_REGISTRY_URL: servers.schemaRegistryUrl,
    PORT: String(gateway),
    VERDICT_TEST_RESULTS_PORT: String(testResults),
    VERDICT_TEST_RESULTS_PROJECTOR_PORT: String(projector),
    VERDICT_MANUAL_TESTING_PORT: String(manual),
    VERDICT_WEBHOOKS_PORT: String(webhooks),
    VERDICT_ANALYTICS_PORT: String(analytics),
    VERDICT_ADMIN_KEY: adminKey,
    VERDICT_INTERNAL_SECRET: randomBytes(32).toString('hex'),
    VERDICT_URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
    VERDICT_DATA_DIR: dataDir,
    VERDICT_TRUST_PROXY: 'loopback',
    VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    VERDICT_PUBLIC_URL: `http://127.0.0.1:${gateway}`,
    LOG_LEVEL: 'warn',
  };
  const child = spawn(
    lib.node22,
    [path.join(repoRoot, 'scripts/start-distributed.cjs')],
    lib.withLauncherPipe({ cwd: repoRoot, env }, ['ignore', 'pipe', 'pipe']),
  ) as ChildProcess;
  mkdirSync(path.join(repoRoot, '.bench'), { recursive: true });
  const logFile = path.join(repoRoot, '.bench', 'soak-launcher.log');
  writeFileSync(logFile, '');
  const pids = new Map<string, number>();
  let running = false;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      writeFileSync(logFile, `${line}\n`, { flag: 'a' });
      const started = /started (\S+) \(pid (\d+)\)/.exec(line);
      if (started?.[1] && started[2]) pids.set(started[1], Number(started[2]));
      if (line.includes('Verdict is running (distributed mode)')) running = true;
    });
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 300_000;
  while (!running) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error('the distributed Verdict did not start (see .bench/soak-launcher.log)');
    }
    await sleep(200);
  }
  return { base: `http://127.0.0.1:${gateway}`, adminKey, pids, stop };
}

interface Tenant {
  projectId: string;
  tokens: { ingest: string; read: string[]; manual: string[]; web: string[] };
}

/**
 * An admin write answers 503 while the identity read model is behind (on a busy machine, just after the
 * start): it is tried again, with fresh names, for up to a minute. A create that was saved all the same
 * leaves an extra organization, user or token in the soak's database, which nothing reads.
 */
async function patiently<T>(write: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (!/: 503 /.test(String(error)) || Date.now() > deadline) throw error;
      progress(`an admin write was answered 503 (identity read model behind); again in 2 s`);
      await sleep(2_000);
    }
  }
}

/** One organization, project and owner, with tokens enough for each load to stay under its limits. */
async function provision(admin: Admin): Promise<Tenant> {
  const unique = () => randomBytes(4).toString('hex');
  const organization = successEnvelope(AdminOrganization).parse(
    await patiently(() =>
      admin('POST', '/organizations', {
        name: `soak ${unique()}`,
        plan: { name: 'bench', testCaseLimit: 100_000_000, projectLimit: 10 },
      }),
    ),
  ).data;
  const project = successEnvelope(AdminProject).parse(
    await patiently(() =>
      admin('POST', `/organizations/${organization.id}/projects`, { name: `soak ${unique()}` }),
    ),
  ).data;
  const user = successEnvelope(AdminUser).parse(
    await patiently(() =>
      admin('POST', '/users', {
        email: `soak-${unique()}@example.com`,
        firstName: 'Soak',
        lastName: 'Bench',
      }),
    ),
  ).data;
  await patiently(() =>
    admin('PUT', `/organizations/${organization.id}/members/${user.id}`, { role: 'owner' }),
  );
  const issue = async (name: string) =>
    successEnvelope(IssuedToken).parse(
      await patiently(() =>
        admin('POST', '/tokens', { kind: 'personal', userId: user.id, name, projectIds: [project.id] }),
      ),
    ).data.token;
  const many = (prefix: string, n: number) =>
    Promise.all(Array.from({ length: n }, (_, i) => issue(`${prefix} ${i}`)));
  // Per token a minute: 100 reads, 60 writes, 10 manual runs (spec §8); ingest has its own 1,200.
  return {
    projectId: project.id,
    tokens: {
      ingest: await issue('ingest'),
      read: await many('read', 4),
      manual: await many('manual', 2),
      web: await many('web', 2),
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The loads

function resultsOf(run: number, batch: number): ResultItem[] {
  return Array.from({ length: RESULTS_PER_BATCH }, (_, i) => {
    const index = batch * RESULTS_PER_BATCH + i;
    const file = `tests/area-${index % 20}/feature-${index % 50}.spec.ts`;
    const failed = (run + index) % 25 === 0;
    return {
      file,
      titlePath: [`Area ${index % 20}`, `test ${index}`],
      project: 'chromium',
      attempt: 0,
      status: failed ? 'failed' : 'passed',
      durationMs: 100 + ((index * 37) % 2_000),
      startedAt: new Date().toISOString(),
      ...(failed && { error: { message: `Error: expected ${index} to be ${index + 1}` } }),
      steps: [{ title: `page.goto(/area/${index % 20})`, category: 'pw:api', durationMs: 120 }],
      stdout: [`[area ${index % 20}] ready\n`],
    };
  });
}

/** When each run's start and finish were accepted (the call resolved), for the webhooks' latency. */
type Accepted = Map<string, { at: number; measured: boolean }>;

function ingestLoad(recorder: Recorder, client: VerdictClient, accepted: Accepted, runs: string[]) {
  return async (i: number) => {
    const measured = performance.now() >= recorder.measuredFrom;
    const { run } = await recorder.time('ingest', () =>
      client.startRun({ title: `soak ${i}`, branch: 'main' }),
    );
    accepted.set(`run.started:${run.id}`, { at: performance.now(), measured });
    for (let batch = 0; batch < RESULTS_PER_RUN / RESULTS_PER_BATCH; batch += 1) {
      const sent = await recorder.time('ingest', () => client.addResults(run.id, resultsOf(i, batch)));
      if (performance.now() >= recorder.measuredFrom) recorder.results += sent.accepted + sent.duplicates;
    }
    await recorder.time('ingest', () => client.finishRun(run.id));
    accepted.set(`run.finished:${run.id}`, { at: performance.now(), measured });
    runs.push(run.id);
  };
}

function readLoad(recorder: Recorder, clients: VerdictClient[], runs: string[]) {
  return async (i: number) => {
    const client = clients[i % clients.length] as VerdictClient;
    const runId = runs[runs.length - 1 - (i % Math.min(runs.length, 20))];
    const step = i % 4;
    if (step === 0 || runId === undefined) await recorder.time('read', () => client.listRuns({ limit: 20 }));
    else if (step === 1) await recorder.time('read', () => client.getRun(runId));
    else if (step === 2) await recorder.time('read', () => client.getRun(runId, { include: 'specs' }));
    else
      await recorder.time('read', async () =>
        unwrap(
          await client.api.GET('/{projectId}/analytics/summary', {
            params: { path: { projectId: client.project ?? '' } },
          }),
        ),
      );
  };
}

/** Cases; every 10th operation a manual run of the 5 newest cases; then verdicts on that run's cases. */
function manualLoad(recorder: Recorder, clients: VerdictClient[]) {
  const cases: string[] = [];
  let current: { runId: string; runCases: string[] } | null = null;
  const RESULTS = ['passed', 'failed', 'blocked', 'skipped', 'retest'] as const;
  return async (i: number) => {
    const client = clients[i % clients.length] as VerdictClient;
    const projectId = client.project ?? '';
    const step = i % 10;
    if (step === 0 && cases.length >= 5) {
      const run = await recorder.time('manual', async () =>
        unwrap(
          await client.api.POST('/{projectId}/manual-runs', {
            params: { path: { projectId } },
            body: { name: `soak run ${i}`, caseIds: cases.slice(-5) },
          }),
        ),
      );
      current = { runId: run.data._id, runCases: run.data.testCases.map((c) => c._id) };
    } else if (step <= 5 && current !== null) {
      const { runId, runCases } = current;
      await recorder.time('manual', async () =>
        unwrap(
          await client.api.PATCH('/{projectId}/manual-runs/{runId}/test-cases/{runCaseId}', {
            params: { path: { projectId, runId, runCaseId: runCases[step % runCases.length] ?? '' } },
            body: { result: RESULTS[i % RESULTS.length] },
          }),
        ),
      );
    } else {
      const created = await recorder.time('manual', async () =>
        unwrap(
          await client.api.POST('/{projectId}/manual-test-cases', {
            params: { path: { projectId } },
            body: { title: `soak case ${i}`, description: 'Checks the checkout for a returning customer' },
          }),
        ),
      );
      cases.push(created.data._id);
    }
  };
}

/** A person opening the app: sign in with a token, the app shell, a few pages' data, sign out. */
function webLoad(recorder: Recorder, base: string, projectId: string, tokens: string[]) {
  const address = addresses('web');
  const api = `${base}/api/public/v1`;
  const call = async (method: string, url: string, headers: Record<string, string>, body?: unknown) =>
    recorder.time('web', async () => {
      const response = await fetch(url, {
        method,
        headers: {
          'x-forwarded-for': address(),
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      recorder.answered('web', response.status);
      if (!response.ok)
        throw new Error(`${method} ${url.replace(base, '')}: ${response.status} ${text.slice(0, 200)}`);
      return { response, text };
    });
  return async (i: number) => {
    const signIn = await call('POST', `${api}/session`, {}, { token: tokens[i % tokens.length] });
    const cookie = (signIn.response.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const session = await call('GET', `${api}/session`, { cookie });
    const { csrfToken } = (JSON.parse(session.text) as { data: { csrfToken: string } }).data;
    await call('GET', `${base}/projects/${projectId}/runs`, { cookie });
    for (const page of ['test-runs?limit=20', 'analytics/summary', 'manual-tests?limit=25'])
      await call('GET', `${api}/${projectId}/${page}`, { cookie });
    await call('DELETE', `${api}/session`, { cookie, 'x-csrf-token': csrfToken });
  };
}

/** Runs `operation` every `everyMs` until `until` whatever the answers (open loop), at most MAX_IN_FLIGHT. */
async function steady(
  recorder: Recorder,
  kind: Kind,
  everyMs: number,
  until: number,
  operation: (i: number) => Promise<void>,
) {
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; ; i += 1) {
    const due = started + i * everyMs;
    if (due >= until) break;
    await sleep(Math.max(0, due - performance.now()));
    if (inFlight.size >= MAX_IN_FLIGHT) {
      if (performance.now() >= recorder.measuredFrom) recorder.count(recorder.skipped, kind);
      continue;
    }
    const done: Promise<void> = operation(i)
      .catch((error: unknown) => recorder.failed(kind, error))
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  }
  await Promise.all(inFlight);
}

// ---------------------------------------------------------------------------------------------------------
// Webhook receiver

interface Receiver {
  url: string;
  /** `<event name>:<run id>` → arrival times (one per delivery received, retries included). */
  arrivals: Map<string, number[]>;
  deliveryIds: Map<string, number>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number[]>();
  const deliveryIds = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const id = String(req.headers['x-service-delivery'] ?? '');
      deliveryIds.set(id, (deliveryIds.get(id) ?? 0) + 1);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        eventName?: string;
        data?: { run?: { id: string } };
      };
      const key = `${body.eventName}:${body.data?.run?.id}`;
      arrivals.set(key, [...(arrivals.get(key) ?? []), at]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    deliveryIds,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Each delivery's latency from its event accepted, as samples; the missing ones as failures. */
function webhookSamples(
  recorder: Recorder,
  accepted: Accepted,
  receiver: Receiver,
  queued: Map<string, number> | null,
) {
  let expected = 0;
  let received = 0;
  let neverQueued = 0;
  for (const [key, { at, measured }] of accepted) {
    if (!measured) continue;
    expected += WEBHOOK_SUBSCRIPTIONS;
    const arrivals = (receiver.arrivals.get(key) ?? []).slice(0, WEBHOOK_SUBSCRIPTIONS);
    received += arrivals.length;
    if (arrivals.length < WEBHOOK_SUBSCRIPTIONS && queued !== null)
      neverQueued += Math.max(0, WEBHOOK_SUBSCRIPTIONS - Math.max(arrivals.length, queued.get(key) ?? 0));
    for (const arrival of arrivals)
      recorder.samples.push({
        kind: 'webhooks',
        at: at - recorder.measuredFrom,
        ms: Math.max(0, arrival - at),
        ok: true,
      });
  }
  if (received < expected)
    recorder.failures.set(
      `webhooks: ${expected - received} of ${expected} deliveries not received within ${DRAIN_MS / 1000} s of the end (${queued === null ? 'the queue could not be read' : `${neverQueued} of them never queued by this Verdict's webhooks service`})`,
      expected - received,
    );
  const redelivered = [...receiver.deliveryIds.values()].reduce((sum, n) => sum + n - 1, 0);
  return { expected, received, redelivered };
}

// ---------------------------------------------------------------------------------------------------------
// The processes: resident memory, open descriptors, PostgreSQL connections (Linux /proc)

function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

function socketsOf(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return '';
      }
    });
  } catch {
    return [];
  }
}

interface ProcessEnd {
  fds: number;
  dbConnections: number;
}

function processEnd(pid: number, databasePort: number): ProcessEnd {
  const links = socketsOf(pid);
  const database = tcpSocketInodes({ state: 'established', remotePort: databasePort });
  return {
    fds: links.length,
    dbConnections: links.filter((link) => database.has(/^socket:\[(\d+)\]$/.exec(link)?.[1] ?? '')).length,
  };
}

/**
 * The deliveries the webhooks service queued, by `<event name>:<run id>`: a delivery never queued means its
 * consumer never got the event. Null when the queue cannot be read.
 */
async function queuedDeliveries(databaseUrl: string): Promise<Map<string, number> | null> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'verdict-bench-soak' });
  await client.connect();
  try {
    const { rows } = await client.query<{ event: string; run: string; count: string }>(
      `SELECT event_name AS event, run_json::jsonb->>'id' AS run, count(*) AS count
       FROM webhooks.deliveries GROUP BY 1, 2`,
    );
    const name = (event: string) => event.toLowerCase().replace('_', '.');
    return new Map(rows.map((row) => [`${name(row.event)}:${row.run}`, Number(row.count)]));
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

/** The connections to the soak's database by application_name, as PostgreSQL counts them. */
async function pgConnections(databaseUrl: string): Promise<Map<string, number>> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'verdict-bench-soak' });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; count: string }>(
      `SELECT application_name AS name, count(*) AS count FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 1`,
    );
    return new Map(rows.map((row) => [row.name || '(none)', Number(row.count)]));
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------------------
// The report

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const driftOf = (start: number, end: number) => (start > 0 ? ((end - start) / start) * 100 : Number.NaN);
const signed = (value: number) =>
  Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(0)}%` : '—';
const median = (values: number[]) => percentile(values, 50);

function markdownTable(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

interface Measured {
  recorder: Recorder;
  seconds: number;
  webhooks: { expected: number; received: number; redelivered: number };
  results: number;
  rss: Map<string, { at: number; mb: number }[]>;
  ends: Map<string, ProcessEnd & { pid: number }>;
  pg: Map<string, number>;
  header: string;
}

function loadRows(m: Measured): { table: string; rows: BenchRow[] } {
  const windowMs = (m.seconds * 1000) / 6;
  const rows: BenchRow[] = [];
  const lines = KINDS.map((kind) => {
    const samples = m.recorder.samples.filter((s) => s.kind === kind);
    const ok = samples.filter((s) => s.ok);
    const firstMs = ok.filter((s) => s.at < windowMs).map((s) => s.ms);
    const lastMs = ok.filter((s) => s.at >= m.seconds * 1000 - windowMs).map((s) => s.ms);
    const first = percentile(firstMs, 99);
    const last = percentile(lastMs, 99);
    const failed = [...m.recorder.failures]
      .filter(([key]) => key.startsWith(`${kind}:`))
      .reduce((n, [, c]) => n + c, 0);
    rows.push({
      name: `soak ${kind}: p99 in the last sixth (baseline: the first sixth)`,
      unit: 'ms',
      ours: last,
      baseline: first,
      target: 'reported (no threshold)',
      met: true,
    });
    const unit = kind === 'webhooks' ? 'deliveries' : 'requests';
    const extra =
      kind === 'ingest'
        ? `; ${fixed(m.results / m.seconds)} results/s`
        : kind === 'webhooks'
          ? `; ${m.webhooks.received}/${m.webhooks.expected} received, ${m.webhooks.redelivered} redelivered`
          : '';
    return [
      DESCRIBED[kind],
      `${ok.length} ${unit}${extra}`,
      `${fixed(ok.length / m.seconds, 2)}/s`,
      `${fixed(first)} ms (of ${firstMs.length})`,
      `${fixed(last)} ms (of ${lastMs.length})`,
      signed(driftOf(first, last)),
      String(m.recorder.serverErrors.get(kind) ?? 0),
      String(m.recorder.throttled.get(kind) ?? 0),
      String(failed),
      String(m.recorder.skipped.get(kind) ?? 0),
    ];
  });
  const table = markdownTable(
    [
      'load',
      'done',
      'throughput',
      'p99 first sixth',
      'p99 last sixth',
      'drift',
      '5xx answers',
      '429 answers',
      'failed',
      'skipped (16 in flight)',
    ],
    lines,
  );
  return { table, rows };
}

function processRows(m: Measured): { table: string; rows: BenchRow[] } {
  const windowMs = (m.seconds * 1000) / 6;
  const rows: BenchRow[] = [];
  const lines = [...m.ends].map(([name, end]) => {
    const series = m.rss.get(name) ?? [];
    const start = median(series.filter((s) => s.at < windowMs).map((s) => s.mb));
    const last = median(series.filter((s) => s.at >= m.seconds * 1000 - windowMs).map((s) => s.mb));
    const peak = Math.max(...series.map((s) => s.mb).filter(Number.isFinite));
    rows.push({
      name: `soak RSS of ${name} at the end (baseline: at the start)`,
      unit: 'MB',
      ours: last,
      baseline: start,
      target: 'reported (no threshold)',
      met: true,
    });
    return [
      name,
      String(end.pid),
      `${fixed(start)} MB`,
      `${fixed(last)} MB`,
      signed(driftOf(start, last)),
      `${fixed(peak)} MB`,
      String(end.fds),
      String(end.dbConnections),
    ];
  });
  const table = markdownTable(
    [
      'process',
      'pid',
      'RSS start',
      'RSS end',
      'drift',
      'RSS peak',
      'open fds (end)',
      'PostgreSQL connections (end)',
    ],
    lines,
  );
  return { table, rows };
}

function report(m: Measured): BenchRow[] {
  const loads = loadRows(m);
  const processes = processRows(m);
  const failures = [...m.recorder.failures].map(([key, n]) => `- ${n} × ${key}`);
  const pg = [...m.pg].map(([name, n]) => `${name} ${n}`).join(', ');
  const text = [
    m.header,
    '',
    loads.table,
    '',
    processes.table,
    '',
    `pg_stat_activity on the soak's database at the end, by application_name: ${pg || 'none'}.`,
    '',
    failures.length > 0 ? `Failures:\n${failures.join('\n')}` : 'Failures: none.',
    '',
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  writeFileSync(path.join(repoRoot, '.bench', 'soak.md'), text);
  return [...loads.rows, ...processes.rows];
}

// ---------------------------------------------------------------------------------------------------------

function describeRun(seconds: number, warmupSeconds: number): string {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' });
    } catch {
      return '?';
    }
  };
  // Other engineers' edits in progress are not what the commit measured; the bench's own files are.
  // (Porcelain lines are `XY path`: the first may start with a space, so the output is not trimmed.)
  const changed = git(['status', '--porcelain', '--untracked-files=no'])
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.slice(3).startsWith('bench/')).length;
  const dirty = changed > 0 ? ` (with uncommitted changes to ${changed} files outside bench/)` : '';
  const load = os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(' / ');
  const node = execFileSync(lib.node22, ['--version'], { encoding: 'utf8' }).trim();
  return `### ${new Date().toISOString().slice(0, 16)}Z, ${(seconds / 60).toFixed(seconds % 60 === 0 ? 0 : 1)} min after ${warmupSeconds} s of warm-up, commit ${git(['rev-parse', '--short', 'HEAD']).trim()}${dirty}, services on Node ${node}, load average ${load} (1/5/15 min) at the start, ${os.cpus().length} cores`;
}

/**
 * @example const rows = await onScratchDatabase(url, (databaseUrl) => benchSoak({ ...servers, databaseUrl }));
 */
export async function benchSoak(servers: SoakServers): Promise<BenchRow[]> {
  const seconds = Math.round(MINUTES * 60);
  if (!(seconds > 0))
    throw new Error(
      `VERDICT_SOAK_MINUTES must be a positive number, not ${process.env.VERDICT_SOAK_MINUTES}`,
    );
  const warmupSeconds = Math.round(Math.min(60, Math.max(20, seconds / 10)));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'verdict-soak-'));
  const header = describeRun(seconds, warmupSeconds);
  const verdict = await startDistributed(servers, dataDir);
  const receiver = await startReceiver();
  try {
    progress(`Verdict is running (${[...verdict.pids].map(([n, p]) => `${n} ${p}`).join(', ')})`);
    const tenant = await provision(adminClient(Number(new URL(verdict.base).port), verdict.adminKey));
    const recorder = new Recorder();
    const client = (kind: Kind, token: string) =>
      clientOf(recorder, kind, verdict.base, token, tenant.projectId);
    const ingest = client('ingest', tenant.tokens.ingest);
    for (let s = 0; s < WEBHOOK_SUBSCRIPTIONS; s += 1)
      unwrap(
        await ingest.api.POST('/{projectId}/webhooks', {
          params: { path: { projectId: tenant.projectId } },
          body: { url: receiver.url, events: ['run.started', 'run.finished'] },
        }),
      );
    const accepted: Accepted = new Map();
    const runs: string[] = [];
    const startedAt = performance.now();
    recorder.measuredFrom = startedAt + warmupSeconds * 1000;
    const until = recorder.measuredFrom + seconds * 1000;
    const rss = new Map<string, { at: number; mb: number }[]>(
      [...verdict.pids.keys()].map((name) => [name, []]),
    );
    const sampler = setInterval(() => {
      const at = performance.now() - recorder.measuredFrom;
      if (at >= 0) for (const [name, pid] of verdict.pids) rss.get(name)?.push({ at, mb: rssMb(pid) });
    }, rssEveryMs(seconds));
    progress(`${warmupSeconds} s of warm-up, then ${seconds} s measured`);
    await Promise.all([
      steady(recorder, 'ingest', EVERY_MS.ingest, until, ingestLoad(recorder, ingest, accepted, runs)),
      steady(
        recorder,
        'read',
        EVERY_MS.read,
        until,
        readLoad(
          recorder,
          tenant.tokens.read.map((t) => client('read', t)),
          runs,
        ),
      ),
      steady(
        recorder,
        'manual',
        EVERY_MS.manual,
        until,
        manualLoad(
          recorder,
          tenant.tokens.manual.map((t) => client('manual', t)),
        ),
      ),
      steady(
        recorder,
        'web',
        EVERY_MS.web,
        until,
        webLoad(recorder, verdict.base, tenant.projectId, tenant.tokens.web),
      ),
    ]);
    for (const [name, pid] of verdict.pids)
      rss.get(name)?.push({ at: performance.now() - recorder.measuredFrom, mb: rssMb(pid) });
    clearInterval(sampler);
    const databasePort = Number(new URL(servers.databaseUrl).port || 5432);
    const ends = new Map(
      [...verdict.pids].map(([name, pid]) => [name, { pid, ...processEnd(pid, databasePort) }]),
    );
    // The launcher stops every service when one exits: a process gone is a failure of the whole soak.
    for (const [name, pid] of verdict.pids)
      if (!existsSync(`/proc/${pid}`))
        recorder.failures.set(`${name}: the process exited during the soak`, 1);
    const pg = await pgConnections(servers.databaseUrl);
    const wanted = [...accepted.values()].filter((a) => a.measured).length * WEBHOOK_SUBSCRIPTIONS;
    const drainUntil = Date.now() + DRAIN_MS;
    const arrived = () =>
      [...accepted]
        .filter(([, a]) => a.measured)
        .reduce(
          (n, [key]) => n + Math.min(WEBHOOK_SUBSCRIPTIONS, receiver.arrivals.get(key)?.length ?? 0),
          0,
        );
    while (arrived() < wanted && Date.now() < drainUntil) await sleep(500);
    const webhooks = webhookSamples(
      recorder,
      accepted,
      receiver,
      await queuedDeliveries(servers.databaseUrl),
    );
    return report({
      recorder,
      seconds,
      webhooks,
      results: recorder.results,
      rss,
      ends,
      pg,
      header,
    });
  } finally {
    await verdict.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
