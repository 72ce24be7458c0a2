import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import {
  envInteger,
  RateLimitError,
  type Logger,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitRule,
} from '@verdict/platform';
import { principalOf } from './authorize';
import { describeRequest, type OperationKind } from './requestPath';

/**
 * The rate limits of spec §8, fixed-window per minute, plus the ingest bucket of API.md. Only the ingest
 * limit is configurable (VERDICT_INGEST_RATE_LIMIT); the others are the spec's numbers.
 *
 * Buckets per request: every request draws on its IP's bucket before authentication; then an
 * authenticated one on its token's buckets. Ingest routes draw on the ingest bucket INSTEAD of the write
 * bucket, so a large CI run is not throttled at 60 a minute. Manual-run creation and PDF generation are
 * writes too, so they draw on their own bucket AND on the write bucket: both must allow. The specific
 * bucket is asked first and a refusal stops there, so a refused PDF request does not also spend a write.
 * A refused request still counts in the buckets it reached (fixed windows: the budget returns when the
 * window ends, however hard a client hammers). The two creation buckets count creations, as spec §8 names
 * them ("manual run creation", "PDF generation"): a request answered with anything but a 2xx (a body that
 * fails validation, an unknown run) gives its draw on them back once answered, so a client that corrects
 * a mistake is not made to wait a minute. Its write still counts.
 *
 * An authenticated ingest request gives its draw on the per-IP bucket back once its token's ingest bucket
 * allowed it: API.md's ingest bucket (1,200 a minute by default) exists so that a large CI run is not
 * throttled, and one CI machine is one address. The per-IP limit still stands in front of everything else
 * (and of ingest too, once other requests spent it), and the headers show the ingest bucket.
 *
 * Headers (spec §8) on every response, errors included: `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset` of the most restrictive bucket the request drew on (fewest requests left, then the
 * smaller limit); on a 429 those of the bucket that refused, plus `Retry-After` (set by the platform's
 * error middleware from RateLimitError).
 */

const MINUTE_MS = 60_000;
const perMinute = (limit: number): RateLimitRule => ({ limit, windowMs: MINUTE_MS });

export const RATE_LIMITS = {
  perIp: perMinute(200),
  read: perMinute(100),
  write: perMinute(60),
  manualRunCreation: perMinute(10),
  pdfGeneration: perMinute(1),
} as const;

export const DEFAULT_INGEST_LIMIT_PER_MINUTE = 1_200;

/** Wrong admin keys an address may offer a minute before the admin API stops listening to it. */
export const ADMIN_KEY_FAILURES_PER_MINUTE = 20;

const IP_BUCKET = { name: 'ip', rule: RATE_LIMITS.perIp };

/**
 * The gateway's rate-limit setting; merge it into the gateway's config schema.
 *
 * @example const { VERDICT_INGEST_RATE_LIMIT } = loadConfig(RateLimitConfig);
 */
export const RateLimitConfig = z.object({
  VERDICT_INGEST_RATE_LIMIT: envInteger({ min: 1, fallback: DEFAULT_INGEST_LIMIT_PER_MINUTE }),
});

declare module 'express-serve-static-core' {
  interface Locals {
    /** The decision the RateLimit-* headers show. */
    rateLimit?: RateLimitDecision;
  }
}

interface Bucket {
  name: string;
  rule: RateLimitRule;
  /** Counts only requests answered with a 2xx: the others are refunded once answered. */
  countsSuccessOnly?: boolean;
}

/**
 * The token buckets a kind of operation draws on, in the order they are asked.
 *
 * @example tokenBucketsFor('pdf-generation', 1200); // [pdf, write]
 */
export function tokenBucketsFor(kind: OperationKind, ingestLimitPerMinute: number): Bucket[] {
  const write = { name: 'token:write', rule: RATE_LIMITS.write };
  switch (kind) {
    case 'read':
      return [{ name: 'token:read', rule: RATE_LIMITS.read }];
    case 'ingest':
      return [{ name: 'token:ingest', rule: perMinute(ingestLimitPerMinute) }];
    case 'manual-run-creation':
      return [
        { name: 'token:manual-run-creation', rule: RATE_LIMITS.manualRunCreation, countsSuccessOnly: true },
        write,
      ];
    case 'pdf-generation':
      return [
        { name: 'token:pdf-generation', rule: RATE_LIMITS.pdfGeneration, countsSuccessOnly: true },
        write,
      ];
    case 'write':
    case 'webhook-write':
      return [write];
  }
}

/**
 * Spec §8's 200 requests a minute per IP, before authentication. Behind a proxy, set Express's
 * `trust proxy` so that `req.ip` is the client's address, not the proxy's. `skip` names requests already
 * counted (the API calls the gateway's own MCP endpoint makes for a request that drew on its client's IP).
 *
 * @example router.use(limitByIp({ rateLimiter }));
 */
export function limitByIp({
  rateLimiter,
  skip,
}: {
  rateLimiter: RateLimiter;
  skip?: (req: Request) => boolean;
}): RequestHandler {
  return async (req, res, next) => {
    if (!skip?.(req)) await draw(res, rateLimiter, [IP_BUCKET], clientAddress(req));
    next();
  };
}

/**
 * The admin key guards every organization's tokens: an address that offers wrong keys is refused (429 with
 * Retry-After) after ADMIN_KEY_FAILURES_PER_MINUTE of them in a minute, so the key cannot be guessed at
 * the speed of the network. Each request draws, and gives its draw back unless it was refused as
 * unauthorized: only failures count, and an administrator's scripts are never slowed.
 *
 * @example app.use('/admin/v1', limitFailedAdminKeys({ rateLimiter, logger }), adminRouter);
 */
export function limitFailedAdminKeys(options: { rateLimiter: RateLimiter; logger?: Logger }): RequestHandler {
  const bucket = { name: 'admin:failed-key', rule: perMinute(ADMIN_KEY_FAILURES_PER_MINUTE) };
  return async (req, res, next) => {
    const key = clientAddress(req);
    const decision = await options.rateLimiter.consume(bucket.name, key, bucket.rule);
    if (!decision.allowed) throw new RateLimitError(decision.resetSeconds);
    res.once('finish', () => {
      if (res.statusCode === 401) return;
      options.rateLimiter.refund(bucket.name, key, bucket.rule).catch((err: unknown) => {
        options.logger?.warn({ err }, 'could not give back an admin request its draw');
      });
    });
    next();
  };
}

export interface LimitByTokenOptions {
  rateLimiter: RateLimiter;
  ingestLimitPerMinute: number;
  /** Where a refund that could not be made is reported. */
  logger?: Logger;
}

/**
 * The per-token buckets of spec §8 and API.md for this request. Mount after authenticate().
 *
 * @example router.use(limitByToken({ rateLimiter, ingestLimitPerMinute: config.VERDICT_INGEST_RATE_LIMIT }));
 */
export function limitByToken(options: LimitByTokenOptions): RequestHandler {
  const { rateLimiter, ingestLimitPerMinute } = options;
  return async (req, res, next) => {
    const { kind } = describeRequest(req.method, req.path);
    const buckets = tokenBucketsFor(kind, ingestLimitPerMinute);
    const key = principalOf(res).token.id;
    const refundable = buckets.filter((bucket) => bucket.countsSuccessOnly === true);
    if (refundable.length > 0) {
      // Registered before drawing: a 429 from the write bucket after this one allowed is no creation either.
      res.once('finish', () => {
        if (res.statusCode >= 200 && res.statusCode < 300) return;
        for (const bucket of refundable) {
          rateLimiter.refund(bucket.name, key, bucket.rule).catch((err: unknown) => {
            options.logger?.warn({ err, bucket: bucket.name }, 'could not give back a refused creation');
          });
        }
      });
    }
    const decisions = await draw(res, rateLimiter, buckets, key);
    const shown = res.locals.rateLimit as RateLimitDecision | undefined;
    if (shown && refundable.some((bucket) => decisions[buckets.indexOf(bucket)] === shown)) {
      showRefundBeforeAnswer(res, shown);
    }
    if (kind === 'ingest') {
      await rateLimiter.refund(IP_BUCKET.name, clientAddress(req), IP_BUCKET.rule);
      const ingest = decisions[decisions.length - 1];
      if (ingest) show(res, ingest);
    }
    next();
  };
}

/**
 * The headers show a refundable bucket (the PDF reports' one a minute): an answer that is not a 2xx gives
 * its draw back once sent, so it says so already, one more remaining, instead of a 0 the next request
 * would not meet.
 */
function showRefundBeforeAnswer(res: Response, shown: RateLimitDecision): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, ...args: unknown[]) {
    const status = typeof args[0] === 'number' ? args[0] : this.statusCode;
    if ((status < 200 || status >= 300) && res.getHeader('RateLimit-Remaining') === String(shown.remaining)) {
      res.setHeader('RateLimit-Remaining', String(Math.min(shown.limit, shown.remaining + 1)));
    }
    return (writeHead as (...a: unknown[]) => Response).apply(this, args);
  } as Response['writeHead'];
}

/** Consumes from each bucket in turn; shows the most restrictive decision; throws on the first refusal. */
async function draw(
  res: Response,
  rateLimiter: RateLimiter,
  buckets: Bucket[],
  key: string,
): Promise<RateLimitDecision[]> {
  const decisions: RateLimitDecision[] = [];
  for (const bucket of buckets) {
    const decision = await rateLimiter.consume(bucket.name, key, bucket.rule);
    if (!decision.allowed) {
      show(res, decision);
      throw new RateLimitError(decision.resetSeconds);
    }
    decisions.push(decision);
    show(res, moreRestrictive(res.locals.rateLimit, decision));
  }
  return decisions;
}

function moreRestrictive(current: RateLimitDecision | undefined, next: RateLimitDecision): RateLimitDecision {
  if (current === undefined) return next;
  if (next.remaining !== current.remaining) return next.remaining < current.remaining ? next : current;
  return next.limit < current.limit ? next : current;
}

/** Headers set now survive an error later: the error middleware adds to them, it never clears them. */
function show(res: Response, decision: RateLimitDecision): void {
  res.locals.rateLimit = decision;
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
}

function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
