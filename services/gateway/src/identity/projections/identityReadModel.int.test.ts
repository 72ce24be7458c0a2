import {
  FREE_PLAN,
  MembershipSet,
  OrganizationCreated,
  ProjectCreated,
  TokenIssued,
  TokenRevoked,
  UserCreated,
} from '@verdict/contracts';
import {
  createProjector,
  createSqlEventStore,
  silentLogger,
  START,
  waitForProjection,
  type EventStore,
  type SqlDatabase,
  type StoredEvent,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { ADAPTERS, type Adapters } from '../testing/setups';
import { createSqlIdentityDirectory, identityProjection } from './identityReadModel';

const at = '2026-03-01T10:00:00.000Z';
const hash = 'b'.repeat(64);

/** One of each identity event, in the streams the aggregates write them to. */
async function appendHistory(store: EventStore): Promise<StoredEvent[]> {
  await store.append(
    'organization-o1',
    [
      OrganizationCreated.of({ organizationId: 'o1', name: 'Acme', plan: FREE_PLAN, createdAt: at }),
      ProjectCreated.of({
        projectId: 'p1',
        organizationId: 'o1',
        name: 'Web',
        allocation: 100,
        createdAt: at,
      }),
      MembershipSet.of({ organizationId: 'o1', userId: 'u1', role: 'viewer', previousRole: null, setAt: at }),
      MembershipSet.of({
        organizationId: 'o1',
        userId: 'u1',
        role: 'owner',
        previousRole: 'viewer',
        setAt: '2026-03-01T11:00:00.000Z',
      }),
    ],
    { expectedVersion: 'no_stream' },
  );
  await store.append(
    'user-ada@example.org',
    [
      UserCreated.of({
        userId: 'u1',
        email: 'Ada@Example.org',
        firstName: 'Ada',
        lastName: 'L',
        createdAt: at,
      }),
    ],
    { expectedVersion: 'no_stream' },
  );
  await store.append(
    'token-t1',
    [
      TokenIssued.of({
        tokenId: 't1',
        kind: 'personal',
        name: null,
        ownerUserId: 'u1',
        projectIds: ['p1'],
        scopes: ['public-api'],
        secretHash: hash,
        expiresAt: null,
        createdAt: at,
      }),
      TokenRevoked.of({ tokenId: 't1', revokedAt: '2026-03-02T00:00:00.000Z' }),
    ],
    { expectedVersion: 'no_stream' },
  );
  return (await store.readAll({ after: START, limit: 100 })).events;
}

async function snapshot(db: SqlDatabase, schema: string) {
  const tables = ['organizations', 'projects', 'users', 'memberships', 'tokens'];
  const entries = await Promise.all(
    tables.map(async (table) => [
      table,
      (await db.query(`SELECT * FROM ${schema}.${table} ORDER BY 1, 2`)).rows,
    ]),
  );
  return Object.fromEntries(entries);
}

describe.each(ADAPTERS)('identity read model on %s', (_name, makeAdapters) => {
  let adapters: Adapters;
  let store: EventStore;
  let events: StoredEvent[];

  beforeAll(async () => {
    adapters = await makeAdapters();
    store = createSqlEventStore({ db: adapters.db, schema: uniqueName('idstore') });
    await store.init();
    events = await appendHistory(store);
  });
  afterAll(async () => {
    await adapters.close();
  });

  it('when the same events are applied twice, then the read model is the same as after once', async () => {
    const schema = uniqueName('idmodel');
    const projector = createProjector({
      db: adapters.db,
      projection: identityProjection(schema),
      logger: silentLogger(),
    });
    await projector.init();
    expect(await projector.applyEvents(events)).toBe(events.length);
    const once = await snapshot(adapters.db, schema);
    expect(await projector.applyEvents(events)).toBe(0);
    expect(await snapshot(adapters.db, schema)).toEqual(once);
    expect(once.tokens).toHaveLength(1);
    expect(once.memberships).toEqual([expect.objectContaining({ user_id: 'u1', role: 'owner' })]);
  });

  it('when the projection itself gets the events twice (no checkpoints), then every table is the same as after once', async () => {
    const schema = uniqueName('idmodel');
    const projection = identityProjection(schema);
    await adapters.db.transaction(async (tx) => {
      await tx.query(`CREATE SCHEMA ${schema}`);
      await projection.setup(tx, schema);
    });
    await adapters.db.transaction((tx) => projection.apply(tx, events, schema));
    const once = await snapshot(adapters.db, schema);
    await adapters.db.transaction((tx) => projection.apply(tx, events, schema));
    expect(await snapshot(adapters.db, schema)).toEqual(once);
  });

  it('when the model holds the history, then the directory answers tokens, projects and roles from it', async () => {
    const schema = uniqueName('idmodel');
    const projector = createProjector({
      db: adapters.db,
      projection: identityProjection(schema),
      logger: silentLogger(),
    });
    await projector.init();
    await projector.applyEvents(events);
    const directory = createSqlIdentityDirectory(adapters.db, schema);
    expect(await directory.findToken('t1')).toEqual({
      id: 't1',
      kind: 'personal',
      name: null,
      ownerUserId: 'u1',
      projectIds: ['p1'],
      scopes: ['public-api'],
      secretHash: hash,
      createdAt: at,
      expiresAt: null,
      revokedAt: '2026-03-02T00:00:00.000Z',
      ownerRoles: { o1: 'owner' },
    });
    expect(await directory.findProject('p1')).toEqual({ id: 'p1', name: 'Web', organizationId: 'o1' });
    expect(await directory.roleOf('u1', 'o1')).toBe('owner');
    expect(await directory.roleOf('u1', 'o2')).toBeNull();
    expect(await directory.findToken('t2')).toBeNull();
    expect(await directory.findProject('p2')).toBeNull();
    expect(await directory.findUser('u1')).toEqual({
      id: 'u1',
      email: 'Ada@Example.org',
      firstName: 'Ada',
      lastName: 'L',
      createdAt: at,
    });
    expect(await directory.hasOrganizations()).toBe(true);
  });

  it('when an event that is not an identity event arrives, then the batch fails instead of skipping it', async () => {
    const schema = uniqueName('idmodel');
    const projector = createProjector({
      db: adapters.db,
      projection: identityProjection(schema),
      logger: silentLogger(),
    });
    await projector.init();
    const stranger = { ...events[0], eventId: 'x', streamId: 'other-1', type: 'run.started' } as StoredEvent;
    await expect(projector.applyEvents([stranger])).rejects.toThrow(/Not an identity event/);
  });

  it('when the projection has reached a stream position, then waitForProjection resolves; when it has not, it answers SERVICE_UNAVAILABLE', async () => {
    const schema = uniqueName('idmodel');
    const projector = createProjector({
      db: adapters.db,
      projection: identityProjection(schema),
      logger: silentLogger(),
    });
    await projector.init();
    await projector.applyEvents(events);
    await expect(waitForProjection(adapters.db, schema, 'token-t1', 2)).resolves.toBeUndefined();
    await expect(
      waitForProjection(adapters.db, schema, 'token-t1', 3, { timeoutMs: 50 }),
    ).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      retriable: true,
    });
    await expect(
      waitForProjection(adapters.db, schema, 'token-t9', 1, { timeoutMs: 50 }),
    ).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
  });

  it('when the projection catches up while a writer waits, then waitForProjection resolves', async () => {
    const schema = uniqueName('idmodel');
    const projector = createProjector({
      db: adapters.db,
      projection: identityProjection(schema),
      logger: silentLogger(),
    });
    await projector.init();
    const waiting = waitForProjection(adapters.db, schema, 'organization-o1', 4, { timeoutMs: 60_000 });
    await projector.applyEvents(events.slice(0, 2));
    await projector.applyEvents(events.slice(2));
    await expect(waiting).resolves.toBeUndefined();
  });
});
