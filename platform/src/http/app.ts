import express, { type Express, type Request, type RequestHandler } from 'express';
import { Registry } from 'prom-client';
import type { Logger } from '../logging';
import { errorMiddleware, notFoundFallback } from './errors';
import { httpMetrics, observeRequests, operationalRoutes, type ReadinessCheck } from './operational';
import { admitAtMost, type Admission } from './admission';
import { assertJsonDepth } from './jsonDepth';
import { mayHoldUnstorable, parseQueryString, storable } from './storable';
import { requestContext } from './requestId';

/**
 * The Express app every service starts from: request ids, access log, metrics, operational routes and
 * JSON bodies up front; the 404 fallback and THE error middleware at the end, once the service's routes
 * are in. The order matters, hence createHttpApp() then finish().
 */

export interface HttpAppOptions {
  logger: Logger;
  /** The service name; a `service` label on the metrics of a registry created here. */
  service: string;
  /** Largest JSON body accepted (a number of bytes or a string such as '10mb'); larger gets 413. */
  bodyLimit?: string | number;
  /**
   * Which requests the app itself parses as JSON (default: all). A gateway that streams request bodies
   * to the services it proxies leaves those unparsed, instead of parsing and serialising them again.
   */
  parsesJson?: (req: Request) => boolean;
  /** Named checks of the process's dependencies; /readyz answers 200 only when every one resolves. */
  readiness?: Record<string, ReadinessCheck>;
  /** Milliseconds one readiness check may take (default 2,000). */
  readinessTimeoutMs?: number;
  /** Where metrics are registered; a fresh registry by default, so two apps in one process never clash. */
  metrics?: Registry;
  /** How many matching requests, their bodies read, go on to the routes at once (admitAtMost). */
  admission?: Admission;
}

export interface HttpApp {
  app: Express;
  registry: Registry;
  /**
   * Mounts the 404 fallback and the error middleware. Call once, after the service's routes. Takes the app
   * again only for readability at the call site (`finish(app)`); it must be this app.
   */
  finish(target?: Express): void;
}

/**
 * Builds a service's Express app.
 *
 * @example const { app, finish } = createHttpApp({ logger, service: 'gateway', readiness: { kv: () => kv.ping() } }); app.use(routes); finish(app);
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const registry = options.metrics ?? serviceRegistry(options.service);
  const app = express();
  app.disable('x-powered-by');
  // No ETag: hashing every JSON answer costs each request a SHA-1 of its body, and API answers (usage
  // counts, run progress) change too often for conditional requests to pay that back.
  app.set('etag', false);
  // Express 5's default ('simple'), stated: repeated parameters become arrays, never nested objects. A NUL
  // (%00) becomes U+FFFD as in bodies: PostgreSQL refuses the character in a filter, which was a 500.
  app.set('query parser', parseQueryString);

  app.use(requestContext(options.logger));
  app.use(observeRequests(httpMetrics(registry)));
  app.use(
    operationalRoutes({
      registry,
      readiness: options.readiness ?? {},
      readinessTimeoutMs: options.readinessTimeoutMs ?? 2_000,
      logger: options.logger,
    }),
  );
  const json = parseJsonBodies({ limit: options.bodyLimit ?? '1mb' });
  const parsesJson = options.parsesJson;
  app.use(parsesJson ? (req, res, next) => (parsesJson(req) ? json(req, res, next) : next()) : json);
  // After the body parser: a slow client still sending its body holds no place, only work that is ready.
  if (options.admission) app.use(admitAtMost(options.admission));

  let finished = false;
  const finish = (target: Express = app) => {
    if (target !== app) throw new Error('finish() belongs to another app');
    if (finished) throw new Error('finish() was already called on this app');
    finished = true;
    mountFallbacks(app, options.logger);
  };
  return { app, registry, finish };
}

/**
 * The JSON body parser of every app (JSON and `+json` types); malformed bodies, bodies nested deeper than
 * MAX_JSON_DEPTH and bodies over `limit` reach the error middleware as 400 VALIDATION_ERROR and 413.
 *
 * @example router.use(parseJsonBodies({ limit: '10mb' }));
 */
export function parseJsonBodies({ limit }: { limit: string | number }): RequestHandler {
  const unstorable = new WeakSet<Request>();
  const parse = express.json({
    limit,
    type: ['application/json', 'application/*+json'],
    verify: (req, _res, raw) => {
      if (mayHoldUnstorable(raw)) unstorable.add(req as Request);
    },
  });
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => {
      if (error) {
        next(error);
        return;
      }
      try {
        assertJsonDepth(req.body);
      } catch (tooDeep) {
        next(tooDeep);
        return;
      }
      if (unstorable.has(req)) req.body = storable(req.body);
      next();
    });
}

/**
 * The 404 NOT_FOUND envelope for unknown routes, then the one error middleware. Last in the chain.
 *
 * @example mountFallbacks(app, logger);
 */
export function mountFallbacks(app: Express, logger: Logger): void {
  app.use(notFoundFallback());
  app.use(errorMiddleware(logger));
}

/**
 * A metrics registry whose metrics carry a `service` label: one per process, shared by the apps and
 * modules in it.
 *
 * @example const registry = serviceRegistry('verdict');
 */
export function serviceRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  return registry;
}
