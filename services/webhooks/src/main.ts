// The webhooks service as its own process (distributed mode): PostgreSQL and Kafka. It answers only
// requests forwarded by the gateway (internal JWT); several replicas share the delivery queue.
import {
  closeServer,
  createHttpApp,
  createLogger,
  listen,
  loadConfig,
  onShutdown,
  runMain,
  systemClock,
} from '@verdict/platform';
import { createKafkaBus } from '@verdict/platform/kafka';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { WebhooksConfig } from './config';
import { createWebhooksModule } from './module';

async function main(): Promise<void> {
  const config = loadConfig(WebhooksConfig);
  const logger = createLogger({ service: 'webhooks', level: config.logLevel });
  const db = createPostgresDatabase({
    connectionString: config.databaseUrl,
    applicationName: 'verdict-webhooks',
  });
  const bus = createKafkaBus({ brokers: config.kafkaBrokers, clientId: 'verdict-webhooks', logger });
  const module = createWebhooksModule(
    { db, bus, clock: systemClock, logger },
    {
      internalSecret: config.internalSecret,
      secretKey: config.secretKey,
      publicUrl: config.publicUrl,
      eventNameCutover: config.eventNameCutover,
      retryDelaysMs: config.retryDelaysMs,
      allowPrivateNetworks: config.allowPrivateNetworks,
      timeoutMs: config.timeoutMs,
    },
  );
  await module.start();
  const { app, finish } = createHttpApp({
    logger,
    service: 'webhooks',
    readiness: { store: () => db.ping(), bus: () => bus.ping() },
  });
  app.use(module.router);
  finish(app);
  const server = await listen(app, { host: config.host, port: config.port });
  onShutdown(logger, [closeServer(server), () => module.stop(), () => bus.close(), () => db.close()]);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port }, 'webhooks started');
  process.stdout.write(`Verdict webhooks listening on http://${config.host}:${port}\n`);
}

runMain('webhooks', main);
