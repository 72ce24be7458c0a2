import { Router, type Request, type RequestHandler, type Response } from 'express';
import { collectDefaultMetrics, Histogram, type Registry } from 'prom-client';
import { ServiceUnavailableError } from '../errors';
import type { Logger } from '../logging';
import { toErrorResponse } from './errors';

/**
 * What every process answers to its operators: liveness, readiness, Prometheus metrics, and one access
 * log line per request. Kept free of authentication: these routes are for the platform, not for users.
 */

/** Resolves when a dependency (store, bus, key-value store) answers; throws or rejects otherwise. */
export type ReadinessCheck = () => Promise<void>;

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';
export const METRICS_PATH = '/metrics';
const OPERATIONAL_PATHS = new Set([HEALTH_PATH, READY_PATH, METRICS_PATH]);

const DURATION_METRIC = 'http_request_duration_seconds';

/**
 * The request duration histogram of `registry`, created on first use, plus the default process metrics.
 * Idempotent, so several apps of one process (the embedded mode, tests) can share a registry.
 *
 * @example const histogram = httpMetrics(registry);
 */
export function httpMetrics(registry: Registry): Histogram<'method' | 'route' | 'status_code'> {
  if (registry.getSingleMetric('process_cpu_user_seconds_total') === undefined) {
    collectDefaultMetrics({ register: registry });
  }
  const existing = registry.getSingleMetric(DURATION_METRIC);
  if (existing instanceof Histogram) return existing as Histogram<'method' | 'route' | 'status_code'>;
  return new Histogram({
    name: DURATION_METRIC,
    help: 'Duration of HTTP requests in seconds, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  });
}

/**
 * Logs one line per request when the response ends (or the client goes away) and observes its duration.
 * Never logs the body, the query string or the Authorization header.
 *
 * @example app.use(observeRequests(httpMetrics(registry)));
 */
export function observeRequests(histogram: Histogram<'method' | 'route' | 'status_code'>): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routePattern(req, res);
      histogram.observe({ method: req.method, route, status_code: String(res.statusCode) }, seconds);
      const path = pathOf(req);
      // Probes and scrapes arrive every few seconds from every replica: at info they would drown the log.
      // The request's logger already carries requestId.
      const level = OPERATIONAL_PATHS.has(path) ? 'debug' : 'info';
      res.locals.log[level](
        {
          method: req.method,
          path,
          status: res.statusCode,
          durationMs: Math.round(seconds * 10_000) / 10,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request',
      );
    });
    next();
  };
}

declare module 'express-serve-static-core' {
  interface Locals {
    /**
     * The declared route a request was found to match, set by whoever knows it before the answer (the
     * gateway's route guard): requests refused before reaching a route (401, 403, 429) are labelled by the
     * route they asked for, like the ones it answered.
     */
    routeLabel?: string;
  }
}

/**
 * The route pattern that answered ("/api/public/v1/:projectId/test-runs/:runId"), never the raw path, so
 * the label's cardinality stays bounded. Mount routers at static paths: a parameter in a mount path would
 * reach the label as its value.
 */
function routePattern(req: Request, res: Response): string {
  if (res.locals.routeLabel !== undefined) return res.locals.routeLabel;
  const route: unknown = req.route;
  if (typeof route !== 'object' || route === null || !('path' in route)) return '(unmatched)';
  return `${req.baseUrl}${String(route.path)}`;
}

function pathOf(req: Request): string {
  const url = req.originalUrl ?? req.url;
  const queryStart = url.indexOf('?');
  return queryStart === -1 ? url : url.slice(0, queryStart);
}

export interface OperationalOptions {
  registry: Registry;
  readiness: Record<string, ReadinessCheck>;
  /** How long one readiness check may take before it counts as failed. */
  readinessTimeoutMs: number;
  logger: Logger;
}

/**
 * GET /healthz, /readyz and /metrics.
 *
 * @example app.use(operationalRoutes({ registry, readiness: { kv: () => kv.ping() }, readinessTimeoutMs: 2000, logger }));
 */
export function operationalRoutes(options: OperationalOptions): Router {
  const router = Router();

  router.get(HEALTH_PATH, (_req, res) => {
    res.json({ success: true, data: { status: 'ok' } });
  });

  router.get(READY_PATH, async (_req, res) => {
    const failures = await failingChecks(options.readiness, options.readinessTimeoutMs);
    if (failures.length === 0) {
      const checks = Object.fromEntries(Object.keys(options.readiness).map((name) => [name, 'ok']));
      res.json({ success: true, data: { status: 'ready', checks } });
      return;
    }
    for (const { name, error } of failures) {
      res.locals.log.warn({ check: name, err: error }, 'readiness check failed');
    }
    const names = failures.map((f) => f.name).join(', ');
    const { status, body } = toErrorResponse(new ServiceUnavailableError(`Not ready: ${names} failed`));
    res.status(status).json(body);
  });

  router.get(METRICS_PATH, async (_req, res) => {
    res.type(options.registry.contentType).send(await options.registry.metrics());
  });

  return router;
}

/** Runs every check at once; a check that neither resolves nor rejects in time has failed. */
async function failingChecks(
  checks: Record<string, ReadinessCheck>,
  timeoutMs: number,
): Promise<{ name: string; error: unknown }[]> {
  const outcomes = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await withTimeout(check, timeoutMs);
        return undefined;
      } catch (error) {
        return { name, error };
      }
    }),
  );
  return outcomes.filter((outcome) => outcome !== undefined);
}

async function withTimeout(check: ReadinessCheck, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    // Promise.resolve().then: a check that throws synchronously fails like one that rejects.
    await Promise.race([Promise.resolve().then(check), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
