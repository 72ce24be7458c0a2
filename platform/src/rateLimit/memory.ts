import { RateLimiterMemory } from 'rate-limiter-flexible';
import { consumeOne, limiterCache, refundOne } from './flexible';
import type { RateLimiter } from './types';

/**
 * The embedded mode's rate limiter: counters in this process (rate-limiter-flexible's RateLimiterMemory,
 * synchronous and so atomic per consume). Also the Redis adapter's stand-in while Redis is unreachable.
 */

/**
 * A RateLimiter held in process memory.
 *
 * @example const decision = await createMemoryRateLimiter().consume('token:read', tokenId, { limit: 100, windowMs: 60_000 });
 */
export function createMemoryRateLimiter(): RateLimiter {
  const limiterFor = limiterCache(
    (bucket, rule) =>
      new RateLimiterMemory({ keyPrefix: bucket, points: rule.limit, duration: rule.windowMs / 1_000 }),
  );
  let closed = false;
  return {
    async consume(bucket, key, rule) {
      if (closed) throw new Error('The rate limiter is closed');
      return consumeOne(limiterFor(bucket, rule), key, rule.limit);
    },
    async refund(bucket, key, rule) {
      if (closed) throw new Error('The rate limiter is closed');
      await refundOne(limiterFor(bucket, rule), key);
    },
    async close() {
      closed = true;
    },
  };
}
