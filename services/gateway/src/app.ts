import type { Express } from 'express';
import type { Logger } from '@verdict/platform';
import { createHttpApp } from '@verdict/platform';

export interface GatewayOptions {
  logger: Logger;
  /** The checks behind /readyz: the store, the bus and the key-value store this process depends on. */
  readiness: Record<string, () => Promise<void>>;
}

/** The public prefixes of spec §1: clients differ on whether `v1` comes before or after `public`. */
export const API_PREFIXES = ['/api/public/v1', '/api/v1/public'] as const;

/**
 * The gateway's HTTP application: operational endpoints now; authentication, rate limits and the routes of
 * every service mount under both API prefixes. Anything unknown answers the 404 envelope.
 *
 * @example const app = createGatewayApp({ logger, readiness: { store: () => db.ping() } });
 */
export function createGatewayApp(options: GatewayOptions): Express {
  const { app, finish } = createHttpApp({
    logger: options.logger,
    service: 'gateway',
    readiness: options.readiness,
  });
  finish(app);
  return app;
}
