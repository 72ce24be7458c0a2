import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import {
  createInProcessBus,
  createSqlEventStore,
  ManualClock,
  silentLogger,
  START,
  type EventBus,
  type EventStore,
  type SqlDatabase,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { appendAll, organizationEvents, result, runEvents } from './fixtures';
import { createAnalyticsModule } from './module';
import { usageOf } from './queries/usage';
import { testDatabases } from '@verdict/platform/testing/databases';

// Operations: the read models fed from the bus (with the consumer lag metric), and rebuilt from the event
// stores from position 0 while the old tables keep answering.

const P = 'project-ops';
const RUNS = [1, 2, 3].map((n) =>
  runEvents({
    projectId: P,
    runId: `ops-${n}`,
    counter: n,
    branch: 'main',
    environment: 'ci',
    commit: `c${n}`,
    startedAt: `2026-03-0${n}T10:00:00.000Z`,
    finishedAt: `2026-03-0${n}T10:01:00.000Z`,
    status: 'passed',
    results: [
      result('a.spec.ts', ['a'], 'passed', 10, `2026-03-0${n}T10:00:01.000Z`),
      result('b.spec.ts', ['b'], n === 2 ? 'failed' : 'passed', 20, `2026-03-0${n}T10:00:02.000Z`),
    ],
  }),
);
const IDENTITY = organizationEvents({
  organizationId: 'org-ops',
  name: 'Ops',
  plan: { name: 'free', testCaseLimit: 5000, projectLimit: 1, periodStart: null, periodEnd: null },
  projects: [{ id: P, name: 'Ops', allocation: null }],
});

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i += 1) {
    if (await check()) return;
    await sleep(10);
  }
  throw new Error('the condition never held');
}

describe.each(testDatabases())('analytics operations on $name', (database) => {
  let db: SqlDatabase;
  let bus: EventBus;
  const clock = new ManualClock('2026-03-10T00:00:00.000Z');

  beforeAll(async () => {
    db = await database.open();
    bus = createInProcessBus();
  });
  afterAll(async () => {
    await bus.close();
    await db.close();
  });

  const names = () => ({
    readModelSchema: uniqueName('an'),
    organizationsSchema: uniqueName('ao'),
    testResultsTopic: uniqueName('tr'),
    identityTopic: uniqueName('id'),
  });

  it('when events come over the bus, then they are projected and the consumer lag is a Prometheus metric', async () => {
    const registry = new Registry();
    const topics = names();
    const module = createAnalyticsModule(
      { db, bus, clock, logger: silentLogger(), metrics: registry },
      { internalSecret: 'x'.repeat(32), names: topics },
    );
    await module.start();
    const events = RUNS.flatMap((run) => [...run.lifecycle, ...run.results]);
    await bus.publish(
      topics.testResultsTopic,
      events.map((event) => ({ key: P, value: JSON.stringify(event) })),
    );
    await bus.publish(
      topics.identityTopic,
      IDENTITY.map((event) => ({ key: event.streamId, value: JSON.stringify(event) })),
    );
    const applied = async (projection: string) => {
      const metric = await registry.getSingleMetric('verdict_projection_events_total')?.get();
      return metric?.values.find((v) => v.labels.projection === projection)?.value ?? 0;
    };
    await until(async () => (await applied(topics.readModelSchema)) === events.length);
    await until(async () => (await applied(topics.organizationsSchema)) === IDENTITY.length);
    const text = await registry.metrics();
    expect(text).toContain(`verdict_projection_lag_seconds{projection="${topics.readModelSchema}"}`);
    const usage = await usageOf(
      { db, schema: topics.readModelSchema, organizations: topics.organizationsSchema },
      P,
      clock.now(),
    );
    expect(usage.projectUsed).toBe(6);
    await module.stop();
  });

  it('when the read models are rebuilt from position 0, then they hold the whole history and answer meanwhile', async () => {
    const topics = names();
    const testResults = createSqlEventStore({ db, schema: uniqueName('trs'), clock });
    const identity = createSqlEventStore({ db, schema: uniqueName('ids'), clock });
    await testResults.init();
    await identity.init();
    await appendAll(
      testResults,
      RUNS.flatMap((run) => [...run.lifecycle, ...run.results]),
    );
    await appendAll(identity, IDENTITY);
    const module = createAnalyticsModule(
      { db, bus, clock, logger: silentLogger() },
      { internalSecret: 'x'.repeat(32), names: topics },
    );
    await module.start();
    // Live, only the first run has arrived so far.
    const first = RUNS[0]!;
    await module.projectors.analytics.applyEvents([...first.lifecycle, ...first.results]);
    await module.projectors.organizations.applyEvents(IDENTITY);
    const store = { db, schema: topics.readModelSchema, organizations: topics.organizationsSchema };
    expect((await usageOf(store, P, clock.now())).projectUsed).toBe(2);

    // A reader of a whole store sees only transactions older than every one in flight (docs/architecture.md,
    // "Event store ordering"): on a busy server that horizon may trail the appends for a moment.
    const readable = async (store: EventStore, count: number) =>
      (await store.readAll({ after: START, limit: 100 })).events.length === count;
    await until(() => readable(testResults, 12));
    await until(() => readable(identity, IDENTITY.length));
    const rebuilt = module.rebuild({ testResults, identity });
    const meanwhile = await usageOf(store, P, clock.now());
    expect([2, 6]).toContain(meanwhile.projectUsed);
    expect(await rebuilt).toEqual({ analytics: 12, organizations: IDENTITY.length });
    expect((await usageOf(store, P, clock.now())).projectUsed).toBe(6);
    // Live batches after the swap are still applied once: the rebuilt checkpoints know every stream.
    const again = await module.projectors.analytics.applyEvents(
      RUNS.flatMap((run) => [...run.lifecycle, ...run.results]),
    );
    expect(again).toBe(0);
    await module.stop();
  });
});
