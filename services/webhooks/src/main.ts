// The webhooks service as its own process (distributed mode): PostgreSQL and Kafka. It answers only
// requests forwarded by the gateway (internal JWT); several replicas share the delivery queue.
import { createHttpApp, loadConfig, runMain, systemClock } from '@verdict/platform';
import { openServiceProcess, serveModule } from '@verdict/platform/distributed';
import { WebhooksConfig } from './config';
import { createWebhooksModule } from './module';

async function main(): Promise<void> {
  const config = loadConfig(WebhooksConfig);
  const proc = openServiceProcess('webhooks', config);
  const { logger, db, bus } = proc;
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
  const http = createHttpApp({
    logger,
    service: 'webhooks',
    metrics: proc.metrics,
    readiness: { store: () => db.ping(), bus: () => bus.ping() },
  });
  await serveModule(proc, http, module);
}

runMain('webhooks', main);
