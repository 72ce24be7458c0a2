// The analytics service as its own process (distributed mode): PostgreSQL and Kafka. It answers only
// requests forwarded by the gateway (internal JWT). `--rebuild` replays the test-results and identity event
// stores (same database) into fresh read models, swaps them in, and exits; a running service keeps serving
// the old tables until the swap.
import {
  closeServer,
  createHttpApp,
  createLogger,
  createSqlEventStore,
  listen,
  loadConfig,
  onShutdown,
  runMain,
  systemClock,
} from '@verdict/platform';
import { createKafkaBus } from '@verdict/platform/kafka';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { AnalyticsConfig } from './config';
import { createAnalyticsModule } from './module';

/** The event stores of the services whose events analytics projects (their default schemas). */
const SOURCE_SCHEMAS = { testResults: 'test_results', identity: 'gateway_identity' };

async function main(): Promise<void> {
  const config = loadConfig(AnalyticsConfig);
  const logger = createLogger({ service: 'analytics', level: config.logLevel });
  const db = createPostgresDatabase({
    connectionString: config.databaseUrl,
    applicationName: 'verdict-analytics',
  });
  const bus = createKafkaBus({ brokers: config.kafkaBrokers, clientId: 'verdict-analytics', logger });
  const { app, finish, registry } = createHttpApp({
    logger,
    service: 'analytics',
    readiness: { store: () => db.ping(), bus: () => bus.ping() },
  });
  const module = createAnalyticsModule(
    { db, bus, clock: systemClock, logger, metrics: registry },
    { internalSecret: config.internalSecret },
  );
  if (process.argv.includes('--rebuild')) {
    const replayed = await module.rebuild({
      testResults: createSqlEventStore({ db, schema: SOURCE_SCHEMAS.testResults }),
      identity: createSqlEventStore({ db, schema: SOURCE_SCHEMAS.identity }),
    });
    logger.info(replayed, 'analytics read models rebuilt');
    await bus.close();
    await db.close();
    return;
  }
  await module.start();
  app.use(module.router);
  finish(app);
  const server = await listen(app, { host: config.host, port: config.port });
  onShutdown(logger, [closeServer(server), () => module.stop(), () => bus.close(), () => db.close()]);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port }, 'analytics started');
  process.stdout.write(`Verdict analytics listening on http://${config.host}:${port}\n`);
}

runMain('analytics', main);
