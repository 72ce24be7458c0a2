import {
  SuspectCommitsResponse,
  testCaseIdOf,
  type ResultItem,
  type SuspectCommits,
} from '@verdict/contracts';
import {
  ManualClock,
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
import { inlineReadModels, testResultsReadModels } from '../module';
import { createIngest } from '../runs/ingest';
import { memberIdentity, readModelsUnder } from '../testing';
import { createSuspectsRoutes } from './routes';
import { renderMarkdown } from '../debugBundle/markdown';
import { testBundle } from '../debugBundle/test/query';
import { MAX_BETWEEN } from './query';

// Suspect commits over read models written by real ingest, on both adapters. Project-1, branch main:
// M1 (1 March, a1 by ada): regresses passes, chronic fails, steady passes, shaky is flaky.
// M2 (2 March, a2 by cy): regresses is skipped, chronic fails.
// M3 (3 March, a3 by dan): regresses does not run; chronic fails.
// M4 (4 March, a4 by bob): regresses fails on chromium (passes on firefox), chronic fails, steady passes,
//   shaky fails, newborn runs for the first time and fails.
// F1 (5 March, feature/y): regresses passes. Branch long: lasting passes, is skipped in 55 runs, then fails.

const P1 = 'project-1';
const P2 = 'project-2';
const FILE = 'tests/checkout.spec.ts';
const SECRET = newSecret(32);
const NOW = '2026-04-10T12:00:00.000Z';

type Kind = 'passed' | 'failed' | 'flaky' | 'skipped';
type Test = [title: string, kind: Kind, project?: string];

function results([title, kind, project = 'chromium']: Test, startedAt: string): ResultItem[] {
  const attempt = (index: number, status: 'passed' | 'failed' | 'skipped'): ResultItem => ({
    file: FILE,
    titlePath: ['Checkout', title],
    project,
    attempt: index,
    status,
    durationMs: 100,
    startedAt,
    ...(status === 'failed'
      ? { error: { message: `${title} broke`, location: { file: FILE, line: 3, column: 1 } } }
      : {}),
  });
  if (kind === 'flaky') return [attempt(0, 'failed'), attempt(1, 'passed')];
  return [attempt(0, kind)];
}

const idOf = (title: string) => testCaseIdOf({ file: FILE, titlePath: ['Checkout', title] });

let db: SqlDatabase;
let schemas: string[] = [];
let app: Express;
let bundleOf: (caseId: string) => ReturnType<typeof testBundle>;
const runs: Record<string, string> = {};
const longSkips: string[] = [];

async function setUp(adapter: TestDatabase): Promise<void> {
  db = await adapter.open();
  const storeSchema = uniqueName('sus_store');
  const readSchema = uniqueName('sus_read');
  schemas = [storeSchema, readSchema];
  const { schemas: readModels } = await readModelsUnder(db, readSchema);
  const store = createSqlEventStore({
    db,
    schema: storeSchema,
    inline: inlineReadModels(testResultsReadModels(readModels, readSchema), silentLogger()),
  });
  await store.init();
  const ingest = createIngest({ store, clock: new ManualClock(NOW) });
  const run = async (
    branch: string,
    startedAt: string,
    commit: { sha: string; author: string; message?: string },
    tests: Test[],
    projectId = P1,
  ) => {
    const { run: started } = await ingest.startRun(projectId, { branch, startedAt, commit });
    await ingest.addResults(
      projectId,
      started.id,
      tests.flatMap((test) => results(test, startedAt)),
    );
    await ingest.finish(projectId, started.id, {});
    return started.id;
  };
  runs.M1 = await run('main', '2026-03-01T10:00:00.000Z', { sha: 'a1', author: 'ada', message: 'Pay' }, [
    ['regresses', 'passed'],
    ['chronic', 'failed'],
    ['steady', 'passed'],
    ['shaky', 'flaky'],
  ]);
  runs.M2 = await run('main', '2026-03-02T10:00:00.000Z', { sha: 'a2', author: 'cy' }, [
    ['regresses', 'skipped'],
    ['chronic', 'failed'],
  ]);
  runs.M3 = await run('main', '2026-03-03T10:00:00.000Z', { sha: 'a3', author: 'dan' }, [
    ['chronic', 'failed'],
  ]);
  runs.M4 = await run('main', '2026-03-04T10:00:00.000Z', { sha: 'a4', author: 'bob' }, [
    ['regresses', 'failed'],
    ['regresses', 'passed', 'firefox'],
    ['chronic', 'failed'],
    ['steady', 'passed'],
    ['shaky', 'failed'],
    ['newborn', 'failed'],
  ]);
  runs.F1 = await run('feature/y', '2026-03-05T10:00:00.000Z', { sha: 'f1', author: 'eve' }, [
    ['regresses', 'passed'],
  ]);
  runs.Z1 = await run('feature/z', '2026-03-05T11:00:00.000Z', { sha: 'z1', author: 'fay' }, [
    ['relapses', 'passed'],
  ]);
  runs.Z2 = await run('feature/z', '2026-03-05T12:00:00.000Z', { sha: 'z2', author: 'gil' }, [
    ['relapses', 'failed'],
  ]);
  runs.Z3 = await run('feature/z', '2026-03-05T13:00:00.000Z', { sha: 'z3', author: 'fay' }, [
    ['relapses', 'failed'],
  ]);
  runs.L0 = await run('long', '2026-03-06T00:00:00.000Z', { sha: 'l0', author: 'ada' }, [
    ['lasting', 'passed'],
  ]);
  for (let i = 1; i <= 55; i += 1) {
    const startedAt = new Date(Date.parse('2026-03-06T00:00:00.000Z') + i * 60_000).toISOString();
    longSkips.push(await run('long', startedAt, { sha: `l${i}`, author: 'ada' }, [['lasting', 'skipped']]));
  }
  runs.L56 = await run('long', '2026-03-07T00:00:00.000Z', { sha: 'l56', author: 'bob' }, [
    ['lasting', 'failed'],
  ]);
  await run('main', '2026-03-04T10:00:00.000Z', { sha: 'p2', author: 'zed' }, [['other', 'failed']], P2);

  const http = createHttpApp({ logger: silentLogger(), service: 'test-results' });
  const router = express.Router();
  router.use(requireInternalIdentity({ secret: SECRET }));
  registerRoutes(router, createSuspectsRoutes({ db, schemas: readModels }));
  const sources = { db, schemas: readModels, publicUrl: 'http://localhost', clock: new ManualClock(NOW) };
  bundleOf = (caseId) => testBundle(sources, P1, { caseId });
  http.app.use(router);
  http.finish(http.app);
  app = http.app;
}

const get = (caseId: string, query = '', projectId = P1) =>
  request(app)
    .get(`/${projectId}/test-cases/${caseId}/suspect-commits${query}`)
    .set(memberIdentity(SECRET, projectId));

async function suspects(title: string, query = ''): Promise<SuspectCommits> {
  const response = await get(idOf(title), query);
  expect(response.status).toBe(200);
  return SuspectCommitsResponse.parse(response.body).data;
}

const noSuspects = (branch: string | null) => ({
  branch,
  newFailure: false,
  failingRuns: 0,
  lastPass: null,
  firstFail: null,
  between: [],
});

describe.each(testDatabases({ postgresPoolSize: 4 }))('suspect commits on $name', (adapter) => {
  beforeAll(() => setUp(adapter), 120_000);
  afterAll(async () => {
    for (const schema of schemas) await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  it('when a test that passed at a1 fails at a4, then a1 is the last pass, a4 the first failure, and the run that skipped it is between', async () => {
    expect(await suspects('regresses', '?branch=main')).toEqual({
      branch: 'main',
      newFailure: true,
      failingRuns: 1,
      lastPass: {
        runId: runs.M1,
        counter: expect.any(Number),
        outcome: 'passed',
        commit: { sha: 'a1', author: 'ada', message: 'Pay' },
        startedAt: '2026-03-01T10:00:00.000Z',
      },
      firstFail: {
        runId: runs.M4,
        counter: expect.any(Number),
        outcome: 'failed',
        commit: { sha: 'a4', author: 'bob' },
        startedAt: '2026-03-04T10:00:00.000Z',
      },
      between: [
        expect.objectContaining({ runId: runs.M2, outcome: 'skipped', commit: { sha: 'a2', author: 'cy' } }),
      ],
    });
  });

  it('when no branch is sent, then the branch of its latest execution is used: there it passed, so nothing is suspect', async () => {
    expect(await suspects('regresses')).toEqual(noSuspects('feature/y'));
  });

  it('when the test has failed in every run on the branch, then the failure is not new, its first failure is where to look, and it never passed there', async () => {
    expect(await suspects('chronic')).toEqual({
      branch: 'main',
      newFailure: false,
      failingRuns: 4,
      lastPass: null,
      firstFail: expect.objectContaining({
        runId: runs.M1,
        commit: { sha: 'a1', author: 'ada', message: 'Pay' },
      }),
      between: [],
    });
  });

  it('when the test failed in the last two runs after a pass, then the failure is not new, and the first of the two is where it started', async () => {
    expect(await suspects('relapses')).toEqual({
      branch: 'feature/z',
      newFailure: false,
      failingRuns: 2,
      lastPass: expect.objectContaining({ runId: runs.Z1, outcome: 'passed' }),
      firstFail: expect.objectContaining({
        runId: runs.Z2,
        outcome: 'failed',
        commit: { sha: 'z2', author: 'gil' },
      }),
      between: [],
    });
  });

  it('when the latest execution passed, then there is no new failure', async () => {
    expect(await suspects('steady')).toEqual(noSuspects('main'));
  });

  it('when the run before the failure was flaky, then it is the last pass', async () => {
    const answer = await suspects('shaky');
    expect(answer.newFailure).toBe(true);
    expect(answer.lastPass).toMatchObject({ runId: runs.M1, outcome: 'flaky' });
    expect(answer.firstFail).toMatchObject({ runId: runs.M4, outcome: 'failed' });
  });

  it('when the test failed the first time it ran on the branch, then the failure is new with no last pass', async () => {
    expect(await suspects('newborn')).toEqual({
      branch: 'main',
      newFailure: true,
      failingRuns: 1,
      lastPass: null,
      firstFail: expect.objectContaining({ runId: runs.M4, commit: { sha: 'a4', author: 'bob' } }),
      between: [],
    });
  });

  it(`when more than ${MAX_BETWEEN} runs lie between, then the ${MAX_BETWEEN} nearest the failure are listed, oldest first`, async () => {
    const answer = await suspects('lasting');
    expect(answer.lastPass?.runId).toBe(runs.L0);
    expect(answer.firstFail?.runId).toBe(runs.L56);
    expect(answer.between.map((run) => run.runId)).toEqual(longSkips.slice(-MAX_BETWEEN));
  });

  it('when the branch asked for never ran the test, then there is no new failure on it', async () => {
    expect(await suspects('regresses', '?branch=nowhere')).toEqual(noSuspects('nowhere'));
  });

  it('when the test case is unknown or another project’s, then 404 TEST_CASE_NOT_FOUND', async () => {
    for (const caseId of ['no-such-case', idOf('other')]) {
      const response = await get(caseId);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        success: false,
        error: { code: 'TEST_CASE_NOT_FOUND', message: expect.any(String) },
      });
    }
  });

  it('when an unknown parameter is sent, then 400 VALIDATION_ERROR', async () => {
    const response = await get(idOf('regresses'), '?since=a1');
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it("when the test's debug bundle is asked for, then it carries the suspects on its latest run's branch, in JSON and Markdown", async () => {
    const bundle = await bundleOf(idOf('shaky'));
    expect(bundle.environment.branch).toBe('main');
    expect(bundle.suspects).toEqual(await suspects('shaky', '?branch=main'));
    const markdown = renderMarkdown(bundle);
    expect(markdown).toContain('Suspect commits');
    expect(markdown).toMatch(
      /Last passed: run #\d+ \(`[^`]+`, 2026-03-01T10:00:00.000Z\), commit `a1` by ada: Pay/,
    );
    expect(markdown).toMatch(/First failed: run #\d+ .*commit `a4` by bob/);
    const chronic = await bundleOf(idOf('chronic'));
    expect(chronic.suspects).toEqual(await suspects('chronic', '?branch=main'));
    expect(renderMarkdown(chronic)).toContain(
      'Failing in the last 4 runs on branch `main`; it started here:',
    );
    const passing = await bundleOf(idOf('steady'));
    expect(passing.suspects).toEqual(noSuspects('main'));
    expect(renderMarkdown(passing)).toContain('_None: the latest execution on branch `main` did not fail._');
  });
});
