import {
  ManualCaseAttachmentAdded,
  ManualCaseCreated,
  ManualCaseRevised,
  ManualReleaseCreated,
  ManualRunCaseUpdated,
  ManualRunCreated,
  ManualSessionCreated,
  ManualSessionUpdated,
  ManualSuiteCreated,
  ManualSuiteUpdated,
  TestResultRecorded,
  MembershipSet,
  UserCreated,
  type EventEnvelope,
} from '@verdict/contracts';
import {
  createInProcessBus,
  createMemoryCheckpointStore,
  createProjector,
  createSqlEventStore,
  silentLogger,
  type SqlDatabase,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { testDatabases } from '@verdict/platform/testing/databases';
import { DEFAULT_CONTENT } from './cases/decide';
import { linkedTestsProjection } from './links/linkedTests';
import { manualReadModels } from './module';
import { readModelSchemas, type ManualReadModels } from './shared/readStore';
import {
  identityEvents,
  PROJECT,
  startService,
  startWithUsers,
  TESTER,
  type RunningService,
} from './testing';

const at = '2026-03-01T10:00:00.000Z';
const by = 'user-1';
let global = 0;
const positions = new Map<string, number>();

function envelope(streamId: string, event: { type: string; version: number; data: unknown }): EventEnvelope {
  global += 1;
  const position = (positions.get(streamId) ?? 0) + 1;
  positions.set(streamId, position);
  return {
    eventId: `e-${global}`,
    type: event.type,
    version: event.version,
    streamId,
    streamPosition: position,
    globalPosition: global,
    occurredAt: at,
    correlationId: null,
    causationId: null,
    projectId: 'p1',
    data: event.data,
  };
}

/** One of every event the projections read. */
function history(): EventEnvelope[] {
  const content = { ...DEFAULT_CONTENT, title: 'Log in' };
  return [
    envelope(
      'user-ada',
      UserCreated.of({ userId: by, email: 'a@x.io', firstName: 'A', lastName: 'L', createdAt: at }),
    ),
    envelope(
      'membership-o1-ada',
      MembershipSet.of({ organizationId: 'o1', userId: by, role: 'owner', previousRole: null, setAt: at }),
    ),
    envelope(
      'mt-suite-s1',
      ManualSuiteCreated.of({
        suiteId: 's1',
        projectId: 'p1',
        fields: { name: 'S', description: '', parentId: null },
        by,
        at,
      }),
    ),
    envelope('mt-suite-s1', ManualSuiteUpdated.of({ suiteId: 's1', set: { name: 'S2' }, by, at })),
    envelope(
      'mt-case-c1',
      ManualCaseCreated.of({
        caseId: 'c1',
        projectId: 'p1',
        number: 1,
        content,
        comments: [{ id: 'k1', text: 'hi' }],
        issues: ['J-1'],
        by,
        at,
      }),
    ),
    envelope(
      'mt-case-c1',
      ManualCaseRevised.of({
        caseId: 'c1',
        revision: 2,
        set: { title: 'Sign in', suiteId: 's1' },
        previous: { title: 'Log in', suiteId: null },
        comments: [{ id: 'k2', text: 'again' }],
        issuesLinked: ['J-2'],
        by,
        at,
      }),
    ),
    envelope(
      'mt-case-c1',
      ManualCaseAttachmentAdded.of({
        caseId: 'c1',
        attachment: {
          id: 'a1',
          fileName: 'x.png',
          originalFileName: 'x.png',
          fileSize: 3,
          mimeType: 'image/png',
          blobKey: 'k/a1',
          stepRef: null,
        },
        by,
        at,
      }),
    ),
    envelope(
      'mt-release-r1',
      ManualReleaseCreated.of({
        releaseId: 'r1',
        projectId: 'p1',
        number: 1,
        fields: { name: '1.0', description: '', startDate: null, dueDate: null, status: 'planned' },
        by,
        at,
      }),
    ),
    envelope(
      'mt-run-u1',
      ManualRunCreated.of({
        runId: 'u1',
        projectId: 'p1',
        number: 1,
        name: 'R',
        description: '',
        releaseId: 'r1',
        assigneeUserId: null,
        cases: [{ refId: 'rc1', caseId: 'c1', number: 1, title: 'Log in', revision: 1 }],
        by,
        at,
      }),
    ),
    envelope(
      'mt-run-u1',
      ManualRunCaseUpdated.of({ runId: 'u1', refId: 'rc1', mode: 'quick', result: 'failed', by, at }),
    ),
    envelope(
      'mt-run-u1',
      ManualRunCaseUpdated.of({ runId: 'u1', refId: 'rc1', mode: 'detailed', comment: 'why', by, at }),
    ),
    envelope(
      'mt-session-x1',
      ManualSessionCreated.of({
        sessionId: 'x1',
        projectId: 'p1',
        fields: {
          charter: 'C',
          status: 'planned',
          notes: '',
          findings: [],
          releaseId: null,
          assigneeUserId: null,
        },
        by,
        at,
      }),
    ),
    envelope(
      'mt-session-x1',
      ManualSessionUpdated.of({ sessionId: 'x1', set: { status: 'completed' }, by, at }),
    ),
    envelope(
      'run-1-results',
      TestResultRecorded.of({
        runId: 'run-1',
        item: {
          file: 'a.spec.ts',
          titlePath: ['t @TC-1'],
          attempt: 0,
          status: 'passed',
          durationMs: 1,
          startedAt: at,
        },
      }),
    ),
  ];
}

/** The tables of each read model, by its key in ManualReadModels. */
const TABLES: [keyof ManualReadModels, string[]][] = [
  ['users', ['users', 'memberships']],
  ['suiteTree', ['suites']],
  ['caseList', ['cases', 'case_docs']],
  ['caseHistory', ['case_history']],
  ['runProgress', ['runs', 'run_cases']],
  ['releaseList', ['releases']],
  ['sessionList', ['sessions']],
  ['links', ['linked_tests']],
];

async function snapshot(db: SqlDatabase, schemas: ManualReadModels) {
  const result: Record<string, unknown[]> = {};
  for (const [model, tables] of TABLES) {
    for (const table of tables) {
      result[table] = (await db.query(`SELECT * FROM ${schemas[model]}.${table} ORDER BY 1, 2`)).rows;
    }
  }
  return result;
}

describe.each(testDatabases())('the read models on $name', (database) => {
  let db: SqlDatabase;
  beforeAll(async () => {
    db = await database.open();
  });
  afterAll(async () => {
    await db.close();
  });

  it('when the same events are applied twice to every read model, then they are as after once, even past their checkpoints', async () => {
    const prefix = uniqueName('mtp');
    const schemas = readModelSchemas(prefix, `${prefix}_links`);
    const projections = [...manualReadModels(schemas, prefix), linkedTestsProjection(schemas.links)];
    const projector = createProjector({ db, name: prefix, projections, logger: silentLogger() });
    await projector.init();
    const events = history();
    // Each event reaches the slices that read its type (the three case events two: list and history),
    // and the links model reads every event: 13 + 3 + 14.
    expect(events).toHaveLength(14);
    expect(await projector.applyEvents(events)).toBe(30);
    const once = await snapshot(db, schemas);
    expect(await projector.applyEvents(events)).toBe(0);
    // Past the checkpoints too: the statements themselves are upserts guarded by position.
    await db.transaction(async (tx) => {
      for (const projection of projections) {
        const handled = events.filter((event) => projection.canHandle?.includes(event.type) ?? true);
        await projection.apply(tx, handled, projection.name);
      }
    });
    expect(await snapshot(db, schemas)).toEqual(once);
    expect(Object.values(once).every((rows) => rows.length > 0)).toBe(true);
  });
});

describe.each(testDatabases())('an upgrade from the single read model on $name', (database) => {
  let db: SqlDatabase;
  beforeAll(async () => {
    db = await database.open();
  });
  afterAll(async () => {
    await db.close();
  });

  /** Every read of the service over what the scenario wrote (signed URLs left out: they carry an expiry). */
  async function answers(service: RunningService) {
    const reads = [
      '/manual-tests?limit=100',
      '/manual-tests?status=active&sortBy=title',
      '/manual-tests?search=sign',
      '/manual-test-cases/TC-1',
      '/manual-test-cases/TC-2/history',
      '/manual-suites',
      '/manual-runs',
      '/manual-runs/RUN-1',
      '/releases',
      '/releases/MS-1',
      '/sessions',
    ];
    const all: Record<string, unknown> = {};
    for (const read of reads) {
      const answer = await service.call('GET', `/${PROJECT}${read}`);
      expect(answer.status).toBe(200);
      all[read] = JSON.parse(JSON.stringify(answer.body), (key, value: unknown) =>
        key === 'blobUrl' ? undefined : value,
      );
    }
    return all;
  }

  it('when a deployment of the single read model starts with the slices, then they are rebuilt from position 0, answer the same, and the old schema is gone', async () => {
    const bus = createInProcessBus();
    const checkpoints = createMemoryCheckpointStore();
    const identitySchema = uniqueName('gwi');
    const identityStore = createSqlEventStore({ db, schema: identitySchema });
    await identityStore.init();
    // The users the gateway's store holds (what a rebuild reads) and its relay published.
    for (const event of identityEvents()) {
      const data = event.data as { userId: string; organizationId?: string };
      const streamId = event.type === 'user.created' ? `user-${data.userId}` : `member-${data.userId}`;
      await identityStore.append(streamId, [event], { expectedVersion: 'any' });
    }
    const first = await startWithUsers(db, { bus, checkpoints });
    const names = { ...first.names, identityStoreSchema: identitySchema };
    const write = async (method: string, url: string, body: unknown) => {
      const answer = await first.call(method, `/${PROJECT}${url}`, body);
      if (answer.status >= 300) throw new Error(`${method} ${url}: ${JSON.stringify(answer.body)}`);
      return answer.body.data as { _id: string };
    };
    const suite = await write('POST', '/manual-suites', { name: 'Checkout' });
    await write('POST', '/manual-suites', { name: 'Cart', parentId: suite._id });
    await write('POST', '/manual-test-cases', { title: 'Log in', suiteId: suite._id, status: 'active' });
    await write('POST', '/manual-test-cases', { title: 'Pay', tags: ['smoke'] });
    await write('PATCH', '/manual-test-cases/TC-2', { title: 'Sign and pay', priority: 'high' });
    await write('PATCH', '/manual-test-cases/TC-2', { comments: ['checked on staging'], issues: ['JIRA-7'] });
    await write('POST', '/releases', { name: '1.0', startDate: '2026-03-01' });
    await write('POST', '/manual-runs', {
      name: 'Regression',
      releaseId: 'MS-1',
      assigneeUserId: TESTER.email,
    });
    const run = await first.call('GET', `/${PROJECT}/manual-runs/RUN-1`);
    const runCase = (run.body.data as { testCases: { _id: string }[] }).testCases[0]?._id ?? '';
    await write('PATCH', `/manual-runs/RUN-1/test-cases/${runCase}`, { result: 'failed', elapsed: 30 });
    await write('PATCH', `/manual-runs/RUN-1/test-cases/${runCase}`, { comment: 'declined' });
    await write('PATCH', '/manual-test-cases/TC-1', { title: 'Log in with SSO' });
    await write('POST', '/sessions', { charter: 'Explore refunds', releaseId: 'MS-1' });
    const before = await answers(first);
    await first.stop();

    // What the single read model left: its schema (checkpoints at the head of every stream it applied,
    // its tables) and a consumer that has read everything; no slices.
    const schemas = readModelSchemas(names.readModelSchema, names.linksSchema);
    const legacy = names.readModelSchema;
    const applied = await db.query(`SELECT * FROM ${schemas.caseList}.projection_checkpoints`);
    expect(applied.rows.length).toBeGreaterThan(0);
    for (const [model, schema] of Object.entries(schemas)) {
      if (model !== 'links') await db.exec(`DROP SCHEMA ${schema} CASCADE`);
    }
    await db.exec(`CREATE SCHEMA ${legacy}`);
    await db.exec(
      `CREATE TABLE ${legacy}.projection_checkpoints (stream_id text PRIMARY KEY, stream_position integer NOT NULL)`,
    );
    await db.exec(`CREATE TABLE ${legacy}.cases (id text PRIMARY KEY, project_id text NOT NULL)`);

    const second = await startService(db, { bus, checkpoints, names });
    try {
      expect(await answers(second)).toEqual(before);
      const left = await db.query(`SELECT nspname FROM pg_namespace WHERE nspname = $1`, [legacy]);
      expect(left.rows).toEqual([]);
    } finally {
      await second.stop();
      await bus.close();
    }
  });
});
