import { Router } from 'express';
import { testResultsIngestRoutes, type RouteSpec } from '@verdict/contracts';
import {
  createOutboxRelay,
  createSqlEventStore,
  registerRoutes,
  requireInternalIdentity,
  type BlobStore,
  type CheckpointStore,
  type Clock,
  type EventBus,
  type Logger,
  type SqlDatabase,
} from '@verdict/platform';
import { ingestRoutes } from './http/ingest.http';
import { createIngest, type Ingest } from './runs/ingest';

/** The test-results event store schema and the topic its events travel on, keyed by project. */
export const TEST_RESULTS_SCHEMA = 'test_results';
export const TEST_RESULTS_TOPIC = 'test-results';

export interface TestResultsPorts {
  db: SqlDatabase;
  bus: EventBus;
  blobs: BlobStore;
  /** SQL checkpoints in the distributed mode; memory in the embedded mode, where the bus is in memory too. */
  checkpoints: CheckpointStore;
  clock: Clock;
  logger: Logger;
}

export interface TestResultsSettings {
  /** Verifies the gateway's internal JWT on every request. */
  internalSecret: string;
  /** Largest artifact accepted, in bytes. */
  artifactMaxBytes: number;
  names?: { storeSchema?: string; topic?: string };
}

export interface TestResultsModule {
  /** Every route, behind the internal-identity check; mount it where the gateway forwards to. */
  router: Router;
  routes: RouteSpec[];
  ingest: Ingest;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The routes the gateway forwards to this service (it needs them without importing the service). */
export const testResultsRoutes: RouteSpec[] = testResultsIngestRoutes;

/**
 * The test-results service on its ports: ingest into its event store, relayed to its topic.
 *
 * @example const results = createTestResultsModule(ports, settings); await results.start(); app.use(results.router);
 */
export function createTestResultsModule(
  ports: TestResultsPorts,
  settings: TestResultsSettings,
): TestResultsModule {
  const schema = settings.names?.storeSchema ?? TEST_RESULTS_SCHEMA;
  const topic = settings.names?.topic ?? TEST_RESULTS_TOPIC;
  const logger = ports.logger.child({ component: 'test-results' });
  const store = createSqlEventStore({ db: ports.db, schema, clock: ports.clock });
  // Keyed by project: one run's lifecycle, results and artifacts (several streams) stay in commit order.
  const relay = createOutboxRelay({
    name: `${schema}.relay`,
    store,
    bus: ports.bus,
    checkpoints: ports.checkpoints,
    route: (event) => ({ topic, key: event.projectId ?? event.streamId }),
    logger,
  });
  const ingest = createIngest({ store, clock: ports.clock, onAppended: () => relay.notify() });
  const router = Router();
  router.use(requireInternalIdentity({ secret: settings.internalSecret, clock: ports.clock }));
  registerRoutes(
    router,
    ingestRoutes({ ingest, blobs: ports.blobs, artifactMaxBytes: settings.artifactMaxBytes }),
  );
  return {
    router,
    routes: testResultsRoutes,
    ingest,
    async start() {
      await store.init();
      await ports.bus.ensureTopics([topic]);
      relay.start();
      logger.info({ topic, schema }, 'test-results started');
    },
    stop: () => relay.stop(),
  };
}
