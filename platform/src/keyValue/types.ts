/**
 * Key-value port for shared counters and small values (rate limits, revocation marks, caches). Redis in
 * distributed mode so replicas share one view; memory in the embedded mode. Every operation is atomic.
 */
export interface KeyValue {
  get(key: string): Promise<string | null>;
  /** Sets a value, with an optional time to live in milliseconds. */
  set(key: string, value: string, options?: { ttlMs?: number }): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Atomically adds `by` (default 1) to an integer counter; a counter that did not exist starts at 0 and
   * gets `ttlMs` as its time to live (the TTL of an existing counter is left alone). Returns the new value
   * and the milliseconds the counter has left (-1 when it has no TTL).
   */
  increment(
    key: string,
    options?: { by?: number; ttlMs?: number },
  ): Promise<{ value: number; ttlMs: number }>;
  /** Resolves when the store answers; used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
