// The test-results service as its own process (distributed mode): PostgreSQL, Kafka, blobs on disk. It
// answers only requests forwarded by the gateway (internal JWT).
import {
  createFilesystemBlobStore,
  createHttpApp,
  createSqlCheckpointStore,
  loadConfig,
  runMain,
  systemClock,
} from '@verdict/platform';
import { openServiceProcess, serveModule } from '@verdict/platform/distributed';
import { TestResultsConfig } from './config';
import { createTestResultsModule, isBulkIngest, TEST_RESULTS_SCHEMA } from './module';

async function main(): Promise<void> {
  const config = loadConfig(TestResultsConfig);
  const proc = openServiceProcess('test-results', config);
  const { logger, db, bus } = proc;
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
      role: config.role,
    },
  );
  const http = createHttpApp({
    logger,
    service: 'test-results',
    metrics: proc.metrics,
    bodyLimit: '10mb',
    admission: { limit: config.ingestConcurrency, matches: isBulkIngest },
    readiness: { store: () => db.ping(), bus: () => bus.ping(), blobs: () => blobs.ping() },
  });
  await serveModule(proc, http, module);
}

runMain('test-results', main);
