import { testCaseIdOf, type ResultItem } from '@verdict/contracts';
import { createInProcessBus, silentLogger, type EventBus, type SqlDatabase } from '@verdict/platform';
import { createKafkaBus } from '@verdict/platform/kafka';
import { createTestPGlite } from '@verdict/platform/testing/databases';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { requireServer, uniqueName } from '@verdict/platform/testing';
import { eventually, PROJECT, startWithUsers, type RunningService } from '../testing';

const SETUPS: [string, () => Promise<{ db: SqlDatabase; bus: EventBus }>][] = [
  ['PGlite + in-process bus', async () => ({ db: await createTestPGlite(), bus: createInProcessBus() })],
  [
    'PostgreSQL + Kafka',
    async () => ({
      db: createPostgresDatabase({ connectionString: requireServer('DATABASE_URL') }),
      bus: createKafkaBus({
        brokers: requireServer('KAFKA_BROKERS').split(','),
        clientId: uniqueName('manual-test'),
        logger: silentLogger(),
      }),
    }),
  ],
];

function result(overrides: Partial<ResultItem> = {}): ResultItem {
  return {
    file: 'tests/login.spec.ts',
    titlePath: ['Login', 'signs in @TC-1'],
    project: 'chromium',
    attempt: 0,
    status: 'passed',
    durationMs: 1200,
    startedAt: '2026-03-01T10:00:00.000Z',
    ...overrides,
  };
}

describe.each(SETUPS)('linked automated tests and the bus on %s', (_name, setup) => {
  let db: SqlDatabase;
  let bus: EventBus;
  let service: RunningService;

  beforeAll(async () => {
    ({ db, bus } = await setup());
    service = await startWithUsers(db, { bus });
  });
  afterAll(async () => {
    await service.stop();
    await bus.close();
    await db.close();
  });

  const get = (url: string) => service.call('GET', `/${PROJECT}${url}`);

  it('when a case is written, then the answer and an immediate read both show it (read-your-writes through the bus)', async () => {
    const created = await service.call('POST', `/${PROJECT}/manual-test-cases`, { title: 'Sign in' });
    expect(created.status).toBe(201);
    const patched = await service.call('PATCH', `/${PROJECT}/manual-test-cases/${created.body.data._id}`, {
      priority: 'high',
    });
    expect(patched.body.data.classification.priority).toBe('high');
    const listed = await get('/manual-tests?priority=high');
    expect(listed.body.data.map((c: { _id: string }) => c._id)).toContain(created.body.data._id);
  });

  it('when automated results name a case by @TC tag in the title, by tag or by a case annotation, then linkedTests shows each test once with its latest result', async () => {
    const caseKey = (await service.call('POST', `/${PROJECT}/manual-test-cases`, { title: 'Checkout' })).body
      .data.caseId as string;
    await service.publishResults(PROJECT, 'run-a', [
      result({ titlePath: ['Checkout', `pays @${caseKey}`], status: 'failed' }),
      result({
        titlePath: ['Checkout', `pays @${caseKey}`],
        attempt: 1,
        startedAt: '2026-03-01T10:01:00.000Z',
      }),
      result({ file: 'tests/cart.spec.ts', titlePath: ['Cart', 'totals'], tags: [`@${caseKey}`] }),
      result({
        file: 'tests/pay.spec.ts',
        titlePath: ['Pay', 'by card'],
        annotations: [{ type: 'case', description: caseKey }],
        status: 'failed',
        startedAt: '2026-03-01T09:00:00.000Z',
      }),
      result({ file: 'tests/other.spec.ts', titlePath: ['Unrelated'] }),
    ]);
    const linked = await eventually(async () => {
      const answer = await get(`/manual-test-cases/${caseKey}`);
      return answer.body.data.linkedTests.length === 3 ? answer.body.data : null;
    });
    const byTitle = Object.fromEntries(
      (
        linked.linkedTests as {
          displayTitle: string;
          fullTitle: string;
          testCaseId: string;
          lastResult: { status: string };
        }[]
      ).map((t) => [t.displayTitle, t]),
    );
    expect(byTitle.pays).toMatchObject({
      fullTitle: `tests/login.spec.ts › Checkout › pays @${caseKey}`,
      // The id test results gives the same result: the test page the case links to.
      testCaseId: testCaseIdOf({ file: 'tests/login.spec.ts', titlePath: ['Checkout', `pays @${caseKey}`] }),
      lastResult: { status: 'flaky', runId: 'run-a' },
    });
    expect(byTitle['by card']?.testCaseId).toBe(
      testCaseIdOf({ file: 'tests/pay.spec.ts', titlePath: ['Pay', 'by card'] }),
    );
    expect(byTitle.totals?.lastResult.status).toBe('passed');
    expect(byTitle['by card']?.lastResult.status).toBe('failed');
    expect(linked.automation.latestAutomatedResult).toMatchObject({
      status: 'flaky',
      at: '2026-03-01T10:01:00.000Z',
    });
    const inList = await get(`/manual-tests?search=${caseKey}`);
    expect(inList.body.data[0].linkedTests).toHaveLength(3);
  });

  it('when a result names a case before the case exists, then the case shows the link once it is created', async () => {
    const listed = await get('/manual-tests?sortBy=caseId&sortOrder=desc&limit=1');
    const next = Number((listed.body.data[0]?.caseId ?? 'TC-0').slice(3)) + 1;
    await service.publishResults(PROJECT, 'run-c', [result({ titlePath: [`early @TC-${next}`] })]);
    await eventually(async () => {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${service.names.linksSchema}.linked_tests WHERE case_number = $1`,
        [next],
      );
      return rows[0]?.n === 1;
    });
    const created = await service.call('POST', `/${PROJECT}/manual-test-cases`, { title: 'Late' });
    expect(created.body.data.caseId).toBe(`TC-${next}`);
    expect(created.body.data.linkedTests.map((t: { displayTitle: string }) => t.displayTitle)).toEqual([
      'early',
    ]);
  });
});
