import { errorSignature, testCaseIdOf, type ResultItem } from '@verdict/contracts';
import {
  ManualClock,
  START,
  buildOpenApiDocument,
  createHttpApp,
  createSqlEventStore,
  newSecret,
  registerRoutes,
  requireInternalIdentity,
  silentLogger,
  systemClock,
  type SqlDatabase,
} from '@verdict/platform';
import { createTestPGlite } from '@verdict/platform/testing/databases';
import express, { type Express } from 'express';
import request from 'supertest';
import { createIngest } from '../runs/ingest';
import { readModelSchemas } from '../readStore';
import { memberIdentity, readModelsUnder } from '../testing';
import { createReadRoutes } from './routes';

// The read routes over a read model projected from real ingest events (PGlite): two runs of project-1
// (the newer on main, the older on feature/cart in staging) and one run of project-2.

const P1 = 'project-1';
const P2 = 'project-2';
const FILE = 'tests/cart.spec.ts';
const OTHER_FILE = 'tests/login.spec.ts';
const SCHEMA = 'reads_test';
/** The gateway's secret: every request comes as the gateway forwards it, for the path's project. */
const SECRET = newSecret(32);

function result(
  title: string,
  attempt: number,
  status: ResultItem['status'],
  extra: Partial<ResultItem> = {},
) {
  return {
    file: FILE,
    titlePath: ['Cart', title],
    project: 'chromium',
    attempt,
    status,
    durationMs: 100,
    startedAt: '2026-03-01T10:00:00.000Z',
    ...(status === 'failed' && {
      error: { message: `Error: ${title} broke`, stack: `Error: ${title} broke\n    at ${FILE}:12:3` },
    }),
    ...extra,
  } satisfies ResultItem;
}

const retriesId = testCaseIdOf({ file: FILE, titlePath: ['Cart', 'retries'] });
const paysId = testCaseIdOf({ file: FILE, titlePath: ['Cart', 'pays'] });

let db: SqlDatabase;
let app: Express;
let newer: string;
let older: string;
let foreign: string;
/** A run whose runner numbered a test's attempts 0 and 3 (project-3 only). */
let gappy: string;
/** A run of three shards, two started, one finished (project-4 only). */
let sharded: string;

beforeAll(async () => {
  db = await createTestPGlite();
  const store = createSqlEventStore({ db, schema: 'reads_store' });
  await store.init();
  const ingest = createIngest({ store, clock: new ManualClock('2026-03-02T10:00:00.000Z') });

  older = (
    await ingest.startRun(P1, {
      title: 'cart checks',
      branch: 'feature/cart',
      environment: 'staging',
      ciRunId: 'gh-41',
      commit: { sha: 'aaa111' },
      startedAt: '2026-03-01T10:00:00.000Z',
    })
  ).run.id;
  await ingest.addResults(P1, older, [
    result('retries', 0, 'passed', { startedAt: '2026-03-01T10:00:00.000Z' }),
    result('breaks', 0, 'failed', { startedAt: '2026-03-01T10:00:00.000Z' }),
    result('signs in', 0, 'passed', { file: OTHER_FILE, titlePath: ['Login', 'signs in'] }),
  ]);
  await ingest.finish(P1, older, { finishedAt: '2026-03-01T10:05:00.000Z' });

  newer = (
    await ingest.startRun(P1, {
      title: 'nightly 50%',
      branch: 'main',
      environment: 'production',
      ciRunId: 'gh-42',
      commit: { sha: 'bbb222' },
      startedAt: '2026-03-02T10:00:00.000Z',
    })
  ).run.id;
  await ingest.addResults(P1, newer, [
    result('pays', 0, 'passed', { startedAt: '2026-03-02T10:00:00.000Z' }),
    result('retries', 0, 'failed', { startedAt: '2026-03-02T10:00:00.000Z' }),
    result('retries', 1, 'passed', { startedAt: '2026-03-02T10:00:01.000Z' }),
    result('breaks', 0, 'failed', { startedAt: '2026-03-02T10:00:00.000Z' }),
    result('breaks', 1, 'failed', { startedAt: '2026-03-02T10:00:01.000Z' }),
    result('waits', 0, 'skipped', { startedAt: '2026-03-02T10:00:00.000Z' }),
  ]);
  await ingest.addCoverage(P1, newer, {
    lines: { total: 10, covered: 8 },
    statements: { total: 10, covered: 8 },
    functions: { total: 2, covered: 2 },
    branches: { total: 4, covered: 3 },
  });
  const artifacts: [string, string][] = [
    ['art-1', 'trace.zip'],
    ['art-2', 'screenshot.png'],
  ];
  for (const [id, name] of artifacts) {
    await ingest.recordArtifact(P1, newer, {
      id,
      name,
      contentType: 'application/zip',
      size: 5,
      blobKey: `b/${id}`,
    });
  }

  foreign = (await ingest.startRun(P2, { title: 'elsewhere', startedAt: '2026-03-03T10:00:00.000Z' })).run.id;
  await ingest.addResults(P2, foreign, [result('pays', 0, 'passed')]);

  gappy = (await ingest.startRun('project-3', { startedAt: '2026-03-03T10:00:00.000Z' })).run.id;
  await ingest.addResults('project-3', gappy, [result('skips', 0, 'failed'), result('skips', 3, 'failed')]);

  sharded = (await ingest.startRun('project-4', { ciRunId: 'gh-7', shard: { current: 2, total: 3 } })).run.id;
  await ingest.startRun('project-4', { ciRunId: 'gh-7', shard: { current: 1, total: 3 } });
  await ingest.finish('project-4', sharded, { shard: { current: 2, total: 3 } });
  await ingest.finish('project-4', sharded, { shard: { current: 2, total: 3 } });

  const { projector } = await readModelsUnder(db, SCHEMA);
  const { events } = await store.readAll({ after: START, limit: 10_000 });
  await projector.applyEvents(events);

  const http = createHttpApp({ logger: silentLogger(), service: 'test-results' });
  const router = express.Router();
  router.use(requireInternalIdentity({ secret: SECRET }));
  registerRoutes(
    router,
    createReadRoutes({
      db,
      schemas: readModelSchemas(SCHEMA),
      clock: systemClock,
      publicUrl: 'https://verdict.example.com/',
      signArtifactUrl: (artifact) => `signed:${artifact.projectId}/${artifact.runId}/${artifact.id}`,
    }),
  );
  http.app.use(router);
  http.finish(http.app);
  app = http.app;
}, 60_000);

afterAll(async () => {
  await db?.close();
});

const get = (path: string) =>
  request(app)
    .get(path)
    .set(memberIdentity(SECRET, decodeURIComponent(path.split('/')[1] ?? '')));

async function expectValidation(path: string, parameter: string) {
  const response = await get(path);
  expect(response.status).toBe(400);
  expect(response.body).toEqual({
    success: false,
    error: { code: 'VALIDATION_ERROR', message: expect.stringContaining(`${parameter}:`) },
  });
}

describe('shards', () => {
  it('when a run is sent in shards, then its record tells how many, which started and which finished (each once); a run without shards tells null', async () => {
    const detail = await get(`/project-4/test-runs/${sharded}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({
      status: 'running',
      shards: { total: 3, started: [1, 2], finished: [2] },
    });
    const listed = await get('/project-4/test-runs');
    expect(listed.body.data[0].shards).toEqual({ total: 3, started: [1, 2], finished: [2] });
    expect((await get(`/${P1}/test-runs/${older}`)).body.data.shards).toBeNull();
  });
});

describe('GET /{projectId}/test-runs', () => {
  it('when runs are listed, then they come newest first with stats, only of the project, pagination beside data', async () => {
    const response = await get(`/${P1}/test-runs`);
    expect(response.status).toBe(200);
    expect(response.body.data.map((run: { id: string }) => run.id)).toEqual([newer, older]);
    expect(response.body.data[0]).toMatchObject({
      projectId: P1,
      counter: 2,
      status: 'running',
      outcome: null,
      title: 'nightly 50%',
      branch: 'main',
      commit: { sha: 'bbb222' },
      stats: { total: 4, passed: 1, failed: 1, flaky: 1, skipped: 1 },
    });
    expect(response.body.data[1]).toMatchObject({
      status: 'finished',
      outcome: 'failed',
      durationMs: 300_000,
    });
    expect(response.body.pagination).toEqual({
      page: 1,
      limit: 20,
      total: 2,
      hasNext: false,
      hasPrev: false,
    });
  });

  it('when page 2 of limit 1 is asked, then the older run comes with the matching pagination', async () => {
    const response = await get(`/${P1}/test-runs?page=2&limit=1`);
    expect(response.body.data.map((run: { id: string }) => run.id)).toEqual([older]);
    expect(response.body.pagination).toEqual({ page: 2, limit: 1, total: 2, hasNext: false, hasPrev: true });
  });

  it('when start_date and end_date frame one day, then only the runs started in it come', async () => {
    const response = await get(
      `/${P1}/test-runs?start_date=2026-03-01T00:00:00Z&end_date=2026-03-01T23:59:59Z`,
    );
    expect(response.body.data.map((run: { id: string }) => run.id)).toEqual([older]);
  });

  it('when start_date and end_date are written with a lower-case t and z (RFC 3339 §5.6), then they frame the same day', async () => {
    const response = await get(
      `/${P1}/test-runs?start_date=2026-03-01t00:00:00z&end_date=2026-03-01t23:59:59z`,
    );
    expect(response.status).toBe(200);
    expect(response.body.data.map((run: { id: string }) => run.id)).toEqual([older]);
  });

  it('when status, branch or environment filter, then only matching runs come', async () => {
    const ids = async (query: string) =>
      (await get(`/${P1}/test-runs?${query}`)).body.data.map((run: { id: string }) => run.id);
    expect(await ids('status=running')).toEqual([newer]);
    expect(await ids('status=finished')).toEqual([older]);
    expect(await ids('status=failed')).toEqual([older]);
    expect(await ids('status=passed')).toEqual([]);
    expect(await ids('branch=feature%2Fcart')).toEqual([older]);
    expect(await ids('environment=production')).toEqual([newer]);
  });

  it('when a run or test case id holds %00, then it is not found instead of failing', async () => {
    for (const path of [`/${P1}/test-runs/a%00b`, `/${P1}/test-cases/%00`, `/${P1}/test-cases/%00/history`]) {
      const response = await get(path);
      expect(response.status).toBe(404);
    }
  });

  it('when a filter or the search holds %00, then it matches nothing instead of failing', async () => {
    for (const query of ['branch=%00', 'environment=a%00', 'search=%00']) {
      const response = await get(`/${P1}/test-runs?${query}`);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([]);
    }
  });

  it('when search names a commit sha, a ciRunId, a title or a branch part, then the run is found, and % is literal', async () => {
    const ids = async (search: string) =>
      (await get(`/${P1}/test-runs?search=${encodeURIComponent(search)}`)).body.data.map(
        (run: { id: string }) => run.id,
      );
    expect(await ids('AAA1')).toEqual([older]);
    expect(await ids('gh-42')).toEqual([newer]);
    expect(await ids('cart checks')).toEqual([older]);
    expect(await ids('feature/')).toEqual([older]);
    expect(await ids('50%')).toEqual([newer]);
    expect(await ids('%')).toEqual([newer]);
  });

  it('when the analytics spelling startDate is sent to the test runs list, then 400 names it instead of listing every run', () =>
    expectValidation(`/${P1}/test-runs?startDate=2026-03-01&endDate=2026-03-02`, 'startDate'));
  it('when the offset-paged history is sent page, then 400 names it', () =>
    expectValidation(`/${P1}/test-cases/${retriesId}/history?page=2`, 'page'));
  it('when start_date comes without end_date, then 400 names end_date', () =>
    expectValidation(`/${P1}/test-runs?start_date=2026-03-01T00:00:00Z`, 'end_date'));
  it('when end_date comes without start_date, then 400 names start_date', () =>
    expectValidation(`/${P1}/test-runs?end_date=2026-03-01T00:00:00Z`, 'start_date'));
  it('when start_date is not RFC 3339, then 400 names start_date', () =>
    expectValidation(`/${P1}/test-runs?start_date=2026-03-01&end_date=2026-03-02T00:00:00Z`, 'start_date'));
  it('when end_date is before start_date, then 400 names end_date', () =>
    expectValidation(
      `/${P1}/test-runs?start_date=2026-03-02T00:00:00Z&end_date=2026-03-01T00:00:00Z`,
      'end_date',
    ));
  it('when limit is 0, then 400 names limit', () => expectValidation(`/${P1}/test-runs?limit=0`, 'limit'));
  it('when limit is 101, then 400 names limit', () =>
    expectValidation(`/${P1}/test-runs?limit=101`, 'limit'));
  it('when limit is not a number, then 400 names limit', () =>
    expectValidation(`/${P1}/test-runs?limit=ten`, 'limit'));
  it('when page is 0, then 400 names page', () => expectValidation(`/${P1}/test-runs?page=0`, 'page'));
  it('when status is unknown, then 400 names status', () =>
    expectValidation(`/${P1}/test-runs?status=green`, 'status'));
  it('when a parameter is repeated, then 400 names it', () =>
    expectValidation(`/${P1}/test-runs?page=1&page=2`, 'page'));
});

describe('GET /{projectId}/test-runs/{runId}', () => {
  it('when a run is read without include, then the record comes without sections', async () => {
    const response = await get(`/${P1}/test-runs/${newer}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id: newer, stats: { total: 4 } });
    for (const section of ['errors', 'coverage', 'specs', 'artifacts'])
      expect(response.body.data).not.toHaveProperty(section);
  });

  it('when the run belongs to another project, then 404 NOT_FOUND', async () => {
    const response = await get(`/${P1}/test-runs/${foreign}`);
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
  });

  it('when the run does not exist, then 404 NOT_FOUND', async () => {
    expect((await get(`/${P1}/test-runs/nope`)).status).toBe(404);
  });

  it('when include=errors, then errors are grouped by message with their stacks and the tests they hit', async () => {
    const { errors } = (await get(`/${P1}/test-runs/${newer}?include=errors`)).body.data;
    expect(errors).toEqual({
      total: 3,
      groups: [
        {
          message: 'Error: breaks broke',
          count: 2,
          stacks: [`Error: breaks broke\n    at ${FILE}:12:3`],
          tests: [
            {
              testCaseId: expect.any(String),
              title: 'breaks',
              file: FILE,
              project: 'chromium',
              attempts: [0, 1],
            },
          ],
        },
        {
          message: 'Error: retries broke',
          count: 1,
          stacks: [`Error: retries broke\n    at ${FILE}:12:3`],
          tests: [
            { testCaseId: retriesId, title: 'retries', file: FILE, project: 'chromium', attempts: [0] },
          ],
        },
      ],
    });
  });

  it('when a runner skipped attempt numbers, then include=errors numbers attempts as the debug bundle does', async () => {
    const { errors } = (await get(`/project-3/test-runs/${gappy}?include=errors`)).body.data;
    expect(errors.groups[0].tests[0].attempts).toEqual([0, 1]);
  });

  it('when include=coverage, then the latest report comes, and null for a run without one', async () => {
    expect((await get(`/${P1}/test-runs/${newer}?include=coverage`)).body.data.coverage).toMatchObject({
      lines: { total: 10, covered: 8 },
    });
    expect((await get(`/${P1}/test-runs/${older}?include=coverage`)).body.data.coverage).toBeNull();
  });

  it('when include=specs, then spec files come with their tests and outcomes', async () => {
    const { specs } = (await get(`/${P1}/test-runs/${older}?include=specs`)).body.data;
    expect(specs).toEqual([
      expect.objectContaining({
        file: FILE,
        total: 2,
        passed: 1,
        failed: 1,
        tests: [
          expect.objectContaining({
            title: 'breaks',
            outcome: 'failed',
            errorMessage: 'Error: breaks broke',
          }),
          expect.objectContaining({ titlePath: ['Cart', 'retries'], outcome: 'passed', attempts: 1 }),
        ],
      }),
      expect.objectContaining({ file: OTHER_FILE, total: 1, passed: 1 }),
    ]);
  });

  it('when include=artifacts comes without urls, then artifacts is null', async () => {
    expect((await get(`/${P1}/test-runs/${newer}?include=artifacts`)).body.data.artifacts).toBeNull();
  });

  it('when urls name artifacts by id, name and URL, then each gets a signed URL and an unknown one null', async () => {
    const urls = ['art-1', 'screenshot.png', 'https://verdict.example.com/x/artifacts/art-1', 'missing'];
    const response = await get(
      `/${P1}/test-runs/${newer}?include=artifacts&urls=${urls.map(encodeURIComponent).join(',')}`,
    );
    const signed = (id: string) => expect.objectContaining({ id, url: `signed:${P1}/${newer}/${id}` });
    expect(response.body.data.artifacts).toEqual({
      'art-1': signed('art-1'),
      'screenshot.png': signed('art-2'),
      'https://verdict.example.com/x/artifacts/art-1': signed('art-1'),
      missing: null,
    });
  });

  it('when include=all, then every section comes', async () => {
    const { data } = (await get(`/${P1}/test-runs/${newer}?include=all`)).body;
    expect(Object.keys(data)).toEqual(
      expect.arrayContaining(['errors', 'coverage', 'specs', 'artifacts', 'failures', 'gate']),
    );
  });

  it('when include has an unknown value, then 400 names include', () =>
    expectValidation(`/${P1}/test-runs/${newer}?include=errors,logs`, 'include'));
  it('when include has an empty entry, then 400 names include', () =>
    expectValidation(`/${P1}/test-runs/${newer}?include=errors,,specs`, 'include'));
  it('when urls lists 101 entries, then 400 names urls', () =>
    expectValidation(
      `/${P1}/test-runs/${newer}?include=artifacts&urls=${Array.from({ length: 101 }, (_, i) => `a${i}`).join(',')}`,
      'urls',
    ));
});

describe('GET /{projectId}/test-cases/{caseId}', () => {
  it('when a test case is read, then its fields and stats come without history', async () => {
    const response = await get(`/${P1}/test-cases/${retriesId}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      id: retriesId,
      file: FILE,
      titlePath: ['Cart', 'retries'],
      title: 'retries',
      platforms: ['chromium'],
      tags: [],
      firstSeenAt: '2026-03-01T10:00:00.000Z',
      lastSeenAt: '2026-03-02T10:00:01.000Z',
      stats: { total: 2, passed: 1, failed: 0, flaky: 1, skipped: 0 },
    });
  });

  it('when include=history, then executions come newest first with their run and pagination', async () => {
    const { history } = (await get(`/${P1}/test-cases/${retriesId}?include=history`)).body.data;
    expect(history.items).toEqual([
      expect.objectContaining({ runId: newer, counter: 2, branch: 'main', outcome: 'flaky', attempts: 2 }),
      expect.objectContaining({
        runId: older,
        counter: 1,
        environment: 'staging',
        outcome: 'passed',
        durationMs: 100,
      }),
    ]);
    expect(history.pagination).toEqual({ page: 1, limit: 20, total: 2, hasNext: false, hasPrev: false });
  });

  it('when a failed execution is in the history, then it carries its error group; a passing one none', async () => {
    const breaksId = testCaseIdOf({ file: FILE, titlePath: ['Cart', 'breaks'] });
    const { history } = (await get(`/${P1}/test-cases/${breaksId}?include=history`)).body.data;
    const signature = errorSignature({
      message: 'Error: breaks broke',
      stack: `Error: breaks broke\n    at ${FILE}:12:3`,
      testFile: FILE,
    });
    expect(history.items.map((item: { errorSignature: unknown }) => item.errorSignature)).toEqual([
      { id: signature.id, text: signature.text },
      { id: signature.id, text: signature.text },
    ]);
    const passing = (await get(`/${P1}/test-cases/${retriesId}?include=history`)).body.data.history;
    expect(passing.items[1].errorSignature).toBeNull();
  });

  it('when historyPage=2 and historyLimit=1, then the older execution comes', async () => {
    const { history } = (await get(`/${P1}/test-cases/${retriesId}?include=all&historyPage=2&historyLimit=1`))
      .body.data;
    expect(history.items.map((item: { runId: string }) => item.runId)).toEqual([older]);
    expect(history.pagination).toEqual({ page: 2, limit: 1, total: 2, hasNext: false, hasPrev: true });
  });

  it('when historyStatus=flaky, then only flaky executions come', async () => {
    const { history } = (await get(`/${P1}/test-cases/${retriesId}?include=history&historyStatus=flaky`)).body
      .data;
    expect(history.items.map((item: { outcome: string }) => item.outcome)).toEqual(['flaky']);
    expect(history.pagination.total).toBe(1);
  });

  it('when history parameters come without include=history, then they are ignored, even invalid', async () => {
    const response = await get(`/${P1}/test-cases/${retriesId}?historyLimit=500&historyStatus=green`);
    expect(response.status).toBe(200);
    expect(response.body.data).not.toHaveProperty('history');
  });

  it('when the test case belongs to another project only, then 404 NOT_FOUND', async () => {
    const foreignOnly = testCaseIdOf({ file: FILE, titlePath: ['Cart', 'elsewhere only'] });
    expect((await get(`/${P2}/test-cases/${retriesId}`)).status).toBe(404);
    expect((await get(`/${P1}/test-cases/${foreignOnly}`)).body.error.code).toBe('NOT_FOUND');
  });

  it('when historyLimit is 101, then 400 names historyLimit', () =>
    expectValidation(`/${P1}/test-cases/${retriesId}?include=history&historyLimit=101`, 'historyLimit'));
  it('when historyLimit is 0, then 400 names historyLimit', () =>
    expectValidation(`/${P1}/test-cases/${retriesId}?include=history&historyLimit=0`, 'historyLimit'));
  it('when historyPage is 0, then 400 names historyPage', () =>
    expectValidation(`/${P1}/test-cases/${retriesId}?include=history&historyPage=0`, 'historyPage'));
  it('when historyStatus is unknown, then 400 names historyStatus', () =>
    expectValidation(`/${P1}/test-cases/${retriesId}?include=history&historyStatus=green`, 'historyStatus'));
  it('when include is unknown, then 400 names include', () =>
    expectValidation(`/${P1}/test-cases/${retriesId}?include=errors`, 'include'));
});

describe('GET /{projectId}/test-cases/{caseId}/history', () => {
  it('when offset=1 and limit=1, then the second execution comes with page 2', async () => {
    const response = await get(`/${P1}/test-cases/${retriesId}/history?offset=1&limit=1`);
    expect(response.body.data.map((item: { runId: string }) => item.runId)).toEqual([older]);
    expect(response.body.pagination).toEqual({ page: 2, limit: 1, total: 2, hasNext: false, hasPrev: true });
  });

  it('when the offset is not a multiple of the limit, then the page agrees with hasPrev', async () => {
    const response = await get(`/${P1}/test-cases/${retriesId}/history?offset=1&limit=2`);
    expect(response.body.data.map((item: { runId: string }) => item.runId)).toEqual([older]);
    expect(response.body.pagination).toEqual({ page: 2, limit: 2, total: 2, hasNext: false, hasPrev: true });
  });

  it('when no offset is given, then the first 20 come from offset 0', async () => {
    const response = await get(`/${P1}/test-cases/${paysId}/history`);
    expect(response.body.data).toHaveLength(1);
    expect(response.body.pagination).toEqual({
      page: 1,
      limit: 20,
      total: 1,
      hasNext: false,
      hasPrev: false,
    });
  });

  it('when the test case is unknown, then 404 NOT_FOUND', async () => {
    expect((await get(`/${P1}/test-cases/unknown/history`)).status).toBe(404);
  });

  it('when offset is negative, then 400 names offset', () =>
    expectValidation(`/${P1}/test-cases/${retriesId}/history?offset=-1`, 'offset'));
  it('when limit is 101, then 400 names limit', () =>
    expectValidation(`/${P1}/test-cases/${retriesId}/history?limit=101`, 'limit'));
});

describe('GET /{projectId}/specs', () => {
  it('when specs are listed, then each file comes with its test count and rates over every execution', async () => {
    const response = await get(`/${P1}/specs`);
    expect(response.body.data).toEqual([
      {
        file: FILE,
        testCount: 4,
        total: 6,
        passed: 2,
        failed: 2,
        flaky: 1,
        skipped: 1,
        passRate: 33.33,
        failRate: 33.33,
        flakyRate: 16.67,
      },
      expect.objectContaining({ file: OTHER_FILE, testCount: 1, total: 1, passRate: 100 }),
    ]);
    expect(response.body.pagination).toEqual({
      page: 1,
      limit: 20,
      total: 2,
      hasNext: false,
      hasPrev: false,
    });
  });

  it('when limit=1, then one file comes and hasNext is true', async () => {
    const response = await get(`/${P1}/specs?limit=1`);
    expect(response.body.data.map((spec: { file: string }) => spec.file)).toEqual([FILE]);
    expect(response.body.pagination.hasNext).toBe(true);
  });

  it('when limit is 101, then 400 names limit', () => expectValidation(`/${P1}/specs?limit=101`, 'limit'));
  it('when page is 0, then 400 names page', () => expectValidation(`/${P1}/specs?page=0`, 'page'));
});

describe('OpenAPI document', () => {
  it('when the document is built from the read routes, then each shows its query parameters and response schema', () => {
    const routes = createReadRoutes({
      db,
      schemas: readModelSchemas(SCHEMA),
      clock: systemClock,
      publicUrl: 'https://verdict.example.com',
    });
    const document = buildOpenApiDocument({
      title: 'Verdict',
      version: '1.0.0',
      serverUrl: 'https://verdict.example.com',
      groups: [{ prefixes: ['/api/public/v1'], routes }],
    });
    const operation = (path: string) =>
      (document.paths[`/api/public/v1${path}`]?.get ?? {}) as {
        parameters: { name: string; in: string }[];
        responses: Record<string, { content?: Record<string, unknown> }>;
      };
    const queryNames = (path: string) =>
      operation(path)
        .parameters.filter((p) => p.in === 'query')
        .map((p) => p.name);
    expect(queryNames('/{projectId}/test-runs')).toEqual([
      'page',
      'limit',
      'start_date',
      'end_date',
      'status',
      'branch',
      'environment',
      'search',
    ]);
    expect(queryNames('/{projectId}/test-runs/{runId}')).toEqual(['include', 'urls']);
    expect(queryNames('/{projectId}/test-cases/{caseId}')).toEqual([
      'include',
      'historyPage',
      'historyLimit',
      'historyStatus',
    ]);
    expect(queryNames('/{projectId}/test-cases/{caseId}/history')).toEqual(['offset', 'limit']);
    expect(queryNames('/{projectId}/specs')).toEqual(['page', 'limit']);
    for (const route of routes) {
      expect(operation(route.path).responses['200']?.content).toHaveProperty('application/json');
    }
  });
});
