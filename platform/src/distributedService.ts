// What every service process of the distributed mode does around its module: a logger, a PostgreSQL pool
// and a Kafka bus named after the service, its events framed by the schema registry; then register the
// event contracts, start the module, mount it behind the shared HTTP kit, listen, and close everything in
// order on SIGTERM. A subpath of its own, so the embedded launcher, which runs on PGlite and the in-process
// bus, never loads pg, kafkajs or the registry client.
import { EVENT_CATALOG } from '@verdict/contracts';
import type { Router } from 'express';
import type { Registry } from 'prom-client';
import { systemClock } from './clock';
import type { HttpTimeouts } from './config';
import { withDeadLetters } from './deadLetters/bus';
import { createSqlDeadLetterStore, type DeadLetterStore } from './deadLetters/store';
import { createKafkaBus } from './eventBus/kafka';
import { createSchemaRegistryCodec, type SchemaRegistryCodec } from './eventBus/schemaRegistry';
import type { EventBus } from './eventBus/types';
import { createPostgresDatabase } from './eventStore/postgres';
import { serviceRegistry, type HttpApp } from './http/app';
import { createLogger, warnWhileSlow, type Logger } from './logging';
import { closeServer, listen, onShutdown } from './process';
import type { SqlDatabase } from './sql/types';

export interface ServiceProcessConfig {
  host: string;
  port: number;
  databaseUrl: string;
  kafkaBrokers: string[];
  schemaRegistryUrl: string;
  logLevel: string;
  /** The slow-client bounds of its HTTP server (default DEFAULT_HTTP_TIMEOUTS). */
  httpTimeouts?: HttpTimeouts;
}

export interface ServiceProcess {
  service: string;
  config: ServiceProcessConfig;
  logger: Logger;
  db: SqlDatabase;
  /** The Kafka bus, keeping and counting its dead letters (platform/deadLetters). */
  bus: EventBus;
  /** Registers the event contracts (serveModule does, before the module starts). */
  codec: SchemaRegistryCodec;
  deadLetters: DeadLetterStore;
  /** The process's metrics (/metrics): give it to createHttpApp so dead letters and requests show together. */
  metrics: Registry;
}

/** A service's module as the process runs it. */
export interface ServedModule {
  router: Router;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Opens the logger, database pool and bus of the service `service` (the name in logs, the PostgreSQL
 * application_name and the Kafka client id).
 *
 * @example const proc = openServiceProcess('webhooks', loadConfig(WebhooksConfig));
 */
export function openServiceProcess(service: string, config: ServiceProcessConfig): ServiceProcess {
  const logger = createLogger({ service, level: config.logLevel });
  const db = createPostgresDatabase({
    connectionString: config.databaseUrl,
    applicationName: `verdict-${service}`,
  });
  const { bus: registered, codec } = openRegisteredBus(service, config, logger);
  const metrics = serviceRegistry(service);
  const deadLetters = createSqlDeadLetterStore({ db, clock: systemClock });
  const bus = withDeadLetters(registered, { store: deadLetters, logger, metrics });
  return { service, config, logger, db, bus, codec, deadLetters, metrics };
}

/**
 * The Kafka bus of a distributed process with its schema-registry codec; register the contracts
 * (`codec.register()`) before anything publishes.
 *
 * @example const { bus, codec } = openRegisteredBus('gateway', config, logger); await codec.register();
 */
export function openRegisteredBus(
  service: string,
  config: Pick<ServiceProcessConfig, 'kafkaBrokers' | 'schemaRegistryUrl'>,
  logger: Logger,
): { bus: EventBus; codec: SchemaRegistryCodec } {
  const codec = createSchemaRegistryCodec({ url: config.schemaRegistryUrl, events: EVENT_CATALOG, logger });
  const bus = createKafkaBus({
    brokers: config.kafkaBrokers,
    clientId: `verdict-${service}`,
    logger,
    codec,
  });
  return { bus, codec };
}

/**
 * Registers the event contracts (a contract the registry refuses stops the start here, naming the event),
 * starts `module`, mounts it on `http` (then its 404 and error handlers), listens on the configured address
 * and stops the server, the module, the bus and the pool, in that order, on shutdown.
 *
 * @example await serveModule(proc, createHttpApp({ logger, service, readiness }), module);
 */
export async function serveModule(proc: ServiceProcess, http: HttpApp, module: ServedModule): Promise<void> {
  const { service, config, logger, db, bus, codec } = proc;
  await warnWhileSlow(logger, 'registering event contracts', () => codec.register());
  await warnWhileSlow(logger, `starting ${service}`, () => module.start());
  http.app.use(module.router);
  http.finish(http.app);
  const server = await listen(http.app, {
    host: config.host,
    port: config.port,
    timeouts: config.httpTimeouts,
  });
  onShutdown(logger, [closeServer(server), () => module.stop(), () => bus.close(), () => db.close()]);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port }, `${service} started`);
  process.stdout.write(`Verdict ${service} listening on http://${config.host}:${port}\n`);
}
