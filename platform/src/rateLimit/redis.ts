import { setTimeout as sleep } from 'node:timers/promises';
import { Counter, type Registry } from 'prom-client';
import { createClient, type RedisClientType } from 'redis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { Logger } from '../logging';
import { manageConnection, reconnectDelay } from '../redis/connection';
import { deadline } from '../redis/deadline';
import { consumeOne, limiterCache, refundOne } from './flexible';
import { createMemoryRateLimiter } from './memory';
import type { RateLimiter } from './types';

/**
 * The distributed mode's rate limiter: rate-limiter-flexible's RateLimiterRedis, one Lua script per
 * consume (SET NX with the window's expiry, INCRBY, PTTL), so every gateway replica draws on one budget.
 * The only rate-limit file that imports `redis`.
 *
 * When Redis cannot be reached it neither fails open nor closed: it fails over to a per-replica
 * in-memory limiter with the same rules, logs one warning per outage and counts each such decision in
 * `verdict_rate_limit_fallback_total`. Failing closed would turn a cache outage into a total API outage
 * (every request a 503) while tokens, stores and services still work; failing open would drop the abuse
 * protection of spec §8 exactly when the system is already degraded. Per replica the limits still hold;
 * the shared budget grows to at most replicas × limit until Redis is back, and no request ever gets a 500.
 */

export type RedisRateLimiterOptions = (
  | {
      url: string;
      client?: never;
    }
  | {
      /** A connected client the caller owns: close() leaves it open. */
      client: RedisClientType;
      url?: never;
    }
) & {
  /** Prefix of every key in Redis (default `verdict:rate-limit`); replicas that share a budget share it. */
  keyPrefix?: string;
  logger?: Logger;
  /** Where `verdict_rate_limit_fallback_total` is registered; no metric when absent. */
  metrics?: Registry;
  /**
   * How long one consume may wait for Redis (default 500 ms) before the in-memory fallback decides; for a
   * client this limiter opens from `url`, also how long the first consumes wait for the first connection.
   */
  commandTimeoutMs?: number;
};

const FALLBACK_METRIC = 'verdict_rate_limit_fallback_total';

/**
 * A RateLimiter over Redis that fails over to process memory while Redis is unreachable.
 *
 * @example const limiter = createRedisRateLimiter({ url: config.REDIS_URL, logger, metrics: registry });
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const log = options.logger?.child({ component: 'rate-limit' });
  const timeoutMs = options.commandTimeoutMs ?? 500;
  const connection =
    options.client === undefined
      ? openConnection(options.url, timeoutMs, log)
      : borrowedConnection(options.client);
  const keyPrefix = options.keyPrefix ?? 'verdict:rate-limit';
  const limiterFor = limiterCache(
    (bucket, rule) =>
      new RateLimiterRedis({
        storeClient: connection.client,
        useRedisPackage: true,
        // An unready connection fails over at once instead of queueing requests behind reconnects.
        rejectIfRedisNotReady: true,
        // The window's fixed length lives in Redis; no local blocking, so every replica agrees.
        inMemoryBlockOnConsumed: 0,
        keyPrefix: `${keyPrefix}:${bucket}`,
        points: rule.limit,
        duration: rule.windowMs / 1_000,
      }),
  );
  const within = deadline(timeoutMs);
  const fallback = createMemoryRateLimiter();
  const fallbacks = options.metrics === undefined ? undefined : fallbackCounter(options.metrics);

  let degraded = false;
  const noteFailure = (err: unknown, bucket: string) => {
    fallbacks?.inc({ bucket });
    if (degraded) return;
    degraded = true;
    log?.warn({ err }, 'rate-limit store unreachable; enforcing limits per replica until it is back');
  };
  const noteSuccess = () => {
    if (!degraded) return;
    degraded = false;
    log?.info('rate-limit store reachable again; limits are shared across replicas');
  };

  let closed = false;
  return {
    async consume(bucket, key, rule) {
      if (closed) throw new Error('The rate limiter is closed');
      // Outside the try: a rule no store can honour is the caller's bug, not an outage.
      const limiter = limiterFor(bucket, rule);
      await connection.firstConnection();
      try {
        const decision = await within(consumeOne(limiter, key, rule.limit));
        noteSuccess();
        return decision;
      } catch (err) {
        noteFailure(err, bucket);
        return fallback.consume(bucket, key, rule);
      }
    },
    async refund(bucket, key, rule) {
      if (closed) throw new Error('The rate limiter is closed');
      const limiter = limiterFor(bucket, rule);
      await connection.firstConnection();
      try {
        await within(refundOne(limiter, key));
        noteSuccess();
      } catch (err) {
        // The request may have been counted by the fallback during the outage: give it back there.
        noteFailure(err, bucket);
        await fallback.refund(bucket, key, rule);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await fallback.close();
      await connection.close();
    },
  };
}

interface Connection {
  client: RedisClientType;
  /** Resolves once the first connection is up, or once a single bounded wait is over; never rejects. */
  firstConnection(): Promise<void>;
  close(): Promise<void>;
}

function borrowedConnection(client: RedisClientType): Connection {
  return { client, firstConnection: async () => undefined, close: async () => undefined };
}

/**
 * A client of our own: connects in the background and reconnects with capped backoff while open. The
 * first consumes wait for the first connection (bounded), so a freshly started replica does not answer
 * its first requests from the fallback.
 */
function openConnection(url: string, timeoutMs: number, log: Logger | undefined): Connection {
  const client: RedisClientType = createClient({
    url,
    socket: {
      connectTimeout: Math.max(timeoutMs, 1_000),
      reconnectStrategy: (retries) => reconnectDelay(retries),
    },
  });
  // Without an error listener node-redis would crash the process; the limiter logs outages itself.
  const connection = manageConnection(client, {
    onError: (err) => log?.debug({ err }, 'rate-limit store connection error'),
    onGiveUp: (err) => log?.error({ err }, 'rate-limit store client gave up connecting'),
  });
  const { connecting } = connection;
  const close = () => connection.close();

  // One bounded wait per limiter, not per request: a replica started during an outage must not add the
  // timeout to every request.
  let initialWait: Promise<void> | undefined;
  return {
    client,
    async firstConnection() {
      if (connection.everReady()) return;
      initialWait ??= Promise.race([connecting, sleep(timeoutMs, undefined, { ref: false })]);
      await initialWait;
    },
    close,
  };
}

function fallbackCounter(registry: Registry): Counter<'bucket'> {
  const existing = registry.getSingleMetric(FALLBACK_METRIC);
  if (existing instanceof Counter) return existing as Counter<'bucket'>;
  return new Counter({
    name: FALLBACK_METRIC,
    help: 'Rate-limit decisions taken by the per-replica fallback because Redis was unreachable',
    labelNames: ['bucket'] as const,
    registers: [registry],
  });
}
