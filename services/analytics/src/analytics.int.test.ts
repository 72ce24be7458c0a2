import type { Server } from 'node:http';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FREE_PLAN, SummaryQuery } from '@verdict/contracts';
import {
  createHttpApp,
  createInProcessBus,
  createProjector,
  createSqlEventStore,
  INTERNAL_IDENTITY_HEADER,
  listen,
  ManualClock,
  mintInternalToken,
  newSecret,
  silentLogger,
  type SqlDatabase,
  type StoredEvent,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { appendAll, organizationEvents, result, runEvents, type FixtureRun } from './fixtures';
import { createAnalyticsModule, type AnalyticsModule } from './module';
import { analyticsProjection, ANALYTICS_READ_MODEL_VERSION } from './projections/analyticsReadModel';
import { analyticsSummary } from './queries/summary';
import { testDatabases } from '@verdict/platform/testing/databases';

// A hand-computed fixture: three runs of project P (staging, main) over test cases A, B, C on chromium.
//   run 1, 2026-03-08 10:00, commit c1: A passed 100 ms, B passed 1000, C failed 50       → failed run
//   run 2, 2026-03-09 10:00, commit c2: A failed 200 then passed 300 (flaky), B failed 1200, C failed 60
//   run 3, 2026-03-09 12:00, commit c2: A passed 100, B passed 800, C skipped 70         → passed run
// Flaky: A (retry), B (failed and passed on commit c2). New failures: C in run 1 (never ran before), B in
// run 2 (its previous execution passed); C in run 2 is not new (its previous execution failed). C is not
// flaky: it never passed on a commit it failed on (skipped on c2 in run 3).
// Mean durations: A (100+500+100)/3 = 233.33, B 1000, C 60 → p50 233.33, p75 616.67, p90 846.67;
// per platform (700 + 3000 + 180) / 9 = 431.11.

// Answers are compared field by field with hand-computed values; a loose type keeps that readable.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const secret = newSecret(32);
const P = 'project-p';
const Q = 'project-q';
const ORG = 'org-1';
const CART = 'tests/cart.spec.ts';
const LOGIN = 'tests/login.spec.ts';
const A = ['Cart', 'adds'];
const B = ['Cart', 'pays'];
const C = ['Login', 'signs in'];

const RUNS: FixtureRun[] = [
  {
    projectId: P,
    runId: 'run-1',
    counter: 1,
    branch: 'main',
    environment: 'staging',
    commit: 'c1',
    startedAt: '2026-03-08T10:00:00.000Z',
    finishedAt: '2026-03-08T10:05:00.000Z',
    status: 'failed',
    results: [
      result(CART, A, 'passed', 100, '2026-03-08T10:00:01.000Z'),
      result(CART, B, 'passed', 1000, '2026-03-08T10:00:02.000Z'),
      result(LOGIN, C, 'failed', 50, '2026-03-08T10:00:03.000Z', { tags: ['@auth'] }),
    ],
  },
  {
    projectId: P,
    runId: 'run-2',
    counter: 2,
    branch: 'main',
    environment: 'staging',
    commit: 'c2',
    startedAt: '2026-03-09T10:00:00.000Z',
    finishedAt: '2026-03-09T10:10:00.000Z',
    status: 'failed',
    results: [
      result(CART, A, 'failed', 200, '2026-03-09T10:00:01.000Z'),
      result(CART, A, 'passed', 300, '2026-03-09T10:00:05.000Z', { attempt: 1 }),
      result(CART, B, 'failed', 1200, '2026-03-09T10:00:02.000Z', {
        error: { message: '\u001b[31mError: expect(received).toBe(expected)\u001b[39m\n\nExpected: 200' },
      }),
      result(LOGIN, C, 'failed', 60, '2026-03-09T10:00:03.000Z', {
        tags: ['@auth'],
        error: { message: '\n  TimeoutError: page.goto: Timeout 30000ms exceeded.\nCall log:' },
      }),
    ],
  },
  {
    projectId: P,
    runId: 'run-3',
    counter: 3,
    branch: 'main',
    environment: 'staging',
    commit: 'c2',
    startedAt: '2026-03-09T12:00:00.000Z',
    finishedAt: '2026-03-09T12:02:00.000Z',
    status: 'passed',
    results: [
      result(CART, A, 'passed', 100, '2026-03-09T12:00:01.000Z'),
      result(CART, B, 'passed', 800, '2026-03-09T12:00:02.000Z'),
      result(LOGIN, C, 'skipped', 70, '2026-03-09T12:00:03.000Z', { tags: ['@auth'] }),
    ],
  },
];

const streams = RUNS.map(runEvents);
const inOrder: StoredEvent[] = streams.flatMap((s) => [
  s.lifecycle[0]!,
  ...s.results,
  ...s.lifecycle.slice(1),
]);
/** Results first, newest run first, then the lifecycles: each stream in its own order, streams mixed. */
const outOfOrder: StoredEvent[] = [
  ...[...streams].reverse().flatMap((s) => s.results),
  ...[...streams].reverse().flatMap((s) => s.lifecycle),
];
const identity = organizationEvents({
  organizationId: ORG,
  name: 'Acme',
  plan: {
    name: 'team',
    testCaseLimit: 10,
    projectLimit: 3,
    periodStart: '2026-03-01T00:00:00.000Z',
    periodEnd: '2026-04-01T00:00:00.000Z',
  },
  projects: [
    { id: P, name: 'Web', allocation: 6 },
    { id: Q, name: 'Mobile', allocation: null },
  ],
});

describe.each(testDatabases())('analytics on $name', (database) => {
  let db: SqlDatabase;
  let server: Server;
  let base: string;
  let module: AnalyticsModule;
  const clock = new ManualClock('2026-03-10T12:00:00.000Z');
  const names = {
    readModelSchema: uniqueName('an'),
    organizationsSchema: uniqueName('ao'),
    testResultsTopic: uniqueName('tr'),
    identityTopic: uniqueName('id'),
  };

  // Called as the gateway forwards: with the identity of the path's project.
  const get = async (url: string, projectId = url.split('/')[1] ?? P) => {
    const response = await fetch(`${base}${url}`, {
      headers: {
        [INTERNAL_IDENTITY_HEADER]: mintInternalToken(
          {
            organizationId: ORG,
            projectId,
            userId: 'u',
            role: 'member',
            scopes: ['public-api'],
            tokenId: 't',
          },
          { secret, now: clock.now() },
        ),
      },
    });
    const body = (await response.json()) as Json;
    if (response.status >= 500) throw new Error(JSON.stringify(body));
    return { status: response.status, body };
  };
  const post = (url: string, body: unknown) =>
    fetch(`${base}${url}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [INTERNAL_IDENTITY_HEADER]: mintInternalToken(
          {
            organizationId: ORG,
            projectId: P,
            userId: 'u',
            role: 'member',
            scopes: ['public-api'],
            tokenId: 't',
          },
          { secret, now: clock.now() },
        ),
      },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    db = await database.open();
    module = createAnalyticsModule(
      { db, bus: createInProcessBus(), clock, logger: silentLogger() },
      { internalSecret: secret, names },
    );
    await module.start();
    await module.projectors.analytics.applyEvents(inOrder);
    await module.projectors.organizations.applyEvents(identity);
    const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'analytics' });
    app.use(module.router);
    finish(app);
    server = await listen(app, { host: '127.0.0.1', port: 0 });
    const address = server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await module.stop();
    await db.close();
  });

  beforeEach(() => clock.set(new Date('2026-03-10T12:00:00.000Z')));

  describe('the analytics summary', () => {
    it('when the fixture is summarized, then every metric matches the hand-computed values', async () => {
      const { status, body } = await get(`/${P}/analytics/summary?dateRange=7d`);
      expect(status).toBe(200);
      expect(body.data.metrics).toEqual({
        totalRuns: 3,
        totalTestCases: 3,
        avgRunsPerDay: 0.43,
        failedRuns: 2,
        passedRuns: 1,
        flaky: { totalFlakyTestCases: 2, flakinessPercentage: 66.67 },
        newFailures: { totalNewFailures: 2, newFailuresPercentage: 66.67 },
        avgExecutionTime: 340000,
        durationThresholds: { fast: 233.33, medium: 616.67, slow: 846.67 },
      });
      expect(body.data.uniqueFlakyTests).toEqual([
        { title: 'adds', fileName: 'cart.spec.ts', filePath: CART, failedInDays: 1, dates: ['2026-03-09'] },
        { title: 'pays', fileName: 'cart.spec.ts', filePath: CART, failedInDays: 1, dates: ['2026-03-09'] },
      ]);
      expect(body.data.uniqueNewFailures).toEqual([
        { title: 'pays', fileName: 'cart.spec.ts', filePath: CART, failedInDays: 1, dates: ['2026-03-09'] },
        {
          title: 'signs in',
          fileName: 'login.spec.ts',
          filePath: LOGIN,
          failedInDays: 1,
          dates: ['2026-03-08'],
        },
      ]);
    });

    it('when dateRange and startDate/endDate are both sent, then dateRange wins: the dates need be no pair nor in order', async () => {
      const { status, body } = await get(
        `/${P}/analytics/summary?dateRange=7d&startDate=2026-03-09&endDate=2026-03-01`,
      );
      expect(status).toBe(200);
      expect(body.data.metrics.totalRuns).toBe(3);
      expect((await get(`/${P}/analytics/summary?dateRange=7d&startDate=2026-03-09`)).status).toBe(200);
    });

    it('when dateRange is sent with a startDate that is no date, then 400 names startDate: the document gives its pattern', async () => {
      const { status, body } = await get(`/${P}/analytics/summary?dateRange=7d&startDate=nonsense`);
      expect(status).toBe(400);
      expect(body.error.message).toMatch(/startDate/);
    });

    it('when startDate and endDate span only 2026-03-08, then only run 1 counts', async () => {
      const { body } = await get(`/${P}/analytics/summary?startDate=2026-03-08&endDate=2026-03-08`);
      expect(body.data.metrics.totalRuns).toBe(1);
      expect(body.data.metrics.avgRunsPerDay).toBe(1);
      expect(body.data.metrics.newFailures.totalNewFailures).toBe(1);
    });

    it('when startDate has a time later than a date-only endDate of the same day, then that whole day is the range', async () => {
      const { status, body } = await get(
        `/${P}/analytics/summary?startDate=2026-03-08T10:00:00Z&endDate=2026-03-08`,
      );
      expect(status).toBe(200);
      expect(body.data.range).toMatchObject({ from: '2026-03-08T00:00:00.000Z', days: 1 });
      expect(body.data.metrics.totalRuns).toBe(1);
    });

    it.each([
      ['dateRange=30d'],
      ['dateRange=30d&environment=staging'],
      ['startDate=2026-03-01&endDate=2026-03-10'],
    ])(
      'when the range (%s) holds the whole week of run 1 and the days of runs 2 and 3, then each test case and duration counts once',
      async (range) => {
        const { body } = await get(`/${P}/analytics/summary?${range}`);
        expect(body.data.metrics).toMatchObject({
          totalRuns: 3,
          totalTestCases: 3,
          flaky: { totalFlakyTestCases: 2, flakinessPercentage: 66.67 },
          durationThresholds: { fast: 233.33, medium: 616.67, slow: 846.67 },
        });
      },
    );

    it('when the range spans every day an instant may have, 1000-01-01 to 9999-12-31, then every run counts', async () => {
      const { status, body } = await get(`/${P}/analytics/summary?startDate=1000-01-01&endDate=9999-12-31`);
      expect(status).toBe(200);
      expect(body.data.metrics).toMatchObject({ totalRuns: 3, totalTestCases: 3 });
    });

    it('when a date is before 1000-01-01, then 400 names it: JavaScript and PostgreSQL disagree on such years', async () => {
      const { status, body } = await get(`/${P}/analytics/summary?startDate=0001-01-01&endDate=9999-12-31`);
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(body.error.message).toMatch(/startDate: must be an ISO 8601 date from 1000-01-01/);
    });

    it('when the range is exactly the week of run 1, Monday to Sunday, then only its durations count', async () => {
      const { body } = await get(`/${P}/analytics/summary?startDate=2026-03-02&endDate=2026-03-08`);
      // Means A 100, B 1000, C 50: p50 100, p75 550, p90 820.
      expect(body.data.metrics).toMatchObject({
        totalRuns: 1,
        totalTestCases: 3,
        durationThresholds: { fast: 100, medium: 550, slow: 820 },
      });
    });

    it('when days is 1, then flaky detection looks back only over today, whatever the range', async () => {
      const { body } = await get(`/${P}/analytics/summary?dateRange=30d&days=1`);
      expect(body.data.metrics.flaky.totalFlakyTestCases).toBe(0);
      expect(body.data.metrics.totalRuns).toBe(3);
    });

    it('when another environment or branch is chosen, then nothing of staging/main counts', async () => {
      expect((await get(`/${P}/analytics/summary?environment=prod`)).body.data.metrics.totalRuns).toBe(0);
      const branches = await get(`/${P}/analytics/summary?environment=staging&environmentBranches=dev,main`);
      expect(branches.body.data.metrics.totalRuns).toBe(3);
      const other = await get(`/${P}/analytics/summary?environment=staging&environmentBranches=dev`);
      expect(other.body.data.metrics.totalRuns).toBe(0);
    });

    it.each([
      ['startDate=2026-03-01', 'endDate'],
      ['endDate=2026-03-01', 'startDate'],
      ['startDate=2026-03-05&endDate=2026-03-01', 'endDate'],
      ['startDate=yesterday&endDate=2026-03-01', 'startDate'],
      // A day the calendar does not have is refused, not rolled over into March.
      ['startDate=2026-02-30&endDate=2026-03-02', 'startDate'],
      ['startDate=2026-02-01&endDate=2026-04-31', 'endDate'],
      ['dateRange=5d', 'dateRange'],
      ['days=0', 'days'],
      ['days=366', 'days'],
      ['days=1.5', 'days'],
      ['environmentBranches=main', 'environmentBranches'],
    ])('when the summary gets %s, then 400 VALIDATION_ERROR names %s', async (query, name) => {
      const { status, body } = await get(`/${P}/analytics/summary?${query}`);
      expect(status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(body.error.message).toContain(name);
    });
  });

  describe('the summary lists, on a fixture of their own (project R)', () => {
    // Staging, chromium; every commit its own, so no test fails and passes on one commit.
    //   r1 2026-02-20 main: J passed                 r4 2026-03-08 main: E failed
    //   r2 2026-03-05 main: H failed, passed (flaky)  r5 2026-03-09 main: D, F, G failed; H, I flaky
    //   r3 2026-03-07 qa:   D failed                  r6 2026-03-09 dev:  D failed
    // New failures (first execution of each environment/branch/platform failed): D on 03-07 (qa) and twice
    // on 03-09 (main, dev), E 03-08, F and G 03-09. Flaky: H on 03-05 and 03-09, I on 03-09.
    const R = 'project-r';
    const DG = { file: 'tests/0.spec.ts', G: ['G'], I: ['I'] };
    const D = { file: 'tests/d.spec.ts', title: ['D'] };
    const EF = { file: 'tests/a.spec.ts', E: ['E'], F: ['F'] };
    const H = { file: 'tests/h.spec.ts', title: ['H'] };
    const run = (n: number, day: string, branch: string, results: FixtureRun['results']): FixtureRun => ({
      projectId: R,
      runId: `r-${n}`,
      counter: n,
      branch,
      environment: 'staging',
      commit: `k${n}`,
      startedAt: `${day}T10:00:00.000Z`,
      finishedAt: `${day}T10:05:00.000Z`,
      status: 'failed',
      results,
    });
    const at = (day: string, second: number) => `${day}T10:00:${String(second).padStart(2, '0')}.000Z`;
    const flakyIn = (file: string, title: string[], day: string) => [
      result(file, title, 'failed', 10, at(day, 1)),
      result(file, title, 'passed', 10, at(day, 2), { attempt: 1 }),
    ];
    const LISTS: FixtureRun[] = [
      run(1, '2026-02-20', 'main', [result('tests/j.spec.ts', ['J'], 'passed', 10, at('2026-02-20', 1))]),
      run(2, '2026-03-05', 'main', flakyIn(H.file, H.title, '2026-03-05')),
      run(3, '2026-03-07', 'qa', [result(D.file, D.title, 'failed', 10, at('2026-03-07', 1))]),
      run(4, '2026-03-08', 'main', [result(EF.file, EF.E, 'failed', 10, at('2026-03-08', 1))]),
      run(5, '2026-03-09', 'main', [
        result(D.file, D.title, 'failed', 10, at('2026-03-09', 3)),
        result(EF.file, EF.F, 'failed', 10, at('2026-03-09', 4)),
        result(DG.file, DG.G, 'failed', 10, at('2026-03-09', 5)),
        ...flakyIn(H.file, H.title, '2026-03-09'),
        ...flakyIn(DG.file, DG.I, '2026-03-09'),
      ]),
      run(6, '2026-03-09', 'dev', [result(D.file, D.title, 'failed', 10, at('2026-03-09', 6))]),
    ];
    const listsSchema = uniqueName('an');
    const now = new Date('2026-03-10T12:00:00.000Z');
    const summary = (query: Record<string, string>) =>
      analyticsSummary({ db, schema: listsSchema }, R, SummaryQuery.parse(query), now);
    const entry = (filePath: string, title: string[], dates: string[]) => ({
      title: title.at(-1),
      fileName: path.basename(filePath),
      filePath,
      failedInDays: dates.length,
      dates,
    });
    const NEW_FAILURES = [
      entry(D.file, D.title, ['2026-03-07', '2026-03-09']),
      entry(DG.file, DG.G, ['2026-03-09']),
      entry(EF.file, EF.E, ['2026-03-08']),
      entry(EF.file, EF.F, ['2026-03-09']),
    ];

    beforeAll(async () => {
      const lists = createAnalyticsModule(
        { db, bus: createInProcessBus(), clock, logger: silentLogger() },
        { internalSecret: secret, names: { ...names, readModelSchema: listsSchema } },
      );
      await lists.projectors.analytics.init();
      // Newest run first: the order the lists come out in is the summary's, not the events'.
      for (const events of LISTS.map(runEvents).reverse())
        await lists.projectors.analytics.applyEvents([...events.lifecycle, ...events.results]);
    });

    it.each([
      ['every environment', {}],
      ['the environment with its branches', { environment: 'staging', environmentBranches: 'main,dev,qa' }],
    ])(
      'when summarized over %s, then new failures list most days first, then by file and title, each day once and in order',
      async (_, filter) => {
        const { uniqueNewFailures, metrics } = await summary({ dateRange: '30d', ...filter });
        expect(uniqueNewFailures).toEqual(NEW_FAILURES);
        expect(metrics.newFailures.totalNewFailures).toBe(4);
      },
    );

    it('when summarized with the default lookback, then the flaky test with more days comes first, whatever its file', async () => {
      const { uniqueFlakyTests, metrics } = await summary({ dateRange: '30d' });
      expect(uniqueFlakyTests).toEqual([
        entry(H.file, H.title, ['2026-03-05', '2026-03-09']),
        entry(DG.file, DG.I, ['2026-03-09']),
      ]);
      // The range and the lookback are the same 30 days: 7 test cases ran in them, J included.
      expect(metrics.totalTestCases).toBe(7);
      expect(metrics.flaky).toEqual({ totalFlakyTestCases: 2, flakinessPercentage: 28.57 });
    });

    it('when the lookback is 2 days, then flaky tests list only its days and count against the 5 test cases that ran in it', async () => {
      const { uniqueFlakyTests, metrics } = await summary({ dateRange: '30d', days: '2' });
      expect(uniqueFlakyTests).toEqual([
        entry(DG.file, DG.I, ['2026-03-09']),
        entry(H.file, H.title, ['2026-03-09']),
      ]);
      expect(metrics.flaky).toEqual({ totalFlakyTestCases: 2, flakinessPercentage: 40 });
    });

    it('when the lookback is longer than the range, then the flakiness percentage counts the test cases of the lookback', async () => {
      const { metrics } = await summary({ dateRange: '7d', days: '30' });
      // 6 test cases ran in the 7 days, 7 in the 30 (J on 02-20): 2 of 7, not 2 of 6.
      expect(metrics.totalTestCases).toBe(6);
      expect(metrics.flaky).toEqual({ totalFlakyTestCases: 2, flakinessPercentage: 28.57 });
      expect(metrics.newFailures).toEqual({ totalNewFailures: 4, newFailuresPercentage: 66.67 });
    });
  });

  describe('flaky by commit, on a fixture of its own (project S)', () => {
    // Commit s1, run s-1: K passed on firefox and failed on webkit (one run, two executions); L failed.
    // Commit s1, run s-2: L passed. L failed and passed on one commit in different runs: flaky. K did not:
    // its pass and its failure are one run's, on two platforms.
    const S = 'project-s';
    const K = { file: 'tests/k.spec.ts', title: ['K'] };
    const L = { file: 'tests/l.spec.ts', title: ['L'] };
    const T = 'project-t';
    const M = { file: 'tests/m.spec.ts', title: ['M'] };
    const N = { file: 'tests/n.spec.ts', title: ['N'] };
    const run = (n: number, results: FixtureRun['results']): FixtureRun => ({
      projectId: S,
      runId: `s-${n}`,
      counter: n,
      branch: 'main',
      environment: 'staging',
      commit: 's1',
      startedAt: `2026-03-09T1${n}:00:00.000Z`,
      finishedAt: `2026-03-09T1${n}:05:00.000Z`,
      status: null,
      results,
    });
    const schema = uniqueName('an');

    beforeAll(async () => {
      const flakyByCommit = createAnalyticsModule(
        { db, bus: createInProcessBus(), clock, logger: silentLogger() },
        { internalSecret: secret, names: { ...names, readModelSchema: schema } },
      );
      await flakyByCommit.projectors.analytics.init();
      const at = '2026-03-09T11:00:01.000Z';
      for (const events of [
        run(1, [
          result(K.file, K.title, 'passed', 10, at, { project: 'firefox' }),
          result(K.file, K.title, 'failed', 10, at, { project: 'webkit' }),
          result(L.file, L.title, 'failed', 10, at),
        ]),
        run(2, [result(L.file, L.title, 'passed', 10, '2026-03-09T12:00:01.000Z')]),
        // Its runner's clock is behind: it reported an end two minutes before the start.
        { ...run(3, []), finishedAt: '2026-03-09T12:58:00.000Z' },
        // Project T, commit t1: M passed on March 5th and failed on March 9th; N was only ever skipped.
        {
          ...run(4, [
            result(M.file, M.title, 'passed', 40, '2026-03-05T14:00:01.000Z'),
            result(N.file, N.title, 'skipped', 0, '2026-03-05T14:00:01.000Z'),
          ]),
          projectId: T,
          commit: 't1',
          startedAt: '2026-03-05T14:00:00.000Z',
          finishedAt: '2026-03-05T14:05:00.000Z',
        },
        {
          ...run(5, [
            result(M.file, M.title, 'failed', 20, '2026-03-09T15:00:01.000Z'),
            result(N.file, N.title, 'skipped', 0, '2026-03-09T15:00:01.000Z'),
          ]),
          projectId: T,
          commit: 't1',
        },
      ].map(runEvents))
        await flakyByCommit.projectors.analytics.applyEvents([...events.lifecycle, ...events.results]);
    });

    it('when a test passed and failed on one commit only within one run, on two platforms, then it is not flaky', async () => {
      const { uniqueFlakyTests, metrics } = await analyticsSummary(
        { db, schema },
        S,
        SummaryQuery.parse({ dateRange: '7d' }),
        new Date('2026-03-10T12:00:00.000Z'),
      );
      expect(uniqueFlakyTests.map((test) => test.filePath)).toEqual([L.file]);
      expect(metrics.flaky).toEqual({ totalFlakyTestCases: 1, flakinessPercentage: 50 });
    });

    it('when the pass on a commit is older than the days of the lookback, then failing on that commit within them is not flaky', async () => {
      const summary = (days: number) =>
        analyticsSummary(
          { db, schema },
          T,
          SummaryQuery.parse({ dateRange: '7d', days: String(days) }),
          new Date('2026-03-10T12:00:00.000Z'),
        );
      // March 9th and 10th: only M's failure on t1.
      expect((await summary(2)).uniqueFlakyTests).toEqual([]);
      // March 4th to 10th: its pass on t1 too.
      const { uniqueFlakyTests, metrics } = await summary(7);
      expect(uniqueFlakyTests.map((test) => [test.filePath, test.dates])).toEqual([[M.file, ['2026-03-09']]]);
      expect(metrics.flaky).toEqual({ totalFlakyTestCases: 1, flakinessPercentage: 50 });
    });

    it('when a test case was only skipped in the range, then it counts as a test case but not in durationThresholds', async () => {
      const { metrics } = await analyticsSummary(
        { db, schema },
        T,
        SummaryQuery.parse({ dateRange: '7d' }),
        new Date('2026-03-10T12:00:00.000Z'),
      );
      expect(metrics.totalTestCases).toBe(2);
      // M alone: (40 + 20) / 2 executions.
      expect(metrics.durationThresholds).toEqual({ fast: 30, medium: 30, slow: 30 });
    });

    it('when a run ended (by its clock) before it started, then it counts as 0 ms in avgExecutionTime, never less', async () => {
      const { metrics } = await analyticsSummary(
        { db, schema },
        S,
        SummaryQuery.parse({ dateRange: '7d' }),
        new Date('2026-03-10T12:00:00.000Z'),
      );
      // Runs 1 and 2 lasted 5 minutes, run 3 -2 minutes: (300,000 + 300,000 + 0) / 3.
      expect(metrics.avgExecutionTime).toBe(200_000);
    });
  });

  describe('the test case explorer', () => {
    it('when asked with defaults, then pagination is inside data and appliedFilters echoes every field', async () => {
      const { status, body } = await get(`/${P}/test-case-explorer`);
      expect(status).toBe(200);
      expect(body.pagination).toBeUndefined();
      expect(body.data.pagination).toEqual({ page: 1, limit: 50, total: 3, hasNext: false, hasPrev: false });
      expect(body.data.appliedFilters).toEqual({
        status: null,
        specFilePath: null,
        platform: null,
        environment: null,
        tags: [],
        days: 30,
        dateRange: null,
        fromDate: null,
        toDate: null,
        search: null,
        sortBy: 'lastExecution',
        sortBy2: null,
        order: 'desc',
        order2: 'desc',
        testRunId: null,
        testRunIds: [],
      });
    });

    it('when a test case is listed, then its metrics and lastRun are those of the fixture', async () => {
      const { body } = await get(`/${P}/test-case-explorer?sortBy=avgDuration`);
      expect(body.data.testCases.map((c: { title: string }) => c.title)).toEqual([
        'pays',
        'adds',
        'signs in',
      ]);
      expect(body.data.testCases[1]).toMatchObject({
        fullTitle: 'Cart > adds',
        title: 'adds',
        specName: CART,
        executions: 3,
        platforms: ['chromium'],
        failureRate: 0,
        flakyRate: 33.33,
        avgDuration: 233.33,
        tags: [],
        // It flaked in run 2 and passed since: flaky over the window, passed at its latest execution.
        status: 'flaky',
        lastRun: {
          status: 'passed',
          duration: 100,
          timestamp: '2026-03-09T12:00:01.000Z',
          testRunId: 'run-3',
          counter: 3,
          branch: 'main',
          environment: 'staging',
        },
      });
    });

    it('when sorted by failRate ascending, then the never-failing test comes first', async () => {
      const { body } = await get(`/${P}/test-case-explorer?sortBy=failRate&order=asc`);
      expect(body.data.testCases[0].title).toBe('adds');
      expect(body.data.testCases[2]).toMatchObject({ title: 'signs in', failureRate: 66.67 });
    });

    it('when filtered by status, tags, spec, search, platform, environment or run, then only matches remain', async () => {
      const titles = async (query: string) =>
        (await get(`/${P}/test-case-explorer?${query}`)).body.data.testCases.map(
          (c: { title: string }) => c.title,
        );
      expect(await titles('tags=@auth')).toEqual(['signs in']);
      expect(await titles(`specFilePath=${encodeURIComponent(LOGIN)}`)).toEqual(['signs in']);
      expect(await titles('search=PAYS')).toEqual(['pays']);
      expect(await titles('platform=firefox')).toEqual([]);
      expect(await titles('environment=prod')).toEqual([]);
      const run2 = await get(`/${P}/test-case-explorer?testRunId=run-2&sortBy=failRate`);
      expect(run2.body.data.testCases[0]).toMatchObject({ executions: 1, failureRate: 100 });
      expect(run2.body.data.appliedFilters.testRunId).toBe('run-2');
    });

    it('when filtered by status, then it is the status over the window: flaky = flaked or passed and failed, failed = failed at all, passed = never failed nor flaked, skipped = only skipped', async () => {
      const cases = async (query: string) =>
        (await get(`/${P}/test-case-explorer?sortBy=avgDuration&${query}`)).body.data.testCases.map(
          (c: { title: string; status: string; lastRun: { status: string } }) =>
            `${c.title}: ${c.status}, last ${c.lastRun.status}`,
        );
      // adds flaked in run 2 and passed in run 3; pays passed, failed, then passed: both flaky, though
      // their latest execution passed. signs in failed twice and was skipped last.
      expect(await cases('')).toEqual([
        'pays: flaky, last passed',
        'adds: flaky, last passed',
        'signs in: failed, last skipped',
      ]);
      expect(await cases('status=flaky')).toEqual(['pays: flaky, last passed', 'adds: flaky, last passed']);
      expect(await cases('status=failed')).toEqual([
        'pays: flaky, last passed',
        'signs in: failed, last skipped',
      ]);
      expect(await cases('status=passed')).toEqual([]);
      expect(await cases('status=skipped')).toEqual([]);
      // Over run 3 alone, adds and pays only passed and signs in was only skipped.
      expect(await cases('testRunId=run-3&status=passed')).toEqual([
        'pays: passed, last passed',
        'adds: passed, last passed',
      ]);
      expect(await cases('testRunId=run-3&status=skipped')).toEqual(['signs in: skipped, last skipped']);
      expect(await cases('testRunId=run-3&status=flaky')).toEqual([]);
      // Narrowed to a platform (the per-day rows) and to the day of run 1 (pays only passed then).
      expect(await cases('platform=chromium&status=flaky')).toEqual([
        'pays: flaky, last passed',
        'adds: flaky, last passed',
      ]);
      expect(await cases('fromDate=2026-03-08&toDate=2026-03-08&status=passed')).toEqual([
        'pays: passed, last passed',
        'adds: passed, last passed',
      ]);
    });

    it('when limit is 2, then the second page holds the rest', async () => {
      const { body } = await get(`/${P}/test-case-explorer?limit=2&page=2`);
      expect(body.data.testCases).toHaveLength(1);
      expect(body.data.pagination).toEqual({ page: 2, limit: 2, total: 3, hasNext: false, hasPrev: true });
    });

    it('when a page past the last is asked, filtered by platform or by run, then it is empty and the total still counts', async () => {
      for (const filter of ['', '&platform=chromium', '&testRunId=run-2']) {
        const { body } = await get(`/${P}/test-case-explorer?limit=2&page=5${filter}`);
        expect(body.data.testCases).toEqual([]);
        expect(body.data.pagination.total).toBe(3);
      }
    });

    it('when dateRange is sent with fromDate and toDate out of order, then dateRange wins and their order is not checked', async () => {
      const { status, body } = await get(
        `/${P}/test-case-explorer?dateRange=7d&fromDate=2026-03-09&toDate=2026-03-01`,
      );
      expect(status).toBe(200);
      expect(body.data.appliedFilters.dateRange).toBe('7d');
      expect(body.data.testCases).toHaveLength(3);
    });

    it('when order2 is sent, then appliedFilters echoes it', async () => {
      const { body } = await get(`/${P}/test-case-explorer?sortBy2=avgDuration&order2=asc`);
      expect(body.data.appliedFilters).toMatchObject({ sortBy2: 'avgDuration', order2: 'asc' });
      expect((await get(`/${P}/test-case-explorer?order2=asc`)).body.data.appliedFilters.order2).toBe('asc');
    });

    it.each([
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['page=0', 'page'],
      ['days=0', 'days'],
      ['days=366', 'days'],
      ['sortBy=name', 'sortBy'],
      ['order=up', 'order'],
      ['status=broken', 'status'],
      ['tags=a,,b', 'tags'],
      ['fromDate=2026-03-01', 'toDate'],
      ['fromDate=2026-02-29&toDate=2026-03-05', 'fromDate'],
      ['fromDate=2026-03-05&toDate=2026-03-01', 'toDate'],
      ['fromDate=yesterday&toDate=2026-03-01', 'fromDate'],
      ['limit=5&limit=6', 'limit'],
      ['limit=1e1', 'limit'],
      ['days=0x10', 'days'],
    ])('when the explorer gets %s, then 400 VALIDATION_ERROR names %s', async (query, name) => {
      const { status, body } = await get(`/${P}/test-case-explorer?${query}`);
      expect(status).toBe(400);
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(body.error.message).toContain(name);
    });
  });

  describe('usage', () => {
    it('when the organization has a plan, then executions of the period count against it and the allocations', async () => {
      const { status, body } = await get(`/${P}/usage`);
      expect(status).toBe(200);
      expect(body.data).toEqual({
        planName: 'team',
        orgName: 'Acme',
        projects: [
          { id: P, name: 'Web' },
          { id: Q, name: 'Mobile' },
        ],
        orgLimit: 10,
        orgUsed: 9,
        orgRemaining: 1,
        projectAllocated: 6,
        projectUsed: 9,
        projectRemaining: 0,
        unallocatedPool: 4,
        projectUsage: [
          { id: P, name: 'Web', allocated: 6, used: 9, remaining: 0 },
          { id: Q, name: 'Mobile', allocated: 0, used: 0, remaining: 1 },
        ],
        periodStart: '2026-03-01T00:00:00.000Z',
        periodEnd: '2026-04-01T00:00:00.000Z',
        resetDate: '2026-04-01T00:00:00.000Z',
      });
    });

    it('when the period ends, then usage rolls over into the next month with nothing used', async () => {
      clock.set(new Date('2026-04-02T00:00:00.000Z'));
      const { body } = await get(`/${P}/usage`);
      expect(body.data).toMatchObject({
        orgUsed: 0,
        orgRemaining: 10,
        periodStart: '2026-04-01T00:00:00.000Z',
        periodEnd: '2026-05-01T00:00:00.000Z',
      });
    });

    it('when the organization has no subscription, then the free tier applies over the calendar month', async () => {
      await module.projectors.organizations.applyEvents(
        organizationEvents({
          organizationId: 'org-free',
          name: 'Solo',
          plan: FREE_PLAN,
          projects: [{ id: 'project-free', name: 'Only', allocation: null }],
        }),
      );
      const { body } = await get('/project-free/usage', 'project-free');
      expect(body.data).toMatchObject({
        planName: 'free',
        orgLimit: 5000,
        orgUsed: 0,
        orgRemaining: 5000,
        unallocatedPool: 5000,
        periodStart: '2026-03-01T00:00:00.000Z',
        periodEnd: '2026-04-01T00:00:00.000Z',
      });
    });

    it('when usage gets a query parameter, then 400 VALIDATION_ERROR names it', async () => {
      const { status, body } = await get(`/${P}/usage?period=last`);
      expect(status).toBe(400);
      expect(body.error.message).toContain('period');
    });
  });

  describe('dashboard, filters and execution performance', () => {
    it('when the dashboard is asked, then it sums up the last 30 days', async () => {
      const { status, body } = await get(`/${P}/dashboard`);
      expect(status).toBe(200);
      expect(body.data.totals).toEqual({ runs: 3, testCases: 3, executions: 9 });
      expect(body.data.last30Days).toMatchObject({ runs: 3, passedRuns: 1, failedRuns: 2 });
      expect(body.data.recentRuns.map((r: { counter: number }) => r.counter)).toEqual([3, 2, 1]);
      expect(body.data.passRateTrend).toHaveLength(30);
      expect(body.data.topFlakyTests[0]).toMatchObject({ title: 'adds', count: 1 });
    });

    it('when a day of the trend had no execution, then its rates are null rather than 0; a day with some has them', async () => {
      const { body } = await get(`/${P}/dashboard`);
      const trend = body.data.passRateTrend as {
        date: string;
        passRate: number | null;
        flakyRate: number | null;
      }[];
      // 03-09: runs 2 and 3: A flaky and passed, B failed and passed, C failed and skipped (4 of 5 decided pass).
      expect(trend.find((day) => day.date === '2026-03-09')).toMatchObject({ passRate: 60, flakyRate: 20 });
      const empty = trend.filter((day) => day.date !== '2026-03-08' && day.date !== '2026-03-09');
      expect(empty.length).toBe(28);
      expect(empty.every((day) => day.passRate === null && day.flakyRate === null)).toBe(true);
      const performance = (await get(`/${P}/analytics/execution-performance?dateRange=7d`)).body.data
        .durationTrend as {
        date: string;
        avgRunDurationMs: number | null;
        avgTestDurationMs: number | null;
      }[];
      expect(performance.find((day) => day.date === '2026-03-07')).toMatchObject({
        avgRunDurationMs: null,
        avgTestDurationMs: null,
      });
      expect(performance.find((day) => day.date === '2026-03-08')?.avgRunDurationMs).toEqual(
        expect.any(Number),
      );
    });

    it('when the filters are asked, then they list what is in use', async () => {
      const { body } = await get(`/${P}/filters`);
      expect(body.data).toEqual({
        branches: ['main'],
        environments: ['staging'],
        environmentBranches: { staging: ['main'] },
        platforms: ['chromium'],
        tags: ['@auth'],
        specFiles: [CART, LOGIN],
        statuses: ['passed', 'failed', 'flaky', 'skipped'],
      });
    });

    it('when a project has run nothing, then its filters list no status in use', async () => {
      const { status, body } = await get(`/${Q}/filters`);
      expect(status).toBe(200);
      expect(body.data.statuses).toEqual([]);
    });

    it.each(['dashboard', 'filters'])(
      'when %s gets any query parameter, then 400 VALIDATION_ERROR',
      async (name) => {
        const { status, body } = await get(`/${P}/${name}?page=1`);
        expect(status).toBe(400);
        expect(body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'page: is not allowed' });
      },
    );

    it.each([
      'test-case-explorer?bogus=1',
      'analytics/summary?bogus=1',
      'analytics/execution-performance?days=7',
    ])(
      'when %s sends a parameter the endpoint does not take, then 400 VALIDATION_ERROR names it',
      async (path) => {
        const { status, body } = await get(`/${P}/${path}`);
        expect(status).toBe(400);
        expect(body.error.message).toMatch(/^(bogus|days): is not allowed$/);
      },
    );

    it('when execution performance is asked, then the slowest test and spec come first', async () => {
      const { status, body } = await get(`/${P}/analytics/execution-performance?dateRange=7d`);
      expect(status).toBe(200);
      expect(body.data.slowestTests[0]).toMatchObject({
        title: 'pays',
        avgDurationMs: 1000,
        maxDurationMs: 1200,
      });
      expect(body.data.slowestSpecs[0]).toMatchObject({ filePath: CART, executions: 6 });
      expect(body.data.platforms).toEqual([{ platform: 'chromium', executions: 9, avgDurationMs: 431.11 }]);
      expect(body.data.durationTrend).toHaveLength(7);
    });

    it.each([
      ['startDate=0001-01-01&endDate=9999-12-31', 400],
      ['startDate=2025-01-01&endDate=2026-01-02', 400],
      ['startDate=2024-01-01&endDate=2024-12-31', 200],
    ])(
      'when execution performance spans %s, then %s (at most 366 days: the trend has a point a day)',
      async (range, status) => {
        const answer = await get(`/${P}/analytics/execution-performance?${range}`);
        expect(answer.status).toBe(status);
        if (status === 400) expect(answer.body.error.message).toContain('endDate: must be at most 366 days');
        else expect(answer.body.data.durationTrend).toHaveLength(366);
      },
    );

    it('when execution performance is filtered, then the duration trend follows the filter like the lists', async () => {
      const trend = async (filter: string) =>
        (await get(`/${P}/analytics/execution-performance?dateRange=7d${filter}`)).body.data
          .durationTrend as {
          runs: number;
          executions: number;
        }[];
      const all = await trend('');
      // 03-08: run 1 (3 executions); 03-09: runs 2 and 3 (6).
      expect(all.map((day) => [day.runs, day.executions])).toEqual([
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
        [1, 3],
        [2, 6],
        [0, 0],
      ]);
      expect(await trend('&environment=staging&branch=main&platform=chromium')).toEqual(all);
      for (const filter of ['&environment=prod', '&branch=dev', '&platform=webkit']) {
        const other = await trend(filter);
        expect(other.every((day) => day.runs === 0 && day.executions === 0)).toBe(true);
      }
    });
  });

  describe('PDF reports', () => {
    it.each([[{ dateRange: '7d' }], [{ runId: 'run-2' }]])(
      'when a report of %j is asked, then a PDF comes back whose first page is not blank',
      async (request) => {
        const response = await post(`/${P}/reports`, request);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toContain('application/pdf');
        const pdf = Buffer.from(await response.arrayBuffer());
        expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
        const dir = mkdtempSync(path.join(tmpdir(), 'verdict-report-'));
        writeFileSync(path.join(dir, 'report.pdf'), pdf);
        execFileSync(
          'pdftoppm',
          ['-png', '-r', '40', '-f', '1', '-l', '1', '-singlefile', 'report.pdf', 'page'],
          {
            cwd: dir,
          },
        );
        expect(readFileSync(path.join(dir, 'page.png')).subarray(1, 4).toString()).toBe('PNG');
        execFileSync(
          'pdftoppm',
          ['-gray', '-r', '40', '-f', '1', '-l', '1', '-singlefile', 'report.pdf', 'page'],
          {
            cwd: dir,
          },
        );
        const pgm = readFileSync(path.join(dir, 'page.pgm'));
        const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 30).toString('latin1'));
        expect(header).not.toBeNull();
        const pixels = pgm.subarray(pgm.length - Number(header![1]) * Number(header![2]));
        const inked = pixels.filter((value) => value < 200).length;
        // Not blank: the header band, the figures, the chart lines and bars ink a good part of the page.
        expect(inked / pixels.length).toBeGreaterThan(0.05);
      },
    );

    it.each([
      [{}],
      [{ runId: 'run-1', dateRange: '7d' }],
      [{ dateRange: '1y' }],
      [{ runId: 'run-1', extra: 1 }],
    ])('when the report body is %j, then 400 VALIDATION_ERROR', async (request) => {
      const response = await post(`/${P}/reports`, request);
      expect(response.status).toBe(400);
      expect(((await response.json()) as Json).error.code).toBe('VALIDATION_ERROR');
    });

    it('when a period report is read, then its flaky bars say what they count and name each test with its file', async () => {
      const response = await post(`/${P}/reports`, { dateRange: '7d' });
      const dir = mkdtempSync(path.join(tmpdir(), 'verdict-report-'));
      writeFileSync(path.join(dir, 'report.pdf'), Buffer.from(await response.arrayBuffer()));
      const text = execFileSync('pdftotext', ['-layout', 'report.pdf', '-'], { cwd: dir }).toString('utf8');
      expect(text).toContain('Flaky executions per test (failed, then passed on a retry)');
      const [, flakyBars = '', slowestBars = ''] = text.split(
        /Flaky executions per test \(failed, then passed on a retry\)|Slowest tests/,
      );
      // A failed, then passed on a retry in run 2; B is flaky only by commit, so it has no bar.
      expect(flakyBars).toContain('cart.spec.ts > adds');
      expect(flakyBars).not.toContain('cart.spec.ts > pays');
      // The slowest bars name their tests the same way: B, the slowest, first.
      expect(slowestBars).toContain('cart.spec.ts > pays');
    });

    it('when a run report is read, then each slowest bar names its platform (one bar per execution)', async () => {
      const response = await post(`/${P}/reports`, { runId: 'run-2' });
      const dir = mkdtempSync(path.join(tmpdir(), 'verdict-report-'));
      writeFileSync(path.join(dir, 'report.pdf'), Buffer.from(await response.arrayBuffer()));
      const text = execFileSync('pdftotext', ['-layout', 'report.pdf', '-'], { cwd: dir }).toString('utf8');
      expect(text).toMatch(/Cart > pays \[chromium\]/);
    });

    it("when a run report is read, then its failing tests come first, each with its platform, its error's first line and a link to its page", async () => {
      const response = await post(`/${P}/reports`, { runId: 'run-2' });
      const pdf = Buffer.from(await response.arrayBuffer());
      const dir = mkdtempSync(path.join(tmpdir(), 'verdict-report-'));
      writeFileSync(path.join(dir, 'report.pdf'), pdf);
      const text = execFileSync('pdftotext', ['-layout', 'report.pdf', '-'], { cwd: dir }).toString('utf8');
      const failing = text.indexOf('Failing tests (2)');
      expect(failing).toBeGreaterThan(-1);
      expect(failing).toBeLessThan(text.indexOf('Pass rate trend'));
      const list = text.slice(failing, text.indexOf('Pass rate trend'));
      // By file, then title: cart.spec.ts's B, then login.spec.ts's C; A was flaky, not failing.
      expect(list).toMatch(
        /Cart > pays \[chromium\]\s+Error: expect\(received\)\.toBe\(expected\)\s+Login > signs in \[chromium\]\s+TimeoutError: page\.goto: Timeout 30000ms exceeded\./,
      );
      expect(list).not.toContain('Cart > adds');
      // Each title links to its page in the web app.
      const links = [...pdf.toString('latin1').matchAll(/\/URI \((http[^)]*)\)/g)].map((match) => match[1]);
      expect(links).toHaveLength(2);
      for (const link of links) {
        expect(link).toMatch(
          /^http:\/\/localhost:8080\/projects\/project-p\/runs\/run-2\/tests\/[0-9a-f]{32}\?project=chromium$/,
        );
      }
    });

    it('when the run is unknown, then 404 NOT_FOUND, as for any missing resource outside the debug bundle (spec §7)', async () => {
      const response = await post(`/${P}/reports`, { runId: 'nope' });
      expect(response.status).toBe(404);
      expect(((await response.json()) as Json).error.code).toBe('NOT_FOUND');
    });
  });

  describe('idempotence and order', () => {
    const snapshot = async (schema: string) => {
      const tables = [
        'runs',
        'case_runs',
        'case_days',
        'case_day_totals',
        'case_week_totals',
        'new_failures',
        'commit_conflicts',
        'usage_hours',
        'test_cases',
        'attempt_errors',
      ];
      const out: Record<string, unknown> = {};
      for (const table of tables) {
        const { rows } = await db.query(`SELECT * FROM ${schema}.${table} ORDER BY 1, 2, 3`);
        out[table] = rows;
      }
      return JSON.parse(JSON.stringify(out)) as unknown;
    };

    it('when the results arrive before their runs, newest run first, then the tables are the same', async () => {
      const other = createAnalyticsModule(
        { db, bus: createInProcessBus(), clock, logger: silentLogger() },
        { internalSecret: secret, names: { ...names, readModelSchema: uniqueName('an') } },
      );
      await other.projectors.analytics.init();
      for (const event of outOfOrder) await other.projectors.analytics.applyEvents([event]);
      expect(await snapshot(other.projectors.analytics.name)).toEqual(await snapshot(names.readModelSchema));
    });

    it('when every event comes in its own batch, a retry after its failure, then the tables are the same', async () => {
      const other = createAnalyticsModule(
        { db, bus: createInProcessBus(), clock, logger: silentLogger() },
        { internalSecret: secret, names: { ...names, readModelSchema: uniqueName('an') } },
      );
      await other.projectors.analytics.init();
      for (const event of inOrder) await other.projectors.analytics.applyEvents([event]);
      expect(await snapshot(other.projectors.analytics.name)).toEqual(await snapshot(names.readModelSchema));
    });

    it('when each run comes whole but the newest run first, then the tables are the same', async () => {
      const other = createAnalyticsModule(
        { db, bus: createInProcessBus(), clock, logger: silentLogger() },
        { internalSecret: secret, names: { ...names, readModelSchema: uniqueName('an') } },
      );
      await other.projectors.analytics.init();
      for (const s of [...streams].reverse()) {
        await other.projectors.analytics.applyEvents([
          s.lifecycle[0]!,
          ...s.results,
          ...s.lifecycle.slice(1),
        ]);
      }
      expect(await snapshot(other.projectors.analytics.name)).toEqual(await snapshot(names.readModelSchema));
    });

    /** A read model of its own, set up and empty, for the projection to be applied to by hand. */
    const emptyReadModel = async () => {
      const schema = uniqueName('an');
      const projection = analyticsProjection(schema);
      await db.transaction(async (tx) => {
        await tx.query(`CREATE SCHEMA ${schema}`);
        await projection.setup(tx, schema);
      });
      return { schema, projection };
    };

    it('when every event is applied a second time past the checkpoints, then the tables are the same', async () => {
      const { schema, projection } = await emptyReadModel();
      await db.transaction((tx) => projection.apply(tx, inOrder, schema));
      await db.transaction((tx) => projection.apply(tx, inOrder, schema));
      await db.transaction((tx) => projection.apply(tx, outOfOrder, schema));
      expect(await snapshot(schema)).toEqual(await snapshot(names.readModelSchema));
    });

    it('when a read model of version 1 (no weekly totals, only the failures of a commit conflict) is found at start, then it is rebuilt from position 0 and answers as a fresh one', async () => {
      const storeSchema = uniqueName('trs');
      const testResults = createSqlEventStore({ db, schema: storeSchema, clock });
      await testResults.init();
      await appendAll(testResults, inOrder);
      // What a deployment of the earlier code holds: version 1 recorded, its tables of then.
      const schema = uniqueName('an');
      const earlier = createProjector({
        db,
        projection: { ...analyticsProjection(schema), version: 1 },
        logger: silentLogger(),
      });
      await earlier.init();
      await earlier.applyEvents(inOrder);
      await db.exec(`DROP TABLE ${schema}.case_week_totals`);
      await db.exec(`DELETE FROM ${schema}.commit_conflicts WHERE NOT failed`);
      await db.exec(`ALTER TABLE ${schema}.commit_conflicts DROP COLUMN failed`);

      const upgraded = createAnalyticsModule(
        { db, bus: createInProcessBus(), clock, logger: silentLogger() },
        {
          internalSecret: secret,
          names: { ...names, readModelSchema: schema, testResultsStoreSchema: storeSchema },
        },
      );
      await upgraded.start();
      await upgraded.stop();
      const version = await db.query<{ version: number }>(`SELECT version FROM ${schema}.projection_version`);
      expect(version.rows[0]?.version).toBe(ANALYTICS_READ_MODEL_VERSION);
      expect(await snapshot(schema)).toEqual(await snapshot(names.readModelSchema));
      const summary = (read: string) =>
        analyticsSummary({ db, schema: read }, P, SummaryQuery.parse({ dateRange: '7d' }), clock.now());
      expect(await summary(schema)).toEqual(await summary(names.readModelSchema));
    });
  });
});
