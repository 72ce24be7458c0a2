import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { INSTANT_RANGE, RunCreated, RunFinished, TestResultRecorded } from '@verdict/contracts';
import { createSqlEventStore, type NewEvent, type SqlDatabase } from '@verdict/platform';
import { createPGliteDatabase } from '@verdict/platform/pglite';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { bannerField, randomPort, type RunningProcess, startVerdict } from './processes';

// Issue 19: before instants were limited to years 1000–9999, runs started "0020-02-29", "0001-01-01" and
// "0000-06-01" were accepted. Their events are in old stores for good: appended here straight into the
// store, as the ingest of that time recorded them, they must project everywhere (no dead letter), read on
// every route that shows them (their instants as the start of the range), and reach webhook receivers.

const LEGACY = ['0020-02-29T00:00:00Z', '0001-01-01T00:00:00Z', '0000-06-01T00:00:00Z'];
const SHOWN = INSTANT_RANGE.from;
const FILE = 'tests/legacy.spec.ts';
const READY_TIMEOUT_MS = 180_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked by expect()
type Json = any;

interface Verdict {
  url: string;
  adminKey: string;
  projectId: string;
  token: string;
  /** Appends events to the test-results store as the ingest of the time did (the project's stream ids). */
  append(streams: Array<{ streamId: string; events: NewEvent[] }>): Promise<void>;
  output(): string;
  stop(): Promise<void>;
}

/** A webhook receiver on loopback that keeps every payload. */
async function startReceiver() {
  const payloads: Json[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      payloads.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    payloads,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function call(url: string, method: string, urlPath: string, bearer: string, body?: unknown) {
  const response = await fetch(`${url}${urlPath}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const type = response.headers.get('content-type') ?? '';
  const body_ = type.includes('json') ? ((await response.json()) as Json) : await response.arrayBuffer();
  return { status: response.status, type, body: body_ };
}

/** Reads until `done`; once a second, as the reads share the token's 100 a minute (spec §8) with the test. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

async function appendTo(
  db: SqlDatabase,
  projectId: string,
  streams: Array<{ streamId: string; events: NewEvent[] }>,
) {
  const store = createSqlEventStore({ db, schema: 'test_results' });
  for (const { streamId, events } of streams) {
    await store.append(streamId, events, { expectedVersion: 'no_stream', projectId });
  }
}

/** `npm start` on a fresh data folder; appending stops it, writes into its PGlite, and starts it again. */
async function embedded(): Promise<Verdict> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-legacy-'));
  const port = randomPort();
  const env = {
    PORT: String(port),
    VERDICT_DATA_DIR: dataDir,
    VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
  };
  const start = async () => {
    const process_ = startVerdict('start', env);
    await process_.waitFor('Verdict is running (embedded mode)', READY_TIMEOUT_MS);
    return process_;
  };
  let running: RunningProcess = await start();
  const first = running.output();
  const field = (name: string) => bannerField(first, name);
  let earlier = '';
  const projectId = field('Project id');
  return {
    url: `http://127.0.0.1:${port}`,
    adminKey: field('Admin key'),
    projectId,
    token: field('Token'),
    async append(streams) {
      expect(await running.stop('SIGTERM')).toBe(0);
      earlier += running.output();
      const db = await createPGliteDatabase({ dataDir: path.join(dataDir, 'pglite') });
      try {
        await appendTo(db, projectId, streams);
      } finally {
        await db.close();
      }
      running = await start();
    },
    output: () => earlier + running.output(),
    async stop() {
      await running.stop('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `npm run start:distributed` on the servers of the test run; events go straight into its PostgreSQL. */
async function distributed(): Promise<Verdict> {
  const port = randomPort();
  const adminKey = `e2e-admin-${randomBytes(12).toString('hex')}`;
  const launcher = startVerdict('start-distributed', {
    PORT: String(port),
    VERDICT_TEST_RESULTS_PORT: String(randomPort()),
    VERDICT_MANUAL_TESTING_PORT: String(randomPort()),
    VERDICT_WEBHOOKS_PORT: String(randomPort()),
    VERDICT_ANALYTICS_PORT: String(randomPort()),
    VERDICT_TEST_RESULTS_PROJECTOR_PORT: String(randomPort()),
    VERDICT_ADMIN_KEY: adminKey,
    VERDICT_INTERNAL_SECRET: randomBytes(32).toString('hex'),
    VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: 'warn',
  });
  await launcher.waitFor('Verdict is running (distributed mode)', READY_TIMEOUT_MS);
  const url = `http://127.0.0.1:${port}`;
  const admin = async (method: string, urlPath: string, body: unknown) => {
    const answer = await call(url, method, `/admin/v1${urlPath}`, adminKey, body);
    if (answer.status >= 300) throw new Error(`${method} ${urlPath}: ${JSON.stringify(answer.body)}`);
    return answer.body.data as Json;
  };
  const unique = randomBytes(6).toString('hex');
  const organization = await admin('POST', '/organizations', { name: `legacy ${unique}` });
  const project = await admin('POST', `/organizations/${organization.id}/projects`, { name: 'Legacy' });
  const user = await admin('POST', '/users', {
    email: `legacy-${unique}@example.com`,
    firstName: 'Lee',
    lastName: 'Gacy',
  });
  await admin('PUT', `/organizations/${organization.id}/members/${user.id}`, { role: 'owner' });
  const token = await admin('POST', '/tokens', {
    kind: 'personal',
    userId: user.id,
    projectIds: [project.id],
  });
  const db = createPostgresDatabase({ connectionString: process.env.DATABASE_URL ?? '' });
  return {
    url,
    adminKey,
    projectId: project.id,
    token: token.token,
    append: (streams) => appendTo(db, project.id, streams),
    output: () => launcher.output(),
    async stop() {
      await db.close();
      await launcher.stop('SIGINT');
    },
  };
}

/** A run of one passing test, every instant of it `at`, as the events of the ingest of the time. */
function legacyRun(projectId: string, at: string, counter: number) {
  const runId = randomUUID();
  // Ids given here, so the dead-letter read can be asked about exactly these events.
  const withId = (event: NewEvent): NewEvent => ({ ...event, eventId: randomUUID() });
  return {
    runId,
    streams: [
      {
        streamId: `run-${runId}`,
        events: [
          RunCreated.of({
            runId,
            projectId,
            counter,
            ciRunId: null,
            title: `legacy ${at}`,
            branch: 'main',
            environment: 'ci',
            commit: null,
            ci: null,
            framework: null,
            shardTotal: null,
            startedAt: at,
            tags: [],
          }),
          RunFinished.of({ runId, finishedAt: at, status: 'passed' }),
        ].map(withId),
      },
      {
        streamId: `run-${runId}-results`,
        events: [
          TestResultRecorded.of({
            runId,
            item: {
              file: FILE,
              titlePath: ['legacy', 'checks out @TC-1'],
              project: 'chromium',
              attempt: 0,
              status: 'passed',
              durationMs: 40,
              startedAt: at,
            },
          }),
        ].map(withId),
      },
    ],
  };
}

const modes: Array<[string, () => Promise<Verdict>]> = [
  ['embedded (npm start: PGlite, in-process bus)', embedded],
  ['distributed (npm run start:distributed: PostgreSQL, Kafka)', distributed],
];

describe.each(modes)('runs stored with instants before year 1000, %s', (_mode, start) => {
  let verdict: Verdict | null = null;
  afterEach(async () => {
    await verdict?.stop();
    verdict = null;
  });

  it('when their events are in the store, then they project without a dead letter, every read shows them with the start of the range, and their webhooks are delivered', async () => {
    const receiver = await startReceiver();
    try {
      verdict = await start();
      const v = verdict;
      const api = `/api/public/v1/${v.projectId}`;
      const get = (urlPath: string) => call(v.url, 'GET', `${api}${urlPath}`, v.token);
      const subscribed = await call(v.url, 'POST', `${api}/webhooks`, v.token, {
        url: receiver.url,
        events: ['run.started', 'run.finished'],
      });
      expect(subscribed.status).toBe(200);
      const manualCase = await call(v.url, 'POST', `${api}/manual-test-cases`, v.token, {
        title: 'Checkout',
      });
      expect(manualCase.status).toBe(201);
      expect(manualCase.body.data.caseId).toBe('TC-1');

      const runs = LEGACY.map((at, index) => legacyRun(v.projectId, at, 1_000 + index));
      await v.append(runs.flatMap((run) => run.streams));
      const runIds = runs.map((run) => run.runId).sort();

      // The runs list, for everyone in the project: all three, finished, with the start of the range.
      const list = await eventually(
        () => get('/test-runs?limit=100'),
        (answer) =>
          answer.status !== 200 ||
          answer.body.data.filter((run: Json) => runIds.includes(run.id) && run.stats.total === 1).length ===
            3,
      );
      expect(list.status).toBe(200);
      const listed = list.body.data.filter((run: Json) => runIds.includes(run.id));
      expect(listed.map((run: Json) => [run.startedAt, run.finishedAt, run.status])).toEqual(
        Array(3).fill([SHOWN, SHOWN, 'finished']),
      );
      const ranged = await get(`/test-runs?start_date=${SHOWN}&end_date=1000-01-02T00:00:00Z&limit=100`);
      expect(ranged.status).toBe(200);
      expect(ranged.body.data.map((run: Json) => run.id).sort()).toEqual(runIds);

      for (const runId of runIds) {
        const detail = await get(`/test-runs/${runId}?include=all`);
        expect({ runId, status: detail.status }).toEqual({ runId, status: 200 });
        expect(detail.body.data).toMatchObject({ startedAt: SHOWN, finishedAt: SHOWN });
        const bundle = await get(`/debug-bundle?runId=${runId}`);
        expect({ runId, bundle: bundle.status }).toEqual({ runId, bundle: 200 });
        expect(bundle.body.data.meta).toMatchObject({ startedAt: SHOWN });
        const caseId = detail.body.data.specs[0].tests[0].testCaseId as string;
        const testBundle = await get(`/debug-bundle?runId=${runId}&caseId=${caseId}`);
        expect({ runId, testBundle: testBundle.status }).toEqual({ runId, testBundle: 200 });
        const markdown = await get(`/debug-bundle?runId=${runId}&as=markdown`);
        expect({ runId, markdown: markdown.status }).toEqual({ runId, markdown: 200 });
      }
      const caseId = (await get(`/test-runs/${runIds[0]}?include=specs`)).body.data.specs[0].tests[0]
        .testCaseId as string;
      const testCase = await get(`/test-cases/${caseId}?include=history`);
      expect(testCase.status).toBe(200);
      const history = await get(`/test-cases/${caseId}/history?limit=10`);
      expect(history.status).toBe(200);
      expect(history.body.data.map((execution: Json) => execution.startedAt)).toEqual(Array(3).fill(SHOWN));
      expect((await get('/specs')).status).toBe(200);

      // Analytics projects from the bus: the explorer over January of year 1000 finds the test.
      const explorer = await eventually(
        () => get('/test-case-explorer?fromDate=1000-01-01&toDate=1000-01-31'),
        (answer) => answer.status !== 200 || answer.body.data.testCases[0]?.executions === 3,
      );
      expect(explorer.status).toBe(200);
      expect(explorer.body.data.testCases).toHaveLength(1);
      expect(explorer.body.data.testCases[0]).toMatchObject({ executions: 3, lastRun: { timestamp: SHOWN } });
      for (const read of [
        '/test-case-explorer',
        '/dashboard',
        '/filters',
        '/usage',
        '/analytics/summary?startDate=1000-01-01&endDate=1000-01-31',
        '/analytics/execution-performance?startDate=1000-01-01&endDate=1000-01-31',
      ]) {
        const answer = await get(read);
        expect({ read, status: answer.status }).toEqual({ read, status: 200 });
      }
      const summary = await get('/analytics/summary?startDate=1000-01-01&endDate=1000-01-31');
      expect(summary.body.data.metrics.totalRuns).toBe(3);
      const report = await call(v.url, 'POST', `${api}/reports`, v.token, { runId: runIds[0] });
      expect({ status: report.status, type: report.type }).toEqual({ status: 200, type: 'application/pdf' });

      // Manual testing links the test to TC-1 from the results' title.
      const linked = await eventually(
        () => get('/manual-test-cases/TC-1'),
        (answer) => answer.status !== 200 || answer.body.data.linkedTests.length === 1,
      );
      expect(linked.status).toBe(200);
      expect(linked.body.data.linkedTests[0].lastResult).toMatchObject({ status: 'passed', at: SHOWN });

      // Both webhooks of each run, with the instants as every read shows them.
      const payloads = await eventually(
        async () => receiver.payloads.filter((payload) => runIds.includes(payload.data.run.id)),
        (delivered) => delivered.length >= 6,
      );
      expect(
        payloads.map((payload) => `${payload.data.run.id} ${payload.eventName ?? payload.event}`).sort(),
      ).toEqual(runIds.flatMap((id) => [`${id} run.finished`, `${id} run.started`]).sort());
      for (const payload of payloads) expect(payload.data.run.startedAt).toBe(SHOWN);

      // No consumer dead-lettered any of these events: the admin read and the log say so.
      const eventIds = runs.flatMap((run) =>
        run.streams.flatMap((stream) => stream.events.map((e) => e.eventId)),
      );
      for (const eventId of eventIds) {
        const letters = await call(v.url, 'GET', `/admin/v1/dead-letters?eventId=${eventId}`, v.adminKey);
        expect({ eventId, status: letters.status, total: letters.body.pagination.total }).toEqual({
          eventId,
          status: 200,
          total: 0,
        });
      }
      expect(v.output()).not.toContain('message dead-lettered');
    } finally {
      await receiver.close();
    }
  });
});
