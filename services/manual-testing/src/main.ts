// The manual-testing service as its own process (distributed mode): PostgreSQL, Kafka, blobs on disk
// (shared with the gateway, which serves the signed downloads). It answers only requests forwarded by the
// gateway (internal JWT).
import {
  closeServer,
  createFilesystemBlobStore,
  createHttpApp,
  createLogger,
  createSqlCheckpointStore,
  listen,
  loadConfig,
  onShutdown,
  runMain,
  systemClock,
} from '@verdict/platform';
import { createKafkaBus } from '@verdict/platform/kafka';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { ManualTestingConfig } from './config';
import { createManualTestingModule, MANUAL_TESTING_SCHEMA } from './module';

async function main(): Promise<void> {
  const config = loadConfig(ManualTestingConfig);
  const logger = createLogger({ service: 'manual-testing', level: config.logLevel });
  const db = createPostgresDatabase({
    connectionString: config.databaseUrl,
    applicationName: 'verdict-manual-testing',
  });
  const bus = createKafkaBus({ brokers: config.kafkaBrokers, clientId: 'verdict-manual-testing', logger });
  const blobs = createFilesystemBlobStore({ root: config.blobDir });
  const module = createManualTestingModule(
    {
      db,
      bus,
      blobs,
      checkpoints: await createSqlCheckpointStore(db, MANUAL_TESTING_SCHEMA),
      clock: systemClock,
      logger,
    },
    {
      internalSecret: config.internalSecret,
      publicUrl: config.publicUrl,
      urlSigningSecret: config.urlSigningSecret,
      attachmentMaxBytes: config.attachmentMaxBytes,
    },
  );
  await module.start();
  const { app, finish } = createHttpApp({
    logger,
    service: 'manual-testing',
    bodyLimit: '2mb',
    readiness: { store: () => db.ping(), bus: () => bus.ping(), blobs: () => blobs.ping() },
  });
  app.use(module.router);
  finish(app);
  const server = await listen(app, { host: config.host, port: config.port });
  onShutdown(logger, [closeServer(server), () => module.stop(), () => bus.close(), () => db.close()]);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port }, 'manual-testing started');
  process.stdout.write(`Verdict manual-testing listening on http://${config.host}:${port}\n`);
}

runMain('manual-testing', main);
