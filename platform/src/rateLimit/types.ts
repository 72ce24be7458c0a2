/**
 * Rate-limit port: fixed windows counted per (bucket, key), such as ("token:read", tokenId). One consume
 * is one atomic operation on the store, so concurrent requests never share a slot, and every replica that
 * shares the store shares the budget. A refused request still counts: the window is fixed, so hammering
 * does not extend it, and the budget comes back when the window ends.
 */

export interface RateLimitRule {
  /** Requests allowed in one window. */
  limit: number;
  /** Window length in milliseconds; whole seconds (the stores keep expiries in seconds). */
  windowMs: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** The rule's limit: the `RateLimit-Limit` header. */
  limit: number;
  /** Requests left in the current window, never negative: `RateLimit-Remaining`. */
  remaining: number;
  /** Whole seconds until the window resets, at least 1: `RateLimit-Reset` and, when refused, `Retry-After`. */
  resetSeconds: number;
}

export interface RateLimiter {
  /**
   * Counts one request of `key` in `bucket` and says whether it is within `rule`. A bucket has one rule:
   * the same bucket with two different rules gives two unrelated counters.
   */
  consume(bucket: string, key: string, rule: RateLimitRule): Promise<RateLimitDecision>;
  /**
   * Gives back one request of `key` in `bucket`'s current window, for a request that turned out not to be
   * what the bucket counts (a refused creation). Nothing when the window holds no request: a refund after
   * the window ended never adds to the next one.
   */
  refund(bucket: string, key: string, rule: RateLimitRule): Promise<void>;
  /** Releases the limiter's resources (a connection it opened itself). */
  close(): Promise<void>;
}

/**
 * Throws a RangeError for a rule no store can honour: a non-positive limit or a window that is not a
 * positive whole number of seconds (a zero-second expiry would make a counter that never resets).
 *
 * @example assertRule({ limit: 100, windowMs: 60_000 });
 */
export function assertRule(rule: RateLimitRule): void {
  if (!Number.isSafeInteger(rule.limit) || rule.limit <= 0) {
    throw new RangeError(`limit must be a positive integer, got ${rule.limit}`);
  }
  if (!Number.isSafeInteger(rule.windowMs) || rule.windowMs < 1_000 || rule.windowMs % 1_000 !== 0) {
    throw new RangeError(`windowMs must be a positive whole number of seconds, got ${rule.windowMs}`);
  }
}
