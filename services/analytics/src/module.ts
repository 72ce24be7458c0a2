import { Router } from 'express';
import { Counter, Gauge, type Registry } from 'prom-client';
import { analyticsRoutes as analyticsRouteSpecs, type RouteSpec } from '@verdict/contracts';
import {
  createProjector,
  createSqlEventStore,
  eventOfMessage,
  registerRoutes,
  replayedEventIds,
  requireInternalIdentity,
  type Clock,
  type EventBus,
  type EventStore,
  type Logger,
  type Projector,
  type SqlDatabase,
  type Subscription,
} from '@verdict/platform';
import { createAnalyticsRoutes } from './routes';
import { analyticsProjection, ANALYTICS_READ_MODEL } from './projections/analyticsReadModel';
import { organizationsProjection, ORGANIZATIONS_READ_MODEL } from './projections/organizationsReadModel';

/** The topics analytics consumes: the test-results events and the identity events. */
export const TEST_RESULTS_TOPIC = 'test-results';
export const IDENTITY_TOPIC = 'identity';
/** The event stores of test-results and of the gateway's identity (same database), for rebuilds. */
export const TEST_RESULTS_STORE = 'test_results';
export const IDENTITY_STORE = 'gateway_identity';

export interface AnalyticsPorts {
  db: SqlDatabase;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** Where the projection metrics go (the process's /metrics); none when omitted. */
  metrics?: Registry;
}

export interface AnalyticsSettings {
  /** Verifies the gateway's internal JWT on every request. */
  internalSecret: string;
  /** VERDICT_PUBLIC_URL: the base of the web app's links in PDF reports (default http://localhost:8080). */
  publicUrl?: string;
  names?: {
    testResultsTopic?: string;
    identityTopic?: string;
    readModelSchema?: string;
    organizationsSchema?: string;
    /** The event stores (same database) the read models are rebuilt from when their version moves on. */
    testResultsStoreSchema?: string;
    identityStoreSchema?: string;
  };
}

/** The event stores a rebuild replays: the services that own the events (same database). */
export interface RebuildSources {
  testResults: EventStore;
  identity: EventStore;
}

export interface AnalyticsModule {
  router: Router;
  routes: readonly RouteSpec[];
  projectors: { analytics: Projector; organizations: Projector };
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Rebuilds both read models from position 0 into fresh schemas and swaps them in; queries keep reading
   * the old tables meanwhile, live batches wait only for the swap. Returns the events replayed.
   */
  rebuild(sources: RebuildSources): Promise<{ analytics: number; organizations: number }>;
}

/** The routes the gateway forwards to this service. */
export const analyticsRoutes: readonly RouteSpec[] = analyticsRouteSpecs;

interface ProjectionMetrics {
  observe(projection: string, occurredAt: readonly string[], now: Date): void;
}

function projectionMetrics(registry: Registry | undefined): ProjectionMetrics {
  if (!registry) return { observe: () => undefined };
  const lag =
    (registry.getSingleMetric('verdict_projection_lag_seconds') as Gauge<'projection'> | undefined) ??
    new Gauge({
      name: 'verdict_projection_lag_seconds',
      help: 'Consumer lag of a projection: seconds between the newest event of its last batch and its application',
      labelNames: ['projection'] as const,
      registers: [registry],
    });
  const applied =
    (registry.getSingleMetric('verdict_projection_events_total') as Counter<'projection'> | undefined) ??
    new Counter({
      name: 'verdict_projection_events_total',
      help: 'Events a projection consumed from the bus',
      labelNames: ['projection'] as const,
      registers: [registry],
    });
  return {
    observe(projection, occurredAt, now) {
      applied.inc({ projection }, occurredAt.length);
      const newest = Math.max(...occurredAt.map((at) => Date.parse(at)));
      if (Number.isFinite(newest)) lag.set({ projection }, Math.max(0, (now.getTime() - newest) / 1000));
    },
  };
}

/**
 * The analytics service on its ports: two projections fed from the bus (test results, identity) and the
 * query routes over them.
 *
 * @example const analytics = createAnalyticsModule(ports, settings); await analytics.start(); app.use(analytics.router);
 */
export function createAnalyticsModule(ports: AnalyticsPorts, settings: AnalyticsSettings): AnalyticsModule {
  const logger = ports.logger.child({ component: 'analytics' });
  const testResultsTopic = settings.names?.testResultsTopic ?? TEST_RESULTS_TOPIC;
  const identityTopic = settings.names?.identityTopic ?? IDENTITY_TOPIC;
  const schema = settings.names?.readModelSchema ?? ANALYTICS_READ_MODEL;
  const organizationsSchema = settings.names?.organizationsSchema ?? ORGANIZATIONS_READ_MODEL;
  const storeOf = (storeSchema: string) => createSqlEventStore({ db: ports.db, schema: storeSchema });
  const testResultsStore = storeOf(settings.names?.testResultsStoreSchema ?? TEST_RESULTS_STORE);
  const identityStore = storeOf(settings.names?.identityStoreSchema ?? IDENTITY_STORE);
  // Each is rebuilt at start from the store its topic relays when its version moves on.
  const analytics = createProjector({
    db: ports.db,
    projection: analyticsProjection(schema),
    logger,
    rebuildFrom: [testResultsStore],
  });
  const organizations = createProjector({
    db: ports.db,
    projection: organizationsProjection(organizationsSchema),
    logger,
    rebuildFrom: [identityStore],
  });
  const metrics = projectionMetrics(ports.metrics);
  let subscriptions: Subscription[] = [];

  // One partition at a time. Two batches applied at once lose data: a result whose run.created commits
  // in the other transaction keeps no environment or branch (neither transaction sees the other's row),
  // and two failures of one group can both count as new. Measured at 1.6 times the throughput, and
  // reverted for that (docs/reads.md, "Analytics").
  const consume = (projector: Projector, topic: string) =>
    ports.bus.subscribe({
      groupId: `projector.${projector.name}`,
      topics: [topic],
      fromBeginning: true,
      maxBatchSize: 1000,
      handleBatch: async (messages) => {
        const events = messages.map(eventOfMessage);
        await projector.applyEvents(events, { replays: replayedEventIds(messages) });
        metrics.observe(
          projector.name,
          events.map((event) => event.occurredAt),
          ports.clock.now(),
        );
      },
    });

  const router = Router();
  router.use(requireInternalIdentity({ secret: settings.internalSecret, clock: ports.clock }));
  registerRoutes(
    router,
    createAnalyticsRoutes({
      db: ports.db,
      schema,
      organizations: organizationsSchema,
      clock: ports.clock,
      publicUrl: settings.publicUrl ?? 'http://localhost:8080',
    }),
  );
  return {
    router,
    routes: analyticsRoutes,
    projectors: { analytics, organizations },
    async start() {
      await analytics.init();
      await organizations.init();
      await ports.bus.ensureTopics([testResultsTopic, identityTopic]);
      subscriptions = [
        await consume(analytics, testResultsTopic),
        await consume(organizations, identityTopic),
      ];
      logger.info({ topics: [testResultsTopic, identityTopic], schema }, 'analytics started');
    },
    async stop() {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
      subscriptions = [];
    },
    async rebuild(sources) {
      return {
        organizations: await organizations.rebuild(sources.identity),
        analytics: await analytics.rebuild(sources.testResults, { batchSize: 2000 }),
      };
    },
  };
}
