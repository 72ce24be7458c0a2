import { systemClock, type Clock } from '../clock';
import type { KeyValue } from './types';

/**
 * The embedded mode's key-value store: one Map in this process. Every operation is synchronous under the
 * hood, so each is atomic by construction. Expired entries vanish on access; a periodic sweep frees the
 * memory of keys that are never read again (rate-limit windows of tokens that stopped calling).
 */

interface Entry {
  value: string;
  /** Epoch milliseconds after which the entry no longer exists; null for no expiry. */
  expiresAt: number | null;
}

export interface MemoryKeyValueOptions {
  clock?: Clock;
  /** How often expired keys are swept (default 60 s); lazy expiry keeps reads correct in between. */
  sweepIntervalMs?: number;
}

/**
 * A KeyValue held in process memory; the same semantics as the Redis adapter.
 *
 * @example const kv = createMemoryKeyValue({ clock: new ManualClock() });
 */
export function createMemoryKeyValue(options: MemoryKeyValueOptions = {}): KeyValue {
  const clock = options.clock ?? systemClock;
  const entries = new Map<string, Entry>();
  let closed = false;

  const now = () => clock.now().getTime();
  const isExpired = (entry: Entry, at: number) => entry.expiresAt !== null && entry.expiresAt <= at;

  /** The live entry of `key`, deleting it first when it has expired. */
  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && isExpired(entry, now())) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  const sweep = () => {
    const at = now();
    for (const [key, entry] of entries) {
      if (isExpired(entry, at)) entries.delete(key);
    }
  };
  // unref: a forgotten close() must not keep a process (or a jest worker) alive.
  const sweeper = setInterval(sweep, options.sweepIntervalMs ?? 60_000);
  sweeper.unref();

  const assertOpen = () => {
    if (closed) throw new Error('The key-value store is closed');
  };

  return {
    async get(key) {
      assertOpen();
      return live(key)?.value ?? null;
    },

    async set(key, value, setOptions) {
      assertOpen();
      const ttlMs = setOptions?.ttlMs;
      if (ttlMs !== undefined) assertTtlMs(ttlMs);
      entries.set(key, { value, expiresAt: ttlMs === undefined ? null : now() + ttlMs });
    },

    async delete(key) {
      assertOpen();
      entries.delete(key);
    },

    async increment(key, incrementOptions) {
      assertOpen();
      const by = incrementOptions?.by ?? 1;
      const ttlMs = incrementOptions?.ttlMs;
      assertIncrement(by);
      if (ttlMs !== undefined) assertTtlMs(ttlMs);

      const existing = live(key);
      const value = (existing ? parseCounter(key, existing.value) : 0) + by;
      if (!Number.isSafeInteger(value))
        throw new RangeError(`Counter ${key} would leave the safe integer range`);
      // Only a counter created here gets the TTL: a fixed window must not slide on every hit.
      const expiresAt = existing ? existing.expiresAt : ttlMs === undefined ? null : now() + ttlMs;
      entries.set(key, { value: String(value), expiresAt });
      return { value, ttlMs: expiresAt === null ? -1 : expiresAt - now() };
    },

    async ping() {
      assertOpen();
    },

    async close() {
      closed = true;
      clearInterval(sweeper);
      entries.clear();
    },
  };
}

function parseCounter(key: string, raw: string): number {
  // The same rule as Redis INCRBY: a base-10 integer, nothing else.
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new TypeError(`The value of ${key} is not an integer`);
  }
  return Number(raw);
}

export function assertTtlMs(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
}

export function assertIncrement(by: number): void {
  if (!Number.isSafeInteger(by)) throw new RangeError(`by must be an integer, got ${by}`);
}
