import { Router, type Request, type RequestHandler } from 'express';
import type { Clock, KeyValue, Logger, RateLimiter } from '@verdict/platform';
import type { IdentityDirectory } from '../identity/directory';
import { authenticate } from './authenticate';
import { authorize } from './authorize';
import { limitByIp, limitByToken } from './rateLimits';
import { sessionCookieOf } from './authenticate';
import type { SessionStore } from './sessions/sessionStore';

/**
 * The gate in front of every public API route, in the order that keeps each step cheap for an abuser:
 * per-IP limit (before any lookup) → authentication (bearer token or web session) → authorization (scope; project and role on
 * `/{projectId}/…`) → per-token buckets → the routes. Mount it under each API prefix; the routes follow
 * it on the same prefix.
 */

export { createTokenInfoRouter } from './routes';
export type { AccessContext } from './authorize';
export type { Principal } from './authenticate';

export interface AccessChainOptions {
  directory: IdentityDirectory;
  rateLimiter: RateLimiter;
  kv: KeyValue;
  clock: Clock;
  logger: Logger;
  /** The ingest bucket's limit per token per minute (VERDICT_INGEST_RATE_LIMIT, default 1,200). */
  ingestLimitPerMinute: number;
  /**
   * Runs after the per-IP limit and before authentication: the gateway answers unknown routes here, so
   * they get a 404 (with the rate-limit headers) before any token is asked for.
   */
  routeGuard?: RequestHandler;
  /** Web sessions: a request with the session cookie and no Authorization header is judged by its token. */
  sessions?: SessionStore;
  /** Requests whose IP was already counted: the calls of the gateway's MCP endpoint (see mcp/). */
  countedElsewhere?: (req: Request) => boolean;
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** The token cache's freshness check, started with the request so it travels with the IP draw. */
    identityVersion?: Promise<string | null>;
  }
}

/**
 * Starts reading the identity version (one Redis GET, never rejects) before the per-IP draw, in the same
 * turn of the event loop, so both leave in one write to Redis. Nothing is looked up with it until the IP
 * draw has let the request through.
 */
function startIdentityVersionRead(directory: IdentityDirectory): RequestHandler {
  return (req, res, next) => {
    const credentials = req.headers.authorization !== undefined || sessionCookieOf(req) !== undefined;
    if (directory.identityVersion && credentials) {
      res.locals.identityVersion = directory.identityVersion();
    }
    next();
  };
}

/**
 * Builds the access chain as one router that calls next() for a request it lets through.
 *
 * @example for (const prefix of API_PREFIXES) app.use(prefix, chain, createTokenInfoRouter({ directory }), routes);
 */
export function createAccessChain(options: AccessChainOptions): Router {
  const { directory, rateLimiter, kv, clock, ingestLimitPerMinute } = options;
  if (!Number.isSafeInteger(ingestLimitPerMinute) || ingestLimitPerMinute <= 0) {
    throw new RangeError(`ingestLimitPerMinute must be a positive integer, got ${ingestLimitPerMinute}`);
  }
  options.logger
    .child({ component: 'access' })
    .info({ ingestLimitPerMinute }, 'public API access chain ready');
  const router = Router();
  router.use(
    startIdentityVersionRead(directory),
    limitByIp({ rateLimiter, ...(options.countedElsewhere ? { skip: options.countedElsewhere } : {}) }),
    ...(options.routeGuard ? [options.routeGuard] : []),
    authenticate({ directory, kv, clock, ...(options.sessions ? { sessions: options.sessions } : {}) }),
    authorize({ directory }),
    limitByToken({ rateLimiter, ingestLimitPerMinute, logger: options.logger }),
  );
  return router;
}
