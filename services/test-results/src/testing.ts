import type { Server } from 'node:http';
import type { Role } from '@verdict/contracts';
import type { Router } from 'express';
import {
  createFilesystemBlobStore,
  createHttpApp,
  createMemoryCheckpointStore,
  createProjector,
  INTERNAL_IDENTITY_HEADER,
  listen,
  mintInternalToken,
  newSecret,
  silentLogger,
  systemClock,
  type Clock,
  type EventBus,
  type EventStore,
  type Projector,
  type SqlDatabase,
} from '@verdict/platform';
import {
  createTestResultsModule,
  testResultsReadModels,
  type TestResultsModule,
  type TestResultsSettings,
} from './module';
import { uniqueName } from '@verdict/platform/testing';
import { projectionSpec, type ProjectionSpecOptions } from '@verdict/platform/testing/projections';
import { readModelSchemas, type TestResultsReadModels, type TestResultsReadStore } from './readStore';

/**
 * FOR TESTS ONLY: the module's router behind the same HTTP stack its process runs (body limit, error
 * envelope), on a free loopback port.
 *
 * @example const { server, base } = await serveOverHttp(module); await fetch(`${base}/p1/test-runs`);
 */
export async function serveOverHttp(module: { router: Router }): Promise<{ server: Server; base: string }> {
  const { app, finish } = createHttpApp({
    logger: silentLogger(),
    service: 'test-results',
    bodyLimit: '10mb',
  });
  app.use(module.router);
  finish(app);
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  const address = server.address();
  return { server, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

/**
 * FOR TESTS ONLY: the module on a database and bus, its blobs under `blobDir`, with test settings (1 KiB
 * artifacts, a fresh URL-signing secret) that `settings` may override; not started.
 *
 * @example const module = testModule({ db, bus, blobDir }, { internalSecret: secret }); await module.start();
 */
export function testModule(
  ports: { db: SqlDatabase; bus: EventBus; blobDir: string; clock?: Clock },
  settings: Partial<TestResultsSettings> & Pick<TestResultsSettings, 'internalSecret'>,
): TestResultsModule {
  return createTestResultsModule(
    {
      db: ports.db,
      bus: ports.bus,
      blobs: createFilesystemBlobStore({ root: ports.blobDir }),
      checkpoints: createMemoryCheckpointStore(),
      clock: ports.clock ?? systemClock,
      logger: silentLogger(),
    },
    { artifactMaxBytes: 1024, publicUrl: 'http://localhost', urlSigningSecret: newSecret(32), ...settings },
  );
}

/**
 * FOR TESTS ONLY: the header the gateway forwards for user `u` of organization `o` in `projectId`, with the
 * public-api scope, as a member unless `role` says otherwise.
 *
 * @example await fetch(`${base}/p1/test-runs`, { headers: memberIdentity(secret, 'p1') });
 */
export function memberIdentity(
  secret: string,
  projectId: string,
  role: Role = 'member',
): Record<string, string> {
  const identity = {
    organizationId: 'o',
    projectId,
    userId: 'u',
    role,
    scopes: ['public-api'],
    tokenId: 't',
  };
  return { [INTERNAL_IDENTITY_HEADER]: mintInternalToken(identity, { secret }) };
}

/**
 * FOR TESTS ONLY: the projector of every read model, their schemas named under `prefix`
 * (`<prefix>_run_list`, …), with their tables created.
 *
 * @example const { projector, schemas } = await readModelsUnder(db, uniqueName('trr')); await projector.applyEvents(events);
 */
export async function readModelsUnder(
  db: SqlDatabase,
  prefix: string,
  rebuildFrom?: readonly EventStore[],
): Promise<{ projector: Projector; schemas: TestResultsReadModels }> {
  const schemas = readModelSchemas(prefix);
  const projector = createProjector({
    db,
    name: prefix,
    projections: testResultsReadModels(schemas, prefix),
    logger: silentLogger(),
    ...(rebuildFrom === undefined ? {} : { rebuildFrom }),
  });
  await projector.init();
  return { projector, schemas };
}

/**
 * FOR TESTS ONLY: a read-model slice under test on one database (a `describe.each(testDatabases())` case):
 * `spec()` is its projectionSpec, `read(schema)` the read store with the scenario's schema in the slice's
 * place and the other read models empty. The database opens before the suite and closes after it.
 *
 * @example const slice = sliceUnderTest(open, 'runList', runListProjection);
 */
export function sliceUnderTest(
  open: () => Promise<SqlDatabase>,
  slice: keyof TestResultsReadModels,
  projection: ProjectionSpecOptions['projection'],
) {
  let db: SqlDatabase;
  let others: TestResultsReadModels;
  beforeAll(async () => {
    db = await open();
    others = (await readModelsUnder(db, uniqueName('tre'))).schemas;
  });
  afterAll(() => db.close());
  return {
    spec: () => projectionSpec({ db, projection }),
    read: (schema: string): TestResultsReadStore => ({ db, schemas: { ...others, [slice]: schema } }),
  };
}
