// The gateway as its own process (distributed mode): PostgreSQL, Kafka and Redis; the services behind it
// are reached over HTTP.
import {
  closeServer,
  createFilesystemBlobStore,
  createLogger,
  createSqlCheckpointStore,
  createSqlDeadLetterStore,
  listen,
  loadConfig,
  onShutdown,
  runMain,
  serviceRegistry,
  systemClock,
  withDeadLetters,
} from '@verdict/platform';
import { createMcpHttpHandler } from '@verdict/mcp';
import { openRegisteredBus } from '@verdict/platform/distributed';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { createRedisStores } from '@verdict/platform/redis';
import { GatewayConfig } from './config';
import { GATEWAY_SCHEMA, startGateway } from './gateway';
import { SERVICE_ROUTES } from './serviceRoutes';

async function main(): Promise<void> {
  const config = loadConfig(GatewayConfig);
  const logger = createLogger({ service: 'gateway', level: config.logLevel });
  const db = createPostgresDatabase({
    connectionString: config.databaseUrl,
    applicationName: 'verdict-gateway',
  });
  const { bus: registered, codec } = openRegisteredBus('gateway', config, logger);
  // A contract the registry refuses stops the start here, naming the event.
  await codec.register();
  const metrics = serviceRegistry('gateway');
  const deadLetters = createSqlDeadLetterStore({ db, clock: systemClock });
  const bus = withDeadLetters(registered, { store: deadLetters, logger, metrics });
  // One connection: the rate limits and the identity version read of a request leave in one write.
  const { kv, rateLimiter } = createRedisStores({ url: config.redisUrl, logger });
  const gateway = await startGateway(
    {
      db,
      bus,
      kv,
      rateLimiter,
      checkpoints: await createSqlCheckpointStore(db, GATEWAY_SCHEMA),
      clock: systemClock,
      logger,
      metrics,
      deadLetters,
    },
    {
      adminKey: config.adminKey,
      internalSecret: config.internalSecret,
      publicUrl: config.publicUrl,
      ingestLimitPerMinute: config.ingestLimitPerMinute,
      sessionIdleMinutes: config.sessionIdleMinutes,
      webDir: config.webDir,
      mcp: createMcpHttpHandler,
      // Distributed on one machine, gateway and test-results share the blob folder (VERDICT_BLOB_DIR).
      downloads: {
        blobs: createFilesystemBlobStore({ root: config.blobDir }),
        secret: config.urlSigningSecret,
      },
      services: [
        {
          name: 'test-results',
          routes: SERVICE_ROUTES['test-results'],
          target: { kind: 'http', url: config.testResultsUrl },
        },
        {
          name: 'manual-testing',
          routes: SERVICE_ROUTES['manual-testing'],
          target: { kind: 'http', url: config.manualTestingUrl },
        },
        {
          name: 'webhooks',
          routes: SERVICE_ROUTES.webhooks,
          target: { kind: 'http', url: config.webhooksUrl },
        },
        {
          name: 'analytics',
          routes: SERVICE_ROUTES.analytics,
          target: { kind: 'http', url: config.analyticsUrl },
        },
      ],
      ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
    },
  );
  const server = await listen(gateway.app, {
    host: config.host,
    port: config.port,
    timeouts: config.httpTimeouts,
  });
  onShutdown(logger, [
    closeServer(server),
    () => gateway.stop(),
    () => bus.close(),
    () => rateLimiter.close(),
    () => kv.close(),
    () => db.close(),
  ]);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, mode: 'distributed' }, 'gateway started');
  // With PORT=0 only the bound port is true; an explicit VERDICT_PUBLIC_URL always wins.
  const publicUrl = process.env.VERDICT_PUBLIC_URL ? config.publicUrl : `http://localhost:${port}`;
  process.stdout.write(
    `Verdict gateway listening on http://${config.host}:${port} (API ${publicUrl}/api/public/v1)\n`,
  );
}

runMain('gateway', main);
