import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { assertRule, type RateLimitDecision, type RateLimitRule } from './types';

/**
 * What the adapters share on top of rate-limiter-flexible: that library fixes points and duration per
 * limiter object, so the port's (bucket, rule) pairs map to one limiter each, built on first use; and it
 * rejects with a RateLimiterRes for a refusal but with an Error for a store failure, which this tells apart.
 */

/**
 * A lookup that builds one limiter per (bucket, rule) and keeps it.
 *
 * @example const limiterFor = limiterCache((bucket, rule) => new RateLimiterMemory({ keyPrefix: bucket, points: rule.limit, duration: rule.windowMs / 1000 }));
 */
export function limiterCache<L>(
  build: (bucket: string, rule: RateLimitRule) => L,
): (bucket: string, rule: RateLimitRule) => L {
  const limiters = new Map<string, L>();
  return (bucket, rule) => {
    assertRule(rule);
    const id = `${bucket}\n${rule.limit}\n${rule.windowMs}`;
    let limiter = limiters.get(id);
    if (limiter === undefined) {
      limiter = build(bucket, rule);
      limiters.set(id, limiter);
    }
    return limiter;
  };
}

/**
 * Consumes one point of `key`: a decision for an allowed or refused request; a store failure is rethrown.
 *
 * @example const decision = await consumeOne(limiter, tokenId, 100);
 */
export async function consumeOne(
  limiter: RateLimiterAbstract,
  key: string,
  limit: number,
): Promise<RateLimitDecision> {
  try {
    return decisionOf(await limiter.consume(key), limit, true);
  } catch (err) {
    if (err instanceof RateLimiterRes) return decisionOf(err, limit, false);
    throw err;
  }
}

function decisionOf(res: RateLimiterRes, limit: number, allowed: boolean): RateLimitDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    // A window that ends within this second still reports 1: "0 seconds" would invite an instant retry.
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1_000)),
  };
}

/**
 * Gives one point of `key` back if its window has any consumed; a store failure is rethrown.
 *
 * @example await refundOne(limiter, tokenId);
 */
export async function refundOne(limiter: RateLimiterAbstract, key: string): Promise<void> {
  const current = await limiter.get(key);
  if (current === null || current.consumedPoints <= 0) return;
  await limiter.reward(key, 1);
}
