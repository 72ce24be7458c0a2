import {
  ErrorGroupResponse,
  ErrorsResponse,
  errorSignature,
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
import { testDatabases, type TestDatabase } from '@verdict/platform/testing/databases';
import express, { type Express } from 'express';
import request from 'supertest';
import { readModelSchemas } from '../readStore';
import { createIngest } from '../runs/ingest';
import { memberIdentity, readModelsUnder } from '../testing';
import { createErrorRoutes } from './routes';

// The errors explorer over read models projected from real ingest events, on both adapters. Project-1:
// run A (main, staging, 1 March): pays fails "total" (X), breaks fails to connect twice (Y);
// run B (feature/cart, production, 3 March): totals and pays fail "total" (X);
// run C (main, production, 5 March): breaks fails to connect on chromium and firefox (Y);
// run D (main, 15 January, outside the default range): old fails with an undefined (Z).
// Project-2 fails "total" once. "Now" is 10 March, noon: the default range is 9 February – 10 March.

const P1 = 'project-1';
const P2 = 'project-2';
const FILE = 'tests/cart.spec.ts';
const SECRET = newSecret(32);
const NOW = '2026-03-10T12:00:00.000Z';

const signatureOf = (message: string) =>
  errorSignature({ message, location: { file: FILE }, testFile: FILE });
const X = signatureOf('Expected total 42, got 41');
const Y = signatureOf('Error: connect ECONNREFUSED 127.0.0.1:5432');
const Z = signatureOf('TypeError: x is undefined');
/** Groups tied on the sort key come in signature id order, in the sort's direction. */
const tiedDescending = [X.id, Y.id].sort().reverse();
const breaksId = testCaseIdOf({ file: FILE, titlePath: ['Cart', 'breaks'] });

function failure(title: string, message: string, startedAt: string, extra: Partial<ResultItem> = {}) {
  return {
    file: FILE,
    titlePath: ['Cart', title],
    project: 'chromium',
    attempt: 0,
    status: 'failed',
    durationMs: 100,
    startedAt,
    error: { message, location: { file: FILE, line: 12, column: 3 } },
    ...extra,
  } satisfies ResultItem;
}

let db: SqlDatabase;
let schemas: string[] = [];
let app: Express;
const runs: Record<'A' | 'B' | 'C' | 'D', string> = { A: '', B: '', C: '', D: '' };

async function setUp(adapter: TestDatabase): Promise<void> {
  db = await adapter.open();
  const storeSchema = uniqueName('errors_store');
  const readSchema = uniqueName('errors_read');
  schemas = [storeSchema, readSchema];
  const store = createSqlEventStore({ db, schema: storeSchema });
  await store.init();
  const ingest = createIngest({ store, clock: new ManualClock(NOW) });
  const start = async (
    branch: string,
    environment: string,
    startedAt: string,
    results: ResultItem[],
    projectId = P1,
  ) => {
    const { run } = await ingest.startRun(projectId, {
      branch,
      environment,
      commit: { sha: `sha-${startedAt.slice(5, 10)}`, author: 'ada' },
      startedAt,
    });
    await ingest.addResults(projectId, run.id, results);
    await ingest.finish(projectId, run.id, {});
    return run.id;
  };
  runs.A = await start('main', 'staging', '2026-03-01T10:00:00.000Z', [
    failure('pays', 'Expected total 42, got 41', '2026-03-01T10:01:00.000Z'),
    failure('breaks', 'Error: connect ECONNREFUSED 127.0.0.1:5432', '2026-03-01T10:02:00.000Z'),
    failure('breaks', 'Error: connect ECONNREFUSED 127.0.0.1:5433', '2026-03-01T10:03:00.000Z', {
      attempt: 1,
    }),
    { ...failure('passes', '', '2026-03-01T10:04:00.000Z'), status: 'passed', error: undefined },
  ]);
  runs.B = await start('feature/cart', 'production', '2026-03-03T10:00:00.000Z', [
    failure('totals', 'Expected total 7, got 6', '2026-03-03T10:01:00.000Z'),
    failure('pays', 'Expected total 57, got 56', '2026-03-03T10:02:00.000Z'),
  ]);
  runs.C = await start('main', 'production', '2026-03-05T10:00:00.000Z', [
    failure('breaks', 'Error: connect ECONNREFUSED 127.0.0.1:6543', '2026-03-05T10:01:00.000Z'),
    failure('breaks', 'Error: connect ECONNREFUSED 127.0.0.1:6543', '2026-03-05T10:02:00.000Z', {
      project: 'firefox',
    }),
  ]);
  runs.D = await start('main', 'staging', '2026-01-15T10:00:00.000Z', [
    failure('old', 'TypeError: x is undefined', '2026-01-15T10:01:00.000Z'),
  ]);
  await start(
    'main',
    'staging',
    '2026-03-02T10:00:00.000Z',
    [failure('pays', 'Expected total 1, got 2', '2026-03-02T10:01:00.000Z')],
    P2,
  );

  const { projector } = await readModelsUnder(db, readSchema);
  const { events } = await store.readAll({ after: START, limit: 10_000 });
  await projector.applyEvents(events);

  const http = createHttpApp({ logger: silentLogger(), service: 'test-results' });
  const router = express.Router();
  router.use(requireInternalIdentity({ secret: SECRET }));
  registerRoutes(
    router,
    createErrorRoutes({ db, schemas: readModelSchemas(readSchema), clock: new ManualClock(NOW) }),
  );
  http.app.use(router);
  http.finish(http.app);
  app = http.app;
}

const get = (projectId: string, path: string) =>
  request(app).get(`/${projectId}${path}`).set(memberIdentity(SECRET, projectId));

async function list(query: string, projectId = P1) {
  const response = await get(projectId, `/errors?${query}`);
  expect(response.status).toBe(200);
  return ErrorsResponse.parse(response.body);
}

const idsOf = async (query: string) => (await list(query)).data.map((group) => group.signatureId);

describe.each(testDatabases({ postgresPoolSize: 4 }))('errors explorer on $name', (adapter) => {
  beforeAll(() => setUp(adapter), 60_000);
  afterAll(async () => {
    for (const schema of schemas) await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  it('when the errors are listed with no parameters, then the last 30 days give each group its counts, branches and seen times, most frequent first', async () => {
    const body = await list('');
    expect(body.pagination).toEqual({ page: 1, limit: 20, total: 2, hasNext: false, hasPrev: false });
    const [y, x] = body.data;
    expect(y).toMatchObject({
      signatureId: Y.id,
      signature: Y.text,
      message: 'Error: connect ECONNREFUSED <ip>:<port>',
      frame: { file: FILE, function: null },
      sampleMessage: 'Error: connect ECONNREFUSED 127.0.0.1:6543',
      occurrences: 4,
      testsAffected: 1,
      runs: 2,
      branches: ['main'],
      firstSeenAt: '2026-03-01T10:02:00.000Z',
      lastSeenAt: '2026-03-05T10:02:00.000Z',
    });
    expect(x).toMatchObject({
      signatureId: X.id,
      sampleMessage: 'Expected total 57, got 56',
      occurrences: 3,
      testsAffected: 2,
      runs: 2,
      branches: ['feature/cart', 'main'],
      firstSeenAt: '2026-03-01T10:01:00.000Z',
      lastSeenAt: '2026-03-03T10:02:00.000Z',
    });
    expect(x?.daily).toHaveLength(30);
    expect(x?.daily[0]).toEqual({ day: '2026-02-09', count: 0 });
    expect(x?.daily.at(-1)).toEqual({ day: '2026-03-10', count: 0 });
    expect(x?.daily.filter((day) => day.count > 0)).toEqual([
      { day: '2026-03-01', count: 1 },
      { day: '2026-03-03', count: 2 },
    ]);
  });

  it('when sorted by each key and order, then the groups follow it', async () => {
    expect(await idsOf('sortBy=occurrences&sortOrder=asc')).toEqual([X.id, Y.id]);
    expect(await idsOf('sortBy=tests')).toEqual([X.id, Y.id]);
    expect(await idsOf('sortBy=tests&sortOrder=asc')).toEqual([Y.id, X.id]);
    expect(await idsOf('sortBy=firstSeen&sortOrder=asc')).toEqual([X.id, Y.id]);
    expect(await idsOf('sortBy=firstSeen')).toEqual([Y.id, X.id]);
    expect(await idsOf('sortBy=lastSeen')).toEqual([Y.id, X.id]);
    expect(await idsOf('sortBy=lastSeen&sortOrder=asc')).toEqual([X.id, Y.id]);
  });

  it('when a branch or an environment is asked for, then only its attempts count', async () => {
    const onBranch = await list('branch=feature/cart');
    expect(onBranch.data.map((g) => [g.signatureId, g.occurrences, g.testsAffected, g.runs])).toEqual([
      [X.id, 2, 2, 1],
    ]);
    const production = await list('environment=production');
    const branches = { [X.id]: ['feature/cart'], [Y.id]: ['main'] };
    expect(production.data.map((g) => [g.signatureId, g.occurrences, g.branches])).toEqual(
      tiedDescending.map((id) => [id, 2, branches[id]]),
    );
    expect(
      (await list('branch=main&environment=staging')).data.map((g) => [g.signatureId, g.occurrences]),
    ).toEqual([
      [Y.id, 2],
      [X.id, 1],
    ]);
  });

  it('when searched, then the signature, the sample message and the frame are matched case-insensitively', async () => {
    expect(await idsOf('search=econnrefused')).toEqual([Y.id]);
    expect(await idsOf('search=got%2056')).toEqual([X.id]);
    expect(await idsOf('search=CART.SPEC')).toEqual([Y.id, X.id]);
    expect(await idsOf('search=100%25')).toEqual([]);
  });

  it('when a date range is given, then only its attempts count and every one of its days is listed', async () => {
    const january = await list('start_date=2026-01-01T00:00:00Z&end_date=2026-01-31T23:59:59Z');
    expect(january.data.map((g) => [g.signatureId, g.occurrences])).toEqual([[Z.id, 1]]);
    expect(january.data[0]?.daily).toHaveLength(31);
    expect(january.data[0]?.daily.find((day) => day.count > 0)).toEqual({ day: '2026-01-15', count: 1 });
    const firstOfMarch = await list('start_date=2026-03-01T00:00:00Z&end_date=2026-03-01T10:02:30Z');
    expect(firstOfMarch.data.map((g) => [g.signatureId, g.occurrences])).toEqual(
      tiedDescending.map((id) => [id, 1]),
    );
  });

  it('when paged, then the shared pagination says where the page is', async () => {
    const second = await list('limit=1&page=2');
    expect(second.data.map((g) => g.signatureId)).toEqual([X.id]);
    expect(second.pagination).toEqual({ page: 2, limit: 1, total: 2, hasNext: false, hasPrev: true });
    const beyond = await list('limit=1&page=5');
    expect(beyond.data).toEqual([]);
    expect(beyond.pagination.total).toBe(2);
  });

  it('when another project lists its errors, then it sees only its own', async () => {
    const body = await list('', P2);
    expect(body.data.map((g) => [g.signatureId, g.occurrences, g.testsAffected])).toEqual([[X.id, 1, 1]]);
  });

  it('when a group is asked for, then its tests and runs come newest first', async () => {
    const response = await get(P1, `/errors/${Y.id}`);
    expect(response.status).toBe(200);
    const { data } = ErrorGroupResponse.parse(response.body);
    expect(data).toMatchObject({ signatureId: Y.id, occurrences: 4, testsAffected: 1, runs: 2 });
    expect(data.tests).toEqual([
      {
        testCaseId: breaksId,
        title: 'breaks',
        file: FILE,
        project: 'firefox',
        occurrences: 1,
        lastSeenAt: '2026-03-05T10:02:00.000Z',
      },
      expect.objectContaining({ testCaseId: breaksId, project: 'chromium', occurrences: 3 }),
    ]);
    expect(data.hits).toEqual([
      {
        runId: runs.C,
        counter: 3,
        branch: 'main',
        environment: 'production',
        commit: { sha: 'sha-03-05', author: 'ada' },
        startedAt: '2026-03-05T10:00:00.000Z',
        occurrences: 2,
      },
      expect.objectContaining({ runId: runs.A, counter: 1, environment: 'staging', occurrences: 2 }),
    ]);
  });

  it('when a group is asked for with a filter, then only its attempts there count', async () => {
    const response = await get(P1, `/errors/${X.id}?branch=main`);
    const { data } = ErrorGroupResponse.parse(response.body);
    expect(data).toMatchObject({ occurrences: 1, testsAffected: 1, branches: ['main'] });
    expect(data.hits.map((hit) => hit.runId)).toEqual([runs.A]);
  });

  it('when a group has no attempt in the range, then it answers with zero counts and its latest attempt as seen time', async () => {
    const response = await get(P1, `/errors/${Z.id}`);
    expect(response.status).toBe(200);
    const { data } = ErrorGroupResponse.parse(response.body);
    expect(data).toMatchObject({
      occurrences: 0,
      tests: [],
      hits: [],
      lastSeenAt: '2026-01-15T10:01:00.000Z',
    });
    expect(data.daily.every((day) => day.count === 0)).toBe(true);
  });

  it("when an unknown signature or another project's is asked for, then 404 NOT_FOUND", async () => {
    for (const [projectId, id] of [
      [P1, 'abcdefabcdef'],
      [P2, Z.id],
    ] as const) {
      const response = await get(projectId, `/errors/${id}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: expect.any(String) },
      });
    }
  });

  it.each([
    ['start_date=yesterday&end_date=2026-03-01T00:00:00Z', 'start_date'],
    ['start_date=2026-03-01T00:00:00Z', 'end_date'],
    ['start_date=2026-03-05T00:00:00Z&end_date=2026-03-01T00:00:00Z', 'end_date'],
    ['sortBy=name', 'sortBy'],
    ['sortOrder=up', 'sortOrder'],
    ['limit=500', 'limit'],
  ])('when the errors are listed with %s, then 400 VALIDATION_ERROR names %s', async (query, parameter) => {
    const response = await get(P1, `/errors?${query}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: expect.stringContaining(parameter) },
    });
  });

  it('when a group is asked for with an id that is not 12 hexadecimal characters, then 400 names signatureId', async () => {
    const response = await get(P1, '/errors/not-a-signature');
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('signatureId'),
    });
  });
});
