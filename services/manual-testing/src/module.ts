import { Router } from 'express';
import { manualTestingRoutes, SIGNED_DOWNLOAD_PATH, type RouteSpec } from '@verdict/contracts';
import {
  createOutboxRelay,
  createProjector,
  createSqlEventStore,
  DEFAULT_SIGNED_URL_TTL_MS,
  registerRoutes,
  requireInternalIdentity,
  signBlobUrl,
  type BlobStore,
  type CheckpointStore,
  type Clock,
  type EventBus,
  type Logger,
  type Projection,
  type Projector,
  type SqlDatabase,
  type Subscription,
} from '@verdict/platform';
import { caseHistoryProjection } from './cases/caseHistory';
import { caseListProjection } from './cases/caseList';
import { caseRoutes } from './cases/routes';
import { LINKS_READ_MODEL, linkedTestsProjection } from './links/linkedTests';
import { releaseListProjection } from './releases/releaseList';
import { releaseRoutes } from './releases/routes';
import { runProgressProjection } from './runs/runProgress';
import { runRoutes } from './runs/routes';
import { sessionRoutes } from './sessions/routes';
import { sessionListProjection } from './sessions/sessionList';
import { readModelSchemas, type ManualReadModels, type ManualReadStore } from './shared/readStore';
import type { RouteDeps } from './shared/routeDeps';
import { createWrites } from './shared/writes';
import { suiteRoutes } from './suites/routes';
import { suiteTreeProjection } from './suites/suiteTree';
import { userDirectoryProjection } from './users/userDirectory';

/**
 * The name of the projector of the service's read models (its consumer group), the prefix of their schemas,
 * and the schema of the single read model they replaced.
 */
export const MANUAL_READ_MODEL = 'manual_testing_read';

/**
 * The read models of the service's own topic and of identity, one per slice, run by one projector (one
 * transaction per batch). Each takes over from the single read model of earlier versions (`legacy`): an
 * existing deployment's is rebuilt from position 0 into the slices at start, then dropped.
 */
export function manualReadModels(schemas: ManualReadModels, legacy: string): Projection[] {
  const slices = [
    userDirectoryProjection(schemas.users),
    suiteTreeProjection(schemas.suiteTree),
    caseListProjection(schemas.caseList),
    caseHistoryProjection(schemas.caseHistory),
    runProgressProjection(schemas.runProgress),
    releaseListProjection(schemas.releaseList),
    sessionListProjection(schemas.sessionList),
  ];
  return slices.map((projection) => ({ ...projection, replaces: [legacy] }));
}

/** The manual-testing event store schema and the topic its events travel on, keyed by project. */
export const MANUAL_TESTING_SCHEMA = 'manual_testing';
export const MANUAL_TESTING_TOPIC = 'manual-testing';
/** The topics this service consumes besides its own (names of the gateway and test-results). */
export const IDENTITY_TOPIC = 'identity';
export const TEST_RESULTS_TOPIC = 'test-results';
/** The event stores of the gateway's identity and of test-results (same database), for rebuilds. */
export const IDENTITY_STORE = 'gateway_identity';
export const TEST_RESULTS_STORE = 'test_results';

export interface ManualTestingPorts {
  db: SqlDatabase;
  bus: EventBus;
  blobs: BlobStore;
  /** SQL checkpoints in the distributed mode; memory in the embedded mode, where the bus is in memory too. */
  checkpoints: CheckpointStore;
  clock: Clock;
  logger: Logger;
}

export interface ManualTestingSettings {
  /** Verifies the gateway's internal JWT on every request. */
  internalSecret: string;
  /** VERDICT_PUBLIC_URL: the base of signed attachment URLs. */
  publicUrl: string;
  /** Signs attachment download URLs; the gateway verifies them with the same secret. */
  urlSigningSecret: string;
  /** Largest attachment accepted, in bytes. */
  attachmentMaxBytes: number;
  /** How long a write waits for the read model before answering 503 (default 10 s). */
  readYourWritesTimeoutMs?: number;
  names?: {
    storeSchema?: string;
    topic?: string;
    /** The projector of the read models, and the prefix of their schemas (`<prefix>_case_list`, …). */
    readModelSchema?: string;
    linksSchema?: string;
    identityTopic?: string;
    testResultsTopic?: string;
    /** The event stores (same database) the read models are rebuilt from when their version moves on. */
    identityStoreSchema?: string;
    testResultsStoreSchema?: string;
  };
}

export interface ManualTestingModule {
  /** Every route, behind the internal-identity check; mount it where the gateway forwards to. */
  router: Router;
  routes: readonly RouteSpec[];
  readModel: Projector;
  links: Projector;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The manual-testing service on its ports: commands into its event store, relayed to its topic, projected
 * (with identity's users and test-results' automated results) into the read models the routes query.
 *
 * @example const manual = createManualTestingModule(ports, settings); await manual.start(); app.use(manual.router);
 */
export function createManualTestingModule(
  ports: ManualTestingPorts,
  settings: ManualTestingSettings,
): ManualTestingModule {
  const names = settings.names ?? {};
  const schema = names.storeSchema ?? MANUAL_TESTING_SCHEMA;
  const topic = names.topic ?? MANUAL_TESTING_TOPIC;
  const identityTopic = names.identityTopic ?? IDENTITY_TOPIC;
  const testResultsTopic = names.testResultsTopic ?? TEST_RESULTS_TOPIC;
  const readSchema = names.readModelSchema ?? MANUAL_READ_MODEL;
  const linksSchema = names.linksSchema ?? LINKS_READ_MODEL;
  const schemas = readModelSchemas(readSchema, linksSchema);
  const logger = ports.logger.child({ component: 'manual-testing' });
  const store = createSqlEventStore({ db: ports.db, schema, clock: ports.clock });
  // Keyed by project: a run and the cases it pins stay in commit order for every consumer.
  const relay = createOutboxRelay({
    name: `${schema}.relay`,
    store,
    bus: ports.bus,
    checkpoints: ports.checkpoints,
    route: (event) => ({ topic, key: event.projectId ?? event.streamId }),
    logger,
  });
  const storeOf = (storeSchema: string) => createSqlEventStore({ db: ports.db, schema: storeSchema });
  // Each is rebuilt at start from the stores of the topics it consumes when its version moves on.
  const readModel = createProjector({
    db: ports.db,
    name: readSchema,
    projections: manualReadModels(schemas, readSchema),
    logger,
    rebuildFrom: [store, storeOf(names.identityStoreSchema ?? IDENTITY_STORE)],
  });
  const links = createProjector({
    db: ports.db,
    projection: linkedTestsProjection(linksSchema),
    logger,
    rebuildFrom: [storeOf(names.testResultsStoreSchema ?? TEST_RESULTS_STORE)],
  });
  const writes = createWrites({
    store,
    db: ports.db,
    // One transaction applies a batch to every slice: any slice's checkpoints say what all of them hold.
    readModel: schemas.caseList,
    onAppended: () => relay.notify(),
    ...(settings.readYourWritesTimeoutMs === undefined
      ? {}
      : { readYourWritesTimeoutMs: settings.readYourWritesTimeoutMs }),
  });
  const read: ManualReadStore = {
    db: ports.db,
    schemas,
    counts: new Map(),
    signBlobUrl: (key) =>
      signBlobUrl({
        baseUrl: settings.publicUrl,
        path: SIGNED_DOWNLOAD_PATH,
        key,
        expiresAt: new Date(ports.clock.now().getTime() + DEFAULT_SIGNED_URL_TTL_MS),
        secret: settings.urlSigningSecret,
      }),
  };
  const deps: RouteDeps = {
    writes,
    read,
    clock: ports.clock,
    blobs: ports.blobs,
    attachmentMaxBytes: settings.attachmentMaxBytes,
    logger,
  };
  const router = Router();
  router.use(requireInternalIdentity({ secret: settings.internalSecret, clock: ports.clock }));
  registerRoutes(router, [
    ...caseRoutes(deps),
    ...suiteRoutes(deps),
    ...runRoutes(deps),
    ...releaseRoutes(deps),
    ...sessionRoutes(deps),
  ]);
  const subscriptions: Subscription[] = [];
  return {
    router,
    routes: manualTestingRoutes,
    readModel,
    links,
    async start() {
      await store.init();
      await readModel.init();
      await links.init();
      await ports.bus.ensureTopics([topic, identityTopic, testResultsTopic]);
      subscriptions.push(await readModel.subscribe(ports.bus, [topic, identityTopic]));
      subscriptions.push(await links.subscribe(ports.bus, [testResultsTopic]));
      relay.start();
      logger.info({ topic, schema }, 'manual-testing started');
    },
    async stop() {
      await relay.stop();
      for (const subscription of subscriptions.splice(0)) await subscription.stop();
    },
  };
}
