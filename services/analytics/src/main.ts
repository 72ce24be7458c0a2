// The analytics service as its own process (distributed mode): PostgreSQL and Kafka. It answers only
// requests forwarded by the gateway (internal JWT). `--rebuild` replays the test-results and identity event
// stores (same database) into fresh read models, swaps them in, and exits; a running service keeps serving
// the old tables until the swap.
import { createHttpApp, createSqlEventStore, loadConfig, runMain, systemClock } from '@verdict/platform';
import { openServiceProcess, serveModule } from '@verdict/platform/distributed';
import { AnalyticsConfig } from './config';
import { createAnalyticsModule } from './module';

/** The event stores of the services whose events analytics projects (their default schemas). */
const SOURCE_SCHEMAS = { testResults: 'test_results', identity: 'gateway_identity' };

async function main(): Promise<void> {
  const config = loadConfig(AnalyticsConfig);
  const proc = openServiceProcess('analytics', config);
  const { logger, db, bus } = proc;
  const http = createHttpApp({
    logger,
    service: 'analytics',
    metrics: proc.metrics,
    readiness: { store: () => db.ping(), bus: () => bus.ping() },
  });
  const module = createAnalyticsModule(
    { db, bus, clock: systemClock, logger, metrics: proc.metrics },
    { internalSecret: config.internalSecret, publicUrl: config.publicUrl },
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
  await serveModule(proc, http, module);
}

runMain('analytics', main);
