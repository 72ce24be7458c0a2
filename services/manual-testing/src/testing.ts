import type { SqlDatabase } from '@verdict/platform';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  MembershipSet,
  UserCreated,
  type EventEnvelope,
  type ResultItem,
  TestResultRecorded,
} from '@verdict/contracts';
import {
  createFilesystemBlobStore,
  createHttpApp,
  createInProcessBus,
  createMemoryCheckpointStore,
  createProjector,
  INTERNAL_IDENTITY_HEADER,
  listen,
  mintInternalToken,
  newId,
  newSecret,
  silentLogger,
  systemClock,
  toMessage,
  type CheckpointStore,
  type Clock,
  type EventBus,
  type InternalIdentity,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { projectionSpec, type ProjectionSpecOptions } from '@verdict/platform/testing/projections';
import { linkedTestsProjection } from './links/linkedTests';
import {
  createManualTestingModule,
  manualReadModels,
  type ManualTestingModule,
  type ManualTestingSettings,
} from './module';
import { readModelSchemas, type ManualReadModels, type ManualReadStore } from './shared/readStore';

// ---------------------------------------------------------------------------------------------------------
// FOR TESTS ONLY: the module mounted in an HTTP app, called as the gateway would (internal JWT).

export const ORGANIZATION = 'org-1';
export const PROJECT = 'project-1';
export const OWNER = { userId: 'user-ada', email: 'Ada@Example.com', firstName: 'Ada', lastName: 'Lovelace' };
export const TESTER = { userId: 'user-bob', email: 'bob@example.com', firstName: 'Bob', lastName: 'Tester' };

export interface Answer<T = unknown> {
  status: number;
  body: { success: boolean; data: T; pagination?: unknown; error?: { code: string; message: string } };
}

type ServiceNames = Required<
  Pick<
    NonNullable<ManualTestingSettings['names']>,
    'storeSchema' | 'topic' | 'readModelSchema' | 'linksSchema' | 'identityTopic' | 'testResultsTopic'
  >
> &
  NonNullable<ManualTestingSettings['names']>;

export interface RunningService {
  module: ManualTestingModule;
  base: string;
  bus: EventBus;
  names: ServiceNames;
  // Answers are read field by field in tests; typing each one would say nothing the assertions don't.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call<T = any>(
    method: string,
    url: string,
    body?: unknown,
    as?: Partial<InternalIdentity>,
  ): Promise<Answer<T>>;
  /** Publishes events on the identity topic as the gateway's relay would. */
  publishIdentity(events: { type: string; version: number; data: unknown }[]): Promise<void>;
  /** Publishes automated results on the test-results topic as its relay would. */
  publishResults(projectId: string, runId: string, items: ResultItem[]): Promise<void>;
  stop(): Promise<void>;
}

let position = 0;
function envelopeOf(
  streamId: string,
  event: { type: string; version: number; data: unknown },
  projectId: string | null,
): EventEnvelope {
  position += 1;
  return {
    eventId: newId(),
    type: event.type,
    version: event.version,
    streamId,
    streamPosition: 1,
    globalPosition: position,
    occurredAt: new Date().toISOString(),
    correlationId: null,
    causationId: null,
    projectId,
    data: event.data,
  };
}

export interface ServiceOptions {
  bus?: EventBus;
  clock?: Clock;
  /** The relay's checkpoints: given, a service started again on the same bus publishes nothing twice. */
  checkpoints?: CheckpointStore;
  /** Schemas and topics (those of a service started before, to start it again); unique ones otherwise. */
  names?: ServiceNames;
}

export async function startService(db: SqlDatabase, options: ServiceOptions = {}): Promise<RunningService> {
  const secret = newSecret(32);
  const bus = options.bus ?? createInProcessBus();
  const blobDir = mkdtempSync(path.join(tmpdir(), 'verdict-manual-'));
  const names: ServiceNames = options.names ?? {
    storeSchema: uniqueName('mt'),
    topic: uniqueName('mt'),
    readModelSchema: uniqueName('mtr'),
    linksSchema: uniqueName('mtl'),
    identityTopic: uniqueName('identity'),
    testResultsTopic: uniqueName('results'),
  };
  const module = createManualTestingModule(
    {
      db,
      bus,
      blobs: createFilesystemBlobStore({ root: blobDir }),
      checkpoints: options.checkpoints ?? createMemoryCheckpointStore(),
      clock: options.clock ?? systemClock,
      logger: silentLogger(),
    },
    {
      internalSecret: secret,
      publicUrl: 'http://localhost',
      urlSigningSecret: newSecret(32),
      attachmentMaxBytes: 1024,
      names,
    },
  );
  await module.start();
  const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'manual-testing' });
  app.use(module.router);
  finish(app);
  const server: Server = await listen(app, { host: '127.0.0.1', port: 0 });
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const streams = new Map<string, number>();
  const publish = async (
    topic: string,
    key: string,
    streamId: string,
    event: { type: string; version: number; data: unknown },
    projectId: string | null,
  ) => {
    const envelope = envelopeOf(streamId, event, projectId);
    const at = (streams.get(streamId) ?? 0) + 1;
    streams.set(streamId, at);
    await bus.publish(topic, [toMessage({ ...envelope, streamPosition: at }, key)]);
  };
  const service: RunningService = {
    module,
    base,
    bus,
    names,
    async call(method, url, body, as = {}) {
      const identity: InternalIdentity = {
        organizationId: ORGANIZATION,
        projectId: PROJECT,
        userId: OWNER.userId,
        role: 'owner',
        scopes: ['public-api'],
        tokenId: 'token-1',
        ...as,
      };
      const headers: Record<string, string> = {
        [INTERNAL_IDENTITY_HEADER]: mintInternalToken(identity, { secret }),
      };
      // A FormData body sets its own multipart content type.
      const form = body instanceof FormData;
      if (body !== undefined && !form) headers['content-type'] = 'application/json';
      const response = await fetch(`${base}${url}`, {
        method,
        headers,
        body: body === undefined ? null : form || typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Answer<never>['body'] };
    },
    async publishIdentity(events) {
      for (const event of events) {
        const data = event.data as { userId?: string; organizationId?: string; email?: string };
        const streamId =
          event.type === 'user.created'
            ? `user-${data.email ?? ''}`
            : `organization-${data.organizationId ?? ''}`;
        await publish(names.identityTopic, streamId, streamId, event, null);
      }
    },
    async publishResults(projectId, runId, items) {
      for (const item of items) {
        await publish(
          names.testResultsTopic,
          projectId,
          `run-${runId}-results`,
          TestResultRecorded.of({ runId, item }),
          projectId,
        );
      }
    },
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await module.stop();
      if (!options.bus) await bus.close();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
  return service;
}

/** The organization's two users, as the identity topic announces them. */
export function identityEvents() {
  const at = new Date().toISOString();
  return [OWNER, TESTER].flatMap((user) => [
    UserCreated.of({
      userId: user.userId,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      createdAt: at,
    }),
    MembershipSet.of({
      organizationId: ORGANIZATION,
      userId: user.userId,
      role: user === OWNER ? 'owner' : 'member',
      previousRole: null,
      setAt: at,
    }),
  ]);
}

/**
 * Starts the service and announces the organization's users on the identity topic; resolves once the
 * read model knows them.
 */
export async function startWithUsers(db: SqlDatabase, options: ServiceOptions = {}) {
  const service = await startService(db, options);
  await service.publishIdentity(identityEvents());
  await eventually(async () => {
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${service.names.readModelSchema}_users.memberships`,
    );
    return rows[0]?.n === 2;
  });
  return service;
}

/** Polls until `check` holds (asynchronous projections from another topic); fails after 30 s. */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Every read model of the service, empty, in schemas of its own: a slice's test reads its projectionSpec
 * schema in their place (`readStoreOf(db, { ...others, caseList: schema })`), the rest joins empty tables.
 */
export async function emptyReadModels(db: SqlDatabase): Promise<ManualReadModels> {
  const prefix = uniqueName('mte');
  const schemas = readModelSchemas(prefix, `${prefix}_links`);
  const projections = [...manualReadModels(schemas, prefix), linkedTestsProjection(schemas.links)];
  await createProjector({ db, name: prefix, projections, logger: silentLogger() }).init();
  return schemas;
}

/** The read store the queries take, on these schemas; a blob URL is its key. */
export const readStoreOf = (db: SqlDatabase, schemas: ManualReadModels): ManualReadStore => ({
  db,
  schemas,
  signBlobUrl: (key) => `blob:${key}`,
});

/**
 * A read-model slice under test on one database (a `describe.each(testDatabases())` case): `spec()` is its
 * projectionSpec, `read(schema)` the read store with the scenario's schema in the slice's place and the
 * other read models empty. The database opens before the suite and closes after it.
 *
 * @example const slice = sliceUnderTest(open, 'releaseList', releaseListProjection);
 */
export function sliceUnderTest(
  open: () => Promise<SqlDatabase>,
  slice: keyof ManualReadModels,
  projection: ProjectionSpecOptions['projection'],
) {
  let db: SqlDatabase;
  let others: ManualReadModels;
  beforeAll(async () => {
    db = await open();
    others = await emptyReadModels(db);
  });
  afterAll(() => db.close());
  return {
    spec: () => projectionSpec({ db, projection }),
    read: (schema: string): ManualReadStore => readStoreOf(db, { ...others, [slice]: schema }),
  };
}

/**
 * The service with the organization's users on one database, for a route test (a
 * `describe.each(testDatabases())` case). `project()` calls it in a fresh project (or the one named) as
 * its owner; `as` changes the caller (a role, a user). Started before the suite and stopped after it.
 *
 * @example const { project } = serviceUnderTest(database.open); const p = project(); await p.post('/manual-suites', { name: 'Shop' });
 */
export function serviceUnderTest(open: () => Promise<SqlDatabase>, options: ServiceOptions = {}) {
  let db: SqlDatabase;
  let service: RunningService;
  beforeAll(async () => {
    db = await open();
    service = await startWithUsers(db, options);
  });
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  function project(projectId = uniqueName('p')) {
    const call = (method: string, url: string, body: unknown, as: Partial<InternalIdentity>) =>
      service.call(method, `/${projectId}${url}`, body, { projectId, ...as });
    return {
      projectId,
      get: (url: string, as: Partial<InternalIdentity> = {}) => call('GET', url, undefined, as),
      post: (url: string, body: unknown, as: Partial<InternalIdentity> = {}) => call('POST', url, body, as),
      patch: (url: string, body: unknown, as: Partial<InternalIdentity> = {}) => call('PATCH', url, body, as),
      delete: (url: string, as: Partial<InternalIdentity> = {}) => call('DELETE', url, undefined, as),
    };
  }
  return { project, service: () => service };
}
