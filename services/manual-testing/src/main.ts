// The manual-testing service as its own process (distributed mode): PostgreSQL, Kafka, blobs on disk
// (shared with the gateway, which serves the signed downloads). It answers only requests forwarded by the
// gateway (internal JWT).
import {
  createFilesystemBlobStore,
  createHttpApp,
  createSqlCheckpointStore,
  loadConfig,
  runMain,
  systemClock,
} from '@verdict/platform';
import { openServiceProcess, serveModule } from '@verdict/platform/distributed';
import { ManualTestingConfig } from './config';
import { createManualTestingModule, MANUAL_TESTING_SCHEMA } from './module';

async function main(): Promise<void> {
  const config = loadConfig(ManualTestingConfig);
  const proc = openServiceProcess('manual-testing', config);
  const { logger, db, bus } = proc;
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
  const http = createHttpApp({
    logger,
    service: 'manual-testing',
    metrics: proc.metrics,
    bodyLimit: '2mb',
    readiness: { store: () => db.ping(), bus: () => bus.ping(), blobs: () => blobs.ping() },
  });
  await serveModule(proc, http, module);
}

runMain('manual-testing', main);
