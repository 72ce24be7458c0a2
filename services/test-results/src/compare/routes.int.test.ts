import {
  RunComparisonResponse,
  testCaseIdOf,
  type ResultItem,
  type RunComparison,
  type StartRunRequest,
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
import { createCompareRoutes } from './routes';

// The run comparison over read models projected from real ingest events, on both adapters. Project-1:
// B0 (main, 28 Feb): every test of the base passes, in 100 ms.
// B1 (main, 1 March, the latest finished main run before R): breaks, wobbles, retired and steady pass;
//   heals and stuck fail; slows passes in 1 s, creeps in 100 ms.
// RUNNING (main, 2 March): still running, so never a base. REL (release, 2 March): everything passes.
// R (feature/x, 3 March, two shards of ci-r): breaks fails, heals passes, stuck fails (shard 1); wobbles is
//   flaky, slows passes in 3 s, creeps in 900 ms, steady passes, fresh is new (shard 2).
// LATER (main, 4 March): finished after R started, so never R's base.
// R2 (feature/z, 5 March, base branch release): breaks fails. Project-2: OTHER (main, 1 March).

const P1 = 'project-1';
const P2 = 'project-2';
const FILE = 'tests/shop.spec.ts';
const SECRET = newSecret(32);
const NOW = '2026-03-10T12:00:00.000Z';

type Kind = 'passed' | 'failed' | 'flaky' | 'skipped';

function results(title: string, kind: Kind, startedAt: string, durationMs = 100): ResultItem[] {
  const attempt = (index: number, status: 'passed' | 'failed' | 'skipped'): ResultItem => ({
    file: FILE,
    titlePath: ['Shop', title],
    project: 'chromium',
    attempt: index,
    status,
    durationMs,
    startedAt,
    ...(status === 'failed'
      ? { error: { message: `${title} broke`, location: { file: FILE, line: 3, column: 1 } } }
      : {}),
  });
  if (kind === 'flaky') return [attempt(0, 'failed'), { ...attempt(1, 'passed'), durationMs: 0 }];
  return [attempt(0, kind)];
}

const idOf = (title: string) => testCaseIdOf({ file: FILE, titlePath: ['Shop', title] });

let db: SqlDatabase;
let schemas: string[] = [];
let app: Express;
const runs: Record<string, string> = {};

async function setUp(adapter: TestDatabase): Promise<void> {
  db = await adapter.open();
  const storeSchema = uniqueName('compare_store');
  const readSchema = uniqueName('compare_read');
  schemas = [storeSchema, readSchema];
  // The read models are written in each append's transaction, as the module does: a read of the whole
  // store would wait for every transaction of the shared cluster that started before it to end.
  const { schemas: readModels } = await readModelsUnder(db, readSchema);
  const store = createSqlEventStore({
    db,
    schema: storeSchema,
    inline: inlineReadModels(testResultsReadModels(readModels, readSchema), silentLogger()),
  });
  await store.init();
  const ingest = createIngest({ store, clock: new ManualClock(NOW) });
  const run = async (
    name: string,
    start: StartRunRequest & { startedAt: string },
    tests: [string, Kind, number?][],
    { projectId = P1, finish = true } = {},
  ) => {
    const { run: started } = await ingest.startRun(projectId, {
      commit: { sha: `sha-${name}`, author: 'ada' },
      ...start,
    });
    const items = tests.flatMap(([title, kind, duration]) => results(title, kind, start.startedAt, duration));
    await ingest.addResults(projectId, started.id, items);
    if (finish) await ingest.finish(projectId, started.id, {});
    runs[name] = started.id;
  };
  const everything = ['breaks', 'heals', 'stuck', 'wobbles', 'retired', 'slows', 'creeps', 'steady'];
  await run(
    'B0',
    { branch: 'main', startedAt: '2026-02-28T10:00:00.000Z' },
    everything.map((title) => [title, 'passed']),
  );
  await run('B1', { branch: 'main', startedAt: '2026-03-01T10:00:00.000Z' }, [
    ['breaks', 'passed'],
    ['heals', 'failed'],
    ['stuck', 'failed'],
    ['wobbles', 'passed'],
    ['retired', 'passed'],
    ['slows', 'passed', 1_000],
    ['creeps', 'passed', 100],
    ['steady', 'passed'],
  ]);
  await run('RUNNING', { branch: 'main', startedAt: '2026-03-02T09:00:00.000Z' }, [['breaks', 'failed']], {
    finish: false,
  });
  await run(
    'REL',
    { branch: 'release', startedAt: '2026-03-02T10:00:00.000Z' },
    everything.map((title) => [title, 'passed']),
  );
  // R: two shards of one run, each sending its half and finishing.
  const shardOf = async (current: number, tests: [string, Kind, number?][]) => {
    const startedAt = '2026-03-03T10:00:00.000Z';
    const shard = { current, total: 2 };
    const { run: started } = await ingest.startRun(P1, {
      ciRunId: 'ci-r',
      shard,
      branch: 'feature/x',
      commit: { sha: 'sha-R', author: 'bob' },
      startedAt,
    });
    const items = tests.flatMap(([title, kind, duration]) => results(title, kind, startedAt, duration));
    await ingest.addResults(P1, started.id, items);
    await ingest.finish(P1, started.id, { shard });
    runs.R = started.id;
  };
  await shardOf(1, [
    ['breaks', 'failed'],
    ['heals', 'passed'],
    ['stuck', 'failed'],
  ]);
  await shardOf(2, [
    ['wobbles', 'flaky'],
    ['slows', 'passed', 3_000],
    ['creeps', 'passed', 900],
    ['steady', 'passed'],
    ['fresh', 'passed'],
  ]);
  await run(
    'LATER',
    { branch: 'main', startedAt: '2026-03-04T10:00:00.000Z' },
    everything.map((title) => [title, 'failed']),
  );
  await run('R2', { branch: 'feature/z', baseBranch: 'release', startedAt: '2026-03-05T10:00:00.000Z' }, [
    ['breaks', 'failed'],
  ]);
  await run('OTHER', { branch: 'main', startedAt: '2026-03-01T10:00:00.000Z' }, [['breaks', 'passed']], {
    projectId: P2,
  });

  const http = createHttpApp({ logger: silentLogger(), service: 'test-results' });
  const router = express.Router();
  router.use(requireInternalIdentity({ secret: SECRET }));
  registerRoutes(router, createCompareRoutes({ db, schemas: readModels }));
  http.app.use(router);
  http.finish(http.app);
  app = http.app;
}

const get = (runId: string, query = '', projectId = P1) =>
  request(app).get(`/${projectId}/test-runs/${runId}/compare${query}`).set(memberIdentity(SECRET, projectId));

async function compare(runId: string, query = ''): Promise<RunComparison> {
  const response = await get(runId, query);
  expect(response.status).toBe(200);
  return RunComparisonResponse.parse(response.body).data;
}

const titles = (category: RunComparison['added']) => category.items.map((item) => item.title);

describe.each(testDatabases({ postgresPoolSize: 4 }))('run comparison on $name', (adapter) => {
  beforeAll(() => setUp(adapter), 60_000);
  afterAll(async () => {
    for (const schema of schemas) await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  it('when a run is compared with no parameter, then its base is the latest finished run of main that started before it', async () => {
    const comparison = await compare(runs.R!);
    expect(comparison.run).toMatchObject({ id: runs.R, branch: 'feature/x', status: 'finished' });
    expect(comparison.run.commit).toEqual({ sha: 'sha-R', author: 'bob' });
    expect(comparison.base).toMatchObject({ id: runs.B1, branch: 'main', status: 'finished' });
    expect(comparison.baseBranch).toBe('main');
    expect(comparison.noBaseReason).toBeNull();
    expect(comparison.thresholds).toEqual({ durationRatio: 1.5, durationFloorMs: 1_000 });
  });

  it('when a test failed in the run and passed in the base, then it is a new failure with its signature', async () => {
    const { newFailures } = await compare(runs.R!);
    expect(newFailures.count).toBe(1);
    expect(newFailures.items).toEqual([
      {
        testCaseId: idOf('breaks'),
        title: 'breaks',
        titlePath: ['Shop', 'breaks'],
        file: FILE,
        project: 'chromium',
        outcome: 'failed',
        baseOutcome: 'passed',
        durationMs: 100,
        baseDurationMs: 100,
        signature: { id: expect.stringMatching(/^[0-9a-f]{12}$/), text: expect.any(String) },
      },
    ]);
  });

  it('when a test failed in the base and passed in the run, then it is fixed', async () => {
    const { fixed } = await compare(runs.R!);
    expect(fixed.count).toBe(1);
    expect(fixed.items[0]).toMatchObject({ title: 'heals', outcome: 'passed', baseOutcome: 'failed' });
  });

  it('when a test failed in both, then it is still failing', async () => {
    const { stillFailing } = await compare(runs.R!);
    expect(titles(stillFailing)).toEqual(['stuck']);
  });

  it('when a test passed in the base and was flaky in the run, then it is newly flaky', async () => {
    const { newlyFlaky } = await compare(runs.R!);
    expect(newlyFlaky.items).toEqual([
      expect.objectContaining({ title: 'wobbles', outcome: 'flaky', baseOutcome: 'passed' }),
    ]);
  });

  it('when a test is only in the run or only in the base, then it is added or removed', async () => {
    const { added, removed } = await compare(runs.R!);
    expect(added.items).toEqual([
      expect.objectContaining({ title: 'fresh', outcome: 'passed', baseOutcome: null, baseDurationMs: null }),
    ]);
    expect(removed.items).toEqual([
      expect.objectContaining({ title: 'retired', outcome: null, baseOutcome: 'passed', durationMs: null }),
    ]);
  });

  it('when a passed test is slower by more than both 1.5 times and 1 s, then it is slower; 9 times but 800 ms is not', async () => {
    const { slower } = await compare(runs.R!);
    expect(slower.items).toEqual([
      expect.objectContaining({ title: 'slows', durationMs: 3_000, baseDurationMs: 1_000 }),
    ]);
    const loose = await compare(runs.R!, '?durationRatio=2&durationFloorMs=500');
    expect(titles(loose.slower)).toEqual(['creeps', 'slows']);
    expect(loose.thresholds).toEqual({ durationRatio: 2, durationFloorMs: 500 });
    expect((await compare(runs.R!, '?durationRatio=4')).slower.count).toBe(0);
  });

  it("when the run came in two shards, then each test is compared once, both shards' results counted", async () => {
    const comparison = await compare(runs.R!);
    const counts = Object.fromEntries(
      (['newFailures', 'fixed', 'stillFailing', 'newlyFlaky', 'added', 'removed', 'slower'] as const).map(
        (category) => [category, comparison[category].count],
      ),
    );
    expect(counts).toEqual({
      newFailures: 1,
      fixed: 1,
      stillFailing: 1,
      newlyFlaky: 1,
      added: 1,
      removed: 1,
      slower: 1,
    });
  });

  it('when limit is 1, then each category lists one item and counts them all', async () => {
    const comparison = await compare(runs.R!, `?base=${runs.LATER}&limit=1`);
    // Against LATER, where everything failed: every test of R that passed or was flaky is fixed.
    expect(comparison.fixed.count).toBe(5);
    expect(comparison.fixed.items).toHaveLength(1);
    expect(comparison.stillFailing.count).toBe(2);
    expect(comparison.stillFailing.items).toHaveLength(1);
  });

  it('when base names a run, then the run is compared with it', async () => {
    const comparison = await compare(runs.R!, `?base=${runs.B0}`);
    expect(comparison.base?.id).toBe(runs.B0);
    expect(comparison.baseBranch).toBe('main');
    expect(titles(comparison.newFailures)).toEqual(['breaks', 'stuck']);
    expect(comparison.fixed.count).toBe(0);
    expect(comparison.slower.items.map((item) => [item.title, item.baseDurationMs])).toEqual([
      ['slows', 100],
    ]);
  });

  it('when baseBranch is sent, then the base is that branch’s latest finished run before the run', async () => {
    const comparison = await compare(runs.R!, '?baseBranch=release');
    expect(comparison.base?.id).toBe(runs.REL);
    expect(comparison.baseBranch).toBe('release');
    expect(titles(comparison.newFailures)).toEqual(['breaks', 'stuck']);
  });

  it('when the run names its base branch, then it is compared with that branch by default', async () => {
    const comparison = await compare(runs.R2!);
    expect(comparison.baseBranch).toBe('release');
    expect(comparison.base?.id).toBe(runs.REL);
    expect(comparison.removed.count).toBe(7);
  });

  it('when the base branch has no finished run before the run, then the answer says why and every category is empty', async () => {
    for (const [runId, query, branch] of [
      [runs.B0!, '', 'main'],
      [runs.R!, '?baseBranch=nowhere', 'nowhere'],
    ] as const) {
      const comparison = await compare(runId, query);
      expect(comparison.base).toBeNull();
      expect(comparison.baseBranch).toBe(branch);
      expect(comparison.noBaseReason).toContain(`"${branch}"`);
      expect(comparison.newFailures).toEqual({ count: 0, items: [] });
      expect(comparison.added).toEqual({ count: 0, items: [] });
    }
  });

  it('when the base is unknown or another project’s, then 404 NOT_FOUND', async () => {
    for (const base of ['no-such-run', runs.OTHER!]) {
      const response = await get(runs.R!, `?base=${base}`);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        success: false,
        error: { code: 'NOT_FOUND', message: expect.any(String) },
      });
    }
  });

  it('when the run is unknown, then 404', async () => {
    const response = await get('no-such-run');
    expect(response.status).toBe(404);
    expect(response.body.success).toBe(false);
  });

  it.each([
    ['the base is the run itself', () => `?base=${runs.R}`, 'base'],
    ['both base and baseBranch are sent', () => `?base=${runs.B0}&baseBranch=main`, 'baseBranch'],
    ['durationRatio is below 1', () => '?durationRatio=0.5', 'durationRatio'],
    ['durationRatio is not a number', () => '?durationRatio=fast', 'durationRatio'],
    ['durationFloorMs is negative', () => '?durationFloorMs=-1', 'durationFloorMs'],
    ['an unknown parameter is sent', () => '?baseRun=x', 'baseRun'],
  ])('when %s, then 400 VALIDATION_ERROR naming it', async (_case, query, parameter) => {
    const response = await get(runs.R!, query());
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: expect.objectContaining({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining(parameter),
      }),
    });
  });
});
