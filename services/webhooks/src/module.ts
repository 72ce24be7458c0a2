import { Router } from 'express';
import { webhookRoutes, type RouteSpec } from '@verdict/contracts';
import {
  createProjector,
  createSqlEventStore,
  eventOfMessage,
  registerRoutes,
  replayedEventIds,
  requireInternalIdentity,
  type Clock,
  type EventBus,
  type Logger,
  type SqlDatabase,
  type Subscription,
} from '@verdict/platform';
import { createDispatcher, type Dispatcher } from './delivery/dispatcher';
import { webhookRunsProjection, WEBHOOK_RUNS_PROJECTION } from './projections/runsProjection';
import { createWebhookTables, WEBHOOKS_SCHEMA } from './schema';
import { createSecretBox } from './security/secrets';
import { systemResolver, withResolveTimeout, type Resolver } from './security/targets';
import { importRowsWithoutStream } from './subscriptions/importRows';
import { webhookHttpRoutes } from './subscriptions/routes';
import { createSubscriptions } from './subscriptions/subscriptions';
import { createSubscriptionStore } from './subscriptions/subscriptionStore';

/** The topic the run events come from (the test-results service's), keyed by project. */
export const TEST_RESULTS_TOPIC = 'test-results';
/** The test-results event store's schema (same database): what the runs projection is rebuilt from. */
export const TEST_RESULTS_STORE = 'test_results';
export const WEBHOOKS_CONSUMER_GROUP = 'webhooks.dispatcher';

export interface WebhooksPorts {
  db: SqlDatabase;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** DNS for the SSRF check; the system resolver by default. */
  resolve?: Resolver;
}

export interface WebhooksSettings {
  /** Verifies the gateway's internal JWT on every request. */
  internalSecret: string;
  /** Derives the key that encrypts signing secrets at rest (at least 32 characters; keep it stable). */
  secretKey: string;
  /** VERDICT_PUBLIC_URL: the base of `data.run.url`. */
  publicUrl: string;
  /** VERDICT_EVENT_NAME_CUTOVER. */
  eventNameCutover: Date;
  /** VERDICT_WEBHOOK_RETRY_DELAYS, in milliseconds. */
  retryDelaysMs: readonly number[];
  /** VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS. */
  allowPrivateNetworks: boolean;
  /** VERDICT_WEBHOOK_TIMEOUT_MS. */
  timeoutMs: number;
  /** How often the dispatcher looks for due deliveries besides being woken (default 1,000 ms). */
  pollIntervalMs?: number;
  /** Requests in flight at once per replica (default 64). */
  concurrency?: number;
  /**
   * Partitions of the run topic projected at the same time (default 4; the topic has 3 by default). Runs
   * are keyed by project, so batches of different partitions never touch the same run.
   */
  concurrentPartitions?: number;
  names?: {
    schema?: string;
    projection?: string;
    topic?: string;
    consumerGroup?: string;
    /** The test-results event store (same database), replayed when the runs projection's version moves on. */
    testResultsStoreSchema?: string;
  };
}

export interface WebhooksModule {
  /** Every route, behind the internal-identity check; mount it where the gateway forwards to. */
  router: Router;
  routes: readonly RouteSpec[];
  dispatcher: Dispatcher;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The webhooks service on its ports: subscriptions over HTTP, a projection of the run events that queues
 * deliveries, and the dispatcher that sends them.
 *
 * @example const webhooks = createWebhooksModule(ports, settings); await webhooks.start(); app.use(webhooks.router);
 */
export function createWebhooksModule(ports: WebhooksPorts, settings: WebhooksSettings): WebhooksModule {
  const schema = settings.names?.schema ?? WEBHOOKS_SCHEMA;
  const topic = settings.names?.topic ?? TEST_RESULTS_TOPIC;
  const logger = ports.logger.child({ component: 'webhooks' });
  const secrets = createSecretBox(settings.secretKey);
  const targets = {
    allowPrivateNetworks: settings.allowPrivateNetworks,
    resolve: withResolveTimeout(ports.resolve ?? systemResolver),
  };
  const store = createSubscriptionStore(ports.db, schema, ports.clock);
  const subscriptions = createSubscriptions({
    db: ports.db,
    schema,
    store,
    clock: ports.clock,
    cutover: settings.eventNameCutover,
    targets,
    secrets,
    queued: () => dispatcher.notify(),
  });
  const dispatcher = createDispatcher({
    db: ports.db,
    schema,
    clock: ports.clock,
    logger: ports.logger,
    subscriptions: store,
    cutover: settings.eventNameCutover,
    retryDelaysMs: settings.retryDelaysMs,
    timeoutMs: settings.timeoutMs,
    targets,
    secrets,
    ...(settings.pollIntervalMs === undefined ? {} : { pollIntervalMs: settings.pollIntervalMs }),
    ...(settings.concurrency === undefined ? {} : { concurrency: settings.concurrency }),
  });
  const projector = createProjector({
    db: ports.db,
    projection: webhookRunsProjection({
      name: settings.names?.projection ?? WEBHOOK_RUNS_PROJECTION,
      queueSchema: schema,
      clock: ports.clock,
      publicUrl: settings.publicUrl,
    }),
    logger,
    rebuildFrom: [
      createSqlEventStore({
        db: ports.db,
        schema: settings.names?.testResultsStoreSchema ?? TEST_RESULTS_STORE,
      }),
    ],
  });
  let subscription: Subscription | null = null;

  const router = Router();
  router.use(requireInternalIdentity({ secret: settings.internalSecret, clock: ports.clock }));
  registerRoutes(router, webhookHttpRoutes(subscriptions));

  return {
    router,
    routes: webhookRoutes,
    dispatcher,
    async start() {
      await createWebhookTables(ports.db, schema);
      await store.init();
      const imported = await importRowsWithoutStream(ports.db, schema, store);
      if (imported > 0) logger.info({ imported }, 'webhook subscriptions kept as rows became event streams');
      await projector.init();
      await ports.bus.ensureTopics([topic]);
      subscription = await ports.bus.subscribe({
        groupId: settings.names?.consumerGroup ?? WEBHOOKS_CONSUMER_GROUP,
        topics: [topic],
        fromBeginning: true,
        concurrentPartitions: settings.concurrentPartitions ?? 4,
        handleBatch: async (messages) => {
          const applied = await projector.applyEvents(messages.map(eventOfMessage), {
            replays: replayedEventIds(messages),
          });
          if (applied > 0) dispatcher.notify();
        },
      });
      dispatcher.start();
      logger.info({ topic, schema }, 'webhooks started');
    },
    async stop() {
      await subscription?.stop();
      subscription = null;
      await dispatcher.stop();
    },
  };
}
