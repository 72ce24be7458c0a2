// `npm start`: every Verdict service in one process, on PGlite (data kept in VERDICT_DATA_DIR), the
// in-process bus and the in-memory key-value store. The same modules, SQL and HTTP stack as the
// distributed mode; only the adapters behind the ports differ.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { InstanceStarted } from '@verdict/contracts';
import { createGatewayApp } from '@verdict/gateway/app';
import {
  closeServer,
  ConfigError,
  createInProcessBus,
  createLogger,
  createMemoryKeyValue,
  createSqlEventStore,
  listen,
  loadConfig,
  onShutdown,
} from '@verdict/platform';
import { createPGliteDatabase } from '@verdict/platform/pglite';
import { EmbeddedConfig } from './config';

const VERSION = '0.1.0';

async function main(): Promise<void> {
  const config = loadConfig(EmbeddedConfig);
  const logger = createLogger({ service: 'verdict', level: config.logLevel });
  mkdirSync(config.dataDir, { recursive: true });

  const db = await createPGliteDatabase({ dataDir: path.join(config.dataDir, 'pglite') });
  const bus = createInProcessBus({ logger });
  const kv = createMemoryKeyValue();

  const system = createSqlEventStore({ db, schema: 'verdict_system' });
  await system.init();
  await system.append(
    'instance',
    [
      InstanceStarted.of({
        mode: 'embedded',
        service: 'embedded',
        version: VERSION,
        nodeVersion: process.version,
        pid: process.pid,
      }),
    ],
    { expectedVersion: 'any' },
  );

  const app = createGatewayApp({
    logger,
    readiness: { store: () => db.ping(), bus: () => bus.ping(), keyValue: () => kv.ping() },
  });
  const server = await listen(app, { host: config.host, port: config.port });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  onShutdown(logger, [closeServer(server), () => bus.close(), () => kv.close(), () => db.close()]);

  logger.info({ port, dataDir: config.dataDir, mode: 'embedded' }, 'verdict started');
  process.stdout.write(
    `\nVerdict is running (embedded mode) at http://localhost:${port}\n` +
      `  API base:  ${config.publicUrl}/api/public/v1\n` +
      `  Data:      ${config.dataDir}\n\n`,
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(
    `verdict failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
