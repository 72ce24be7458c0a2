// The test-results service as its own process (distributed mode): PostgreSQL, Kafka, blobs on disk. It
// answers only requests forwarded by the gateway (internal JWT).
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
import { TestResultsConfig } from './config';
import { createTestResultsModule, TEST_RESULTS_SCHEMA } from './module';

async function main(): Promise<void> {
  const config = loadConfig(TestResultsConfig);
  const logger = createLogger({ service: 'test-results', level: config.logLevel });
  const db = createPostgresDatabase({
    connectionString: config.databaseUrl,
    applicationName: 'verdict-test-results',
  });
  const bus = createKafkaBus({ brokers: config.kafkaBrokers, clientId: 'verdict-test-results', logger });
  const blobs = createFilesystemBlobStore({ root: config.blobDir });
  const module = createTestResultsModule(
    {
      db,
      bus,
      blobs,
      checkpoints: await createSqlCheckpointStore(db, TEST_RESULTS_SCHEMA),
      clock: systemClock,
      logger,
    },
    {
      internalSecret: config.internalSecret,
      artifactMaxBytes: config.artifactMaxBytes,
      publicUrl: config.publicUrl,
      urlSigningSecret: config.urlSigningSecret,
    },
  );
  await module.start();
  const { app, finish } = createHttpApp({
    logger,
    service: 'test-results',
    bodyLimit: '10mb',
    readiness: { store: () => db.ping(), bus: () => bus.ping(), blobs: () => blobs.ping() },
  });
  app.use(module.router);
  finish(app);
  const server = await listen(app, { host: config.host, port: config.port });
  onShutdown(logger, [closeServer(server), () => module.stop(), () => bus.close(), () => db.close()]);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port }, 'test-results started');
  process.stdout.write(`Verdict test-results listening on http://${config.host}:${port}\n`);
}

runMain('test-results', main);
