import {
  DebugBundleEnvelope,
  RunBundle,
  SuiteBundle,
  TestBundle,
  testCaseIdOf,
  type ResultItem,
} from '@verdict/contracts';
import {
  ManualClock,
  START,
  createHttpApp,
  createSqlEventStore,
  newSecret,
  registerRoutes,
  requireInternalIdentity,
  silentLogger,
  type SqlDatabase,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import express, { type Express } from 'express';
import request from 'supertest';
import { createIngest } from '../runs/ingest';
import { createDebugBundleRoutes } from './routes';
import { testDatabases, type TestDatabase } from '@verdict/platform/testing/databases';
import { readModelSchemas } from '../readStore';
import { memberIdentity, readModelsUnder } from '../testing';

// The debug bundle over a read model projected from real ingest events, on both adapters. Project-1 has four runs:
// `older` (breaks failed), `target` (the run under test: breaks failed twice on chromium and once on
// firefox, retries flaky, signs in failed, pays passed), `later` (breaks passed) and `latest` (only pays).
// Project-2 has one run.

const P1 = 'project-1';
const P2 = 'project-2';
const CART = 'tests/cart.spec.ts';
const LOGIN = 'tests/login.spec.ts';

const ADAPTERS = testDatabases({ postgresPoolSize: 4 });
/** The gateway's secret: every request comes as the gateway forwards it, for the path's project. */
const SECRET = newSecret(32);
const SCREENSHOTS = 7;

const breaksId = testCaseIdOf({ file: CART, titlePath: ['Cart', 'breaks'] });
const retriesId = testCaseIdOf({ file: CART, titlePath: ['Cart', 'retries'] });
const signsInId = testCaseIdOf({ file: LOGIN, titlePath: ['Login', 'signs in'] });

function result(
  title: string,
  attempt: number,
  status: ResultItem['status'],
  extra: Partial<ResultItem> = {},
): ResultItem {
  return {
    file: CART,
    titlePath: ['Cart', title],
    project: 'chromium',
    attempt,
    status,
    durationMs: 100 + attempt,
    startedAt: `2026-03-02T10:00:0${attempt}.000Z`,
    location: { file: CART, line: 10 },
    ...(status === 'failed' && {
      error: { message: `Error: ${title} broke on attempt ${attempt}`, location: { file: CART, line: 12 } },
    }),
    ...extra,
  };
}

const steps = [
  { title: 'open cart', durationMs: 5 },
  { title: 'click pay', durationMs: 5 },
  {
    title: 'expect total',
    durationMs: 5,
    category: 'expect',
    error: { message: 'Expected 3, got 2' },
  },
  { title: 'close', durationMs: 5 },
];

let db: SqlDatabase;
let schemas: string[] = [];
let app: Express;
let older: string;
let target: string;
let later: string;
let foreign: string;

async function setUp(adapter: TestDatabase): Promise<void> {
  db = await adapter.open();
  const storeSchema = uniqueName('bundle_store');
  const readSchema = uniqueName('bundle_read');
  schemas = [storeSchema, readSchema];
  const store = createSqlEventStore({ db, schema: storeSchema });
  await store.init();
  const ingest = createIngest({ store, clock: new ManualClock('2026-03-05T10:00:00.000Z') });
  const framework = { name: 'playwright', version: '1.50.0' };

  older = (await ingest.startRun(P1, { framework, branch: 'main', startedAt: '2026-03-01T10:00:00.000Z' }))
    .run.id;
  await ingest.addResults(P1, older, [result('breaks', 0, 'failed')]);
  await ingest.finish(P1, older, { finishedAt: '2026-03-01T10:05:00.000Z' });

  target = (
    await ingest.startRun(P1, {
      title: 'nightly',
      branch: 'main',
      environment: 'staging',
      commit: { sha: 'bbb222', message: 'fix cart' },
      ci: { provider: 'github', buildId: '42' },
      framework,
      startedAt: '2026-03-02T10:00:00.000Z',
    })
  ).run.id;
  const attachments = [
    { name: 'trace', contentType: 'application/zip', artifactId: 'art-trace' },
    ...Array.from({ length: SCREENSHOTS }, (_, i) => ({
      name: `shot-${i}.png`,
      contentType: 'image/png',
      artifactId: `art-shot-${i}`,
    })),
  ];
  await ingest.addResults(P1, target, [
    result('breaks', 0, 'failed', { stdout: ['first try'] }),
    result('breaks', 1, 'failed', { steps, stdout: ['second try'], stderr: ['warn'], attachments }),
    result('breaks', 0, 'failed', { project: 'firefox' }),
    result('retries', 0, 'failed'),
    result('retries', 1, 'passed'),
    result('pays', 0, 'passed'),
    result('signs in', 0, 'failed', { file: LOGIN, titlePath: ['Login', 'signs in'] }),
  ]);
  await ingest.recordArtifact(P1, target, {
    id: 'art-trace',
    name: 'trace',
    contentType: 'application/zip',
    size: 5,
    blobKey: 'b/trace',
  });
  await ingest.finish(P1, target, { finishedAt: '2026-03-02T10:05:00.000Z' });

  later = (await ingest.startRun(P1, { framework, startedAt: '2026-03-03T10:00:00.000Z' })).run.id;
  await ingest.addResults(P1, later, [result('breaks', 0, 'passed')]);
  const latest = (await ingest.startRun(P1, { framework, startedAt: '2026-03-04T10:00:00.000Z' })).run.id;
  await ingest.addResults(P1, latest, [result('pays', 0, 'passed')]);

  foreign = (await ingest.startRun(P2, { startedAt: '2026-03-03T10:00:00.000Z' })).run.id;
  await ingest.addResults(P2, foreign, [result('pays', 0, 'passed')]);

  const { projector } = await readModelsUnder(db, readSchema);
  const { events } = await store.readAll({ after: START, limit: 10_000 });
  await projector.applyEvents(events);

  const http = createHttpApp({ logger: silentLogger(), service: 'test-results' });
  const router = express.Router();
  router.use(requireInternalIdentity({ secret: SECRET }));
  registerRoutes(
    router,
    createDebugBundleRoutes({
      db,
      schemas: readModelSchemas(readSchema),
      publicUrl: 'https://verdict.example.com/',
      signArtifactUrl: (artifact) => `https://signed.example/${artifact.runId}/${artifact.blobKey}`,
      clock: new ManualClock('2026-03-06T00:00:00.000Z'),
    }),
  );
  http.app.use(router);
  http.finish(http.app);
  app = http.app;
}

const bundle = (projectId: string, query: string) =>
  request(app).get(`/${projectId}/debug-bundle?${query}`).set(memberIdentity(SECRET, projectId));

describe.each(ADAPTERS)('debug bundle on $name', (adapter) => {
  beforeAll(() => setUp(adapter), 60_000);
  afterAll(async () => {
    for (const schema of schemas) await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  describe('debug bundle, run scope', () => {
    it('when a run is asked for, then its failing tests come one per case and platform, failed first, with pagination beside data', async () => {
      const response = await bundle(P1, `runId=${target}`);
      expect(response.status).toBe(200);
      const body = DebugBundleEnvelope.parse(response.body);
      const data = RunBundle.parse(body.data);
      expect(data.runStatus).toBe('failed');
      // breaks failed on chromium and on firefox: two items, one per platform.
      expect(data.items.map((item) => [item.caseId, item.project])).toEqual([
        [breaksId, 'chromium'],
        [breaksId, 'firefox'],
        [signsInId, 'chromium'],
        [retriesId, 'chromium'],
      ]);
      expect(data.items[0]).toMatchObject({ project: 'chromium', outcome: 'failed', attempts: 2, line: 10 });
      expect(data.items[1]).toMatchObject({ project: 'firefox', outcome: 'failed', attempts: 1 });
      expect(data.items[1]?.retryCommand).toContain('--project=firefox');
      expect(data.items[3]).toMatchObject({ outcome: 'flaky', status: 'passed' });
      expect(data.suites.map((suite) => [suite.suiteId, suite.stats.failed])).toEqual([
        [CART, 2],
        [LOGIN, 1],
      ]);
      expect(data.environment).toMatchObject({
        branch: 'main',
        environment: 'staging',
        commit: { sha: 'bbb222' },
      });
      expect(data.links.uiUrl).toBe(`https://verdict.example.com/projects/${P1}/runs/${target}`);
      expect(data.links.retryCommand).toContain('npx playwright test');
      expect(response.body.pagination).toEqual({
        page: 1,
        limit: 10,
        total: 4,
        hasNext: false,
        hasPrev: false,
      });
      expect(response.body.data.pagination).toBeUndefined();
    });

    it('when a run is asked for, then each failed test carries its verdict against the base branch and its signature, a flaky one neither', async () => {
      const response = await bundle(P1, `runId=${target}`);
      const data = RunBundle.parse(response.body.data);
      // The older run on main (the base) failed breaks on chromium only.
      expect(data.items.map((item) => [item.caseId, item.project, item.verdict])).toEqual([
        [breaksId, 'chromium', 'failing-on-base'],
        [breaksId, 'firefox', 'new'],
        [signsInId, 'chromium', 'new'],
        [retriesId, 'chromium', null],
      ]);
      expect(data.items[0]?.signature).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{12}$/) });
      expect(data.items[3]?.signature).toBeNull();
      const markdown = await bundle(P1, `runId=${target}&as=markdown`);
      expect(markdown.text).toContain(
        `Verdict: failing-on-base; signature \`${data.items[0]?.signature?.id}\``,
      );
    });

    it('when a test case also failed in another recent run, then alsoFailedIn names that run only', async () => {
      const response = await bundle(P1, `runId=${target}`);
      const data = RunBundle.parse(response.body.data);
      expect(data.items.find((item) => item.caseId === breaksId)?.alsoFailedIn).toEqual([older]);
      expect(data.items.find((item) => item.caseId === signsInId)?.alsoFailedIn).toEqual([]);
    });

    it('when page 2 of limit 2 is asked for, then it holds the last failing tests and says there is a page before', async () => {
      const response = await bundle(P1, `runId=${target}&page=2&limit=2`);
      expect(response.status).toBe(200);
      expect(response.body.data.items.map((item: { caseId: string }) => item.caseId)).toEqual([
        signsInId,
        retriesId,
      ]);
      expect(response.body.pagination).toEqual({
        page: 2,
        limit: 2,
        total: 4,
        hasNext: false,
        hasPrev: true,
      });
    });

    it('when the run is unknown or of another project, then it answers 404 TEST_RUN_NOT_FOUND', async () => {
      // %00 reads as U+FFFD: an id PostgreSQL can look up, and does not find.
      for (const runId of ['no-such-run', foreign, '%00']) {
        const response = await bundle(P1, `runId=${runId}`);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('TEST_RUN_NOT_FOUND');
      }
    });
  });

  describe('debug bundle, suite scope', () => {
    it('when a spec file of the run is asked for, then its failing tests come with their failure windows and pagination', async () => {
      const response = await bundle(P1, `runId=${target}&suiteId=${encodeURIComponent(CART)}`);
      expect(response.status).toBe(200);
      const data = SuiteBundle.parse(response.body.data);
      expect(data.spec).toMatchObject({
        file: CART,
        title: 'Cart',
        stats: { total: 4, failed: 2, flaky: 1 },
      });
      expect(data.suiteStatus).toBe('failed');
      expect(data.items.map((item) => [item.caseId, item.project])).toEqual([
        [breaksId, 'chromium'],
        [breaksId, 'firefox'],
        [retriesId, 'chromium'],
      ]);
      expect(data.items[0]?.failureWindow?.failed?.title).toBe('expect total');
      expect(data.items[0]?.failureWindow?.before.map((step) => step.title)).toEqual([
        'open cart',
        'click pay',
      ]);
      expect(data.links.retryCommand).toBe(`npx playwright test ${CART}`);
      expect(response.body.pagination).toEqual({
        page: 1,
        limit: 10,
        total: 3,
        hasNext: false,
        hasPrev: false,
      });
    });

    it('when view=brief or headline, then every failureWindow is null', async () => {
      for (const view of ['brief', 'headline']) {
        const response = await bundle(P1, `runId=${target}&suiteId=${encodeURIComponent(CART)}&view=${view}`);
        expect(response.status).toBe(200);
        expect(response.body.data.meta.view).toBe(view);
        expect(
          response.body.data.items.map((item: { failureWindow: unknown }) => item.failureWindow),
        ).toEqual([null, null, null]);
      }
    });

    it('when the spec file did not run in the run, then it answers 404 TEST_SUITE_NOT_FOUND', async () => {
      for (const suiteId of ['tests%2Fnope.spec.ts', '%00', `${encodeURIComponent(CART)}%00`]) {
        const response = await bundle(P1, `runId=${target}&suiteId=${suiteId}`);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('TEST_SUITE_NOT_FOUND');
      }
    });
  });

  describe('debug bundle, test scope', () => {
    it("when project names a platform, then the attempts shown are that platform's", async () => {
      const response = await bundle(P1, `caseId=${breaksId}&runId=${target}&project=firefox`);
      expect(response.status).toBe(200);
      const data = TestBundle.parse(response.body.data);
      expect(data.test).toMatchObject({ caseId: breaksId, project: 'firefox', outcome: 'failed' });
      expect(data.meta).toMatchObject({ attempt: 0, attempts: 1 });
      expect(data.links.retryCommand).toContain('--project=firefox');
      const unknown = await bundle(P1, `caseId=${breaksId}&runId=${target}&project=webkit`);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('TEST_CASE_NOT_FOUND');
    });

    it('when a case and run are asked for, then the latest attempt comes with its error, steps, output and signed artifacts, unpaginated', async () => {
      const response = await bundle(P1, `caseId=${breaksId}&runId=${target}`);
      expect(response.status).toBe(200);
      expect(response.body.pagination).toBeUndefined();
      const data = TestBundle.parse(response.body.data);
      expect(data.meta).toMatchObject({
        runId: target,
        latestRun: false,
        attempt: 1,
        attempts: 2,
        view: 'full',
      });
      expect(data.test).toMatchObject({
        caseId: breaksId,
        project: 'chromium',
        status: 'failed',
        outcome: 'failed',
      });
      expect(data.error?.message).toBe('Error: breaks broke on attempt 1');
      expect(data.attemptHistory).toEqual([
        {
          attempt: 0,
          status: 'failed',
          durationMs: 100,
          error: { message: 'Error: breaks broke on attempt 0', location: { file: CART, line: 12 } },
          // Sent without a worker: how it ran is unknown, not absent.
          worker: null,
        },
      ]);
      expect(data.steps?.map((step) => step.title)).toEqual([
        'open cart',
        'click pay',
        'expect total',
        'close',
      ]);
      expect(data.failureWindow.failed?.title).toBe('expect total');
      expect([data.stdout, data.stderr]).toEqual([['second try'], ['warn']]);
      expect(data.traceLink).toBe(`https://signed.example/${target}/b/trace`);
      expect(data.links.traceViewerUrl).toBe(
        `https://verdict.example.com/trace-viewer/?trace=${encodeURIComponent(`https://signed.example/${target}/b/trace`)}`,
      );
      expect(data.artifacts.screenshots).toHaveLength(SCREENSHOTS);
      // Named by the result but never uploaded: no link (there is nothing to download).
      expect(data.artifacts.screenshots[0]).toMatchObject({ artifactId: 'art-shot-0', url: null });
      expect(data.links.uiUrl).toBe(
        `https://verdict.example.com/projects/${P1}/runs/${target}/tests/${breaksId}?attempt=1`,
      );
    });

    it("when a failed test's bundle is asked for, then it shows the failure's verdict and signature, in JSON and Markdown", async () => {
      const data = TestBundle.parse((await bundle(P1, `caseId=${breaksId}&runId=${target}`)).body.data);
      expect(data.test).toMatchObject({ verdict: 'failing-on-base', signature: { id: expect.any(String) } });
      const markdown = await bundle(P1, `caseId=${breaksId}&runId=${target}&project=firefox&as=markdown`);
      expect(markdown.text).toContain('Verdict: new; signature');
    });

    it('when attempt=0 is asked for, then it is shown and the history lists attempt 1 only', async () => {
      const response = await bundle(P1, `caseId=${breaksId}&runId=${target}&attempt=0`);
      const data = TestBundle.parse(response.body.data);
      expect(data.meta.attempt).toBe(0);
      expect(data.stdout).toEqual(['first try']);
      expect(data.attemptHistory.map((entry) => entry.attempt)).toEqual([1]);
    });

    it('when caseId comes without runId, then the latest run that ran the case is shown in meta.runId', async () => {
      const response = await bundle(P1, `caseId=${breaksId}`);
      expect(response.status).toBe(200);
      expect(response.body.data.meta).toMatchObject({
        runId: later,
        latestRun: true,
        attempt: 0,
        attempts: 1,
      });
      expect(response.body.data.test.status).toBe('passed');
    });

    it('when the attempt is out of range, then it answers 400 INVALID_ATTEMPT', async () => {
      const response = await bundle(P1, `caseId=${breaksId}&runId=${target}&attempt=2`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('INVALID_ATTEMPT');
    });

    it('when the case is unknown, of another project, or not in the run, then it answers 404 TEST_CASE_NOT_FOUND', async () => {
      const queries: [string, string][] = [
        [P1, 'caseId=no-such-case'],
        [P1, 'caseId=%00'],
        [P2, `caseId=${breaksId}`],
        [P1, `caseId=${signsInId}&runId=${later}`],
      ];
      for (const [projectId, query] of queries) {
        const response = await bundle(projectId, query);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('TEST_CASE_NOT_FOUND');
      }
    });

    it('when the case exists but its run does not, then it answers 404 TEST_RUN_NOT_FOUND', async () => {
      const response = await bundle(P1, `caseId=${breaksId}&runId=${foreign}`);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('TEST_RUN_NOT_FOUND');
    });

    it('when view=brief, then steps are omitted but the output stays', async () => {
      const response = await bundle(P1, `caseId=${breaksId}&runId=${target}&view=brief`);
      expect(response.status).toBe(200);
      expect(response.body.data).not.toHaveProperty('steps');
      expect(response.body.data.stdout).toEqual(['second try']);
    });

    it('when view=headline, then steps and output are omitted and artifacts are capped at 5 with totals', async () => {
      const response = await bundle(P1, `caseId=${breaksId}&runId=${target}&view=headline`);
      expect(response.status).toBe(200);
      const data = response.body.data;
      for (const field of ['steps', 'stdout', 'stderr']) expect(data).not.toHaveProperty(field);
      expect(data.artifacts.screenshots).toHaveLength(5);
      expect(data.artifacts.totals).toEqual({ screenshots: SCREENSHOTS, videos: 0, traces: 1, other: 0 });
    });
  });

  describe('debug bundle, Markdown', () => {
    it('when as=markdown at each scope, then the body is text/markdown with that scope’s sections and no envelope', async () => {
      const cases: [string, string[]][] = [
        [`runId=${target}`, ['## Failing suites', '## Failing tests', '## Actions']],
        [
          `runId=${target}&suiteId=${encodeURIComponent(CART)}`,
          ['## Failing tests', '#### Failure window', '## Actions'],
        ],
        [
          `caseId=${breaksId}&runId=${target}`,
          [
            '## Error',
            '## Failure window',
            '## Steps',
            '## stdout',
            '## stderr',
            '## Attempt history',
            '## Artifacts',
            '## Actions',
          ],
        ],
      ];
      for (const [query, sections] of cases) {
        const response = await bundle(P1, `${query}&as=markdown`);
        expect(response.status).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/markdown/);
        expect(response.text).not.toContain('"success"');
        for (const section of sections) expect(response.text).toContain(section);
      }
    });

    it('when budgetChars is sent, then the body fits it and says it was truncated', async () => {
      const full = await bundle(P1, `caseId=${breaksId}&runId=${target}&as=markdown`);
      const budget = 300;
      expect(full.text.length).toBeGreaterThan(budget);
      const response = await bundle(
        P1,
        `caseId=${breaksId}&runId=${target}&as=markdown&budgetChars=${budget}`,
      );
      expect(response.status).toBe(200);
      expect(response.text.length).toBeLessThanOrEqual(budget);
      expect(response.text).toContain('truncated');
    });
  });

  describe('debug bundle, query rules through HTTP', () => {
    it('when a parameter is sent twice, then it answers 400 VALIDATION_ERROR naming it', async () => {
      const response = await bundle(P1, `runId=${target}&runId=${target}`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.message).toContain('runId: must not be sent more than once');
    });

    it('when a retired parameter is sent, then it answers 400 VALIDATION_ERROR naming its replacement', async () => {
      const response = await bundle(P1, `runId=${target}&format=markdown`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.message).toContain('format: is a retired parameter');
    });

    it('when view=brief is sent at run scope, then it answers 400 VALIDATION_ERROR', async () => {
      const response = await bundle(P1, `runId=${target}&view=brief`);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    });
  });
});
