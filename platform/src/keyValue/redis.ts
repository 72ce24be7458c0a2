import { createClient, defineScript, ErrorReply, type CommandParser, type RedisClientType } from 'redis';
import { ServiceUnavailableError } from '../errors';
import type { Logger } from '../logging';
import { manageConnection, reconnectDelay } from '../redis/connection';
import { deadline } from '../redis/deadline';
import { createRedisRateLimiter, type RedisRateLimiterOptions } from '../rateLimit/redis';
import type { RateLimiter } from '../rateLimit/types';
import type { KeyValue } from './types';

/**
 * The distributed mode's key-value store: Redis, so every gateway replica shares one view of counters and
 * marks. The only file that imports `redis`. A Redis that cannot be reached surfaces as
 * ServiceUnavailableError, so each caller decides to fail open or closed; a command Redis itself refuses
 * (say, incrementing a non-integer) is a programming error and is rethrown as is.
 */

export interface RedisKeyValueOptions {
  url: string;
  logger?: Logger;
  /**
   * How long one command may wait, including time queued while (re)connecting (default 1,000 ms). Bounded
   * so that a request depending on a rate limit learns of an outage quickly instead of hanging.
   */
  commandTimeoutMs?: number;
  /** Upper bound of the reconnect backoff (default 5,000 ms). */
  maxReconnectDelayMs?: number;
}

/**
 * One round trip: create-or-add, set the TTL only on a counter this call created (EXISTS, not "value ==
 * by", so an existing counter that happens to sit at 0 keeps its TTL), then read the TTL back.
 */
const INCREMENT = defineScript({
  NUMBER_OF_KEYS: 1,
  SCRIPT: `
local existed = redis.call('EXISTS', KEYS[1])
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2])
if existed == 0 and ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return {value, redis.call('PTTL', KEYS[1])}
`,
  parseCommand(parser: CommandParser, key: string, by: number, ttlMs: number) {
    parser.pushKey(key);
    parser.push(String(by), String(ttlMs));
  },
  transformReply: (reply: unknown) => reply as [number, number],
});

/**
 * A KeyValue over Redis. Returns at once and connects in the background, reconnecting with capped
 * exponential backoff for as long as the store is open; commands issued meanwhile wait up to
 * `commandTimeoutMs`.
 *
 * @example const kv = createRedisKeyValue({ url: config.REDIS_URL, logger });
 */
export function createRedisKeyValue(options: RedisKeyValueOptions): KeyValue {
  return openKeyValue(options).kv;
}

export interface RedisStoresOptions extends RedisKeyValueOptions {
  /** Options of the rate limiter that shares the key-value store's connection. */
  rateLimit?: Omit<RedisRateLimiterOptions, 'url' | 'client' | 'logger'>;
}

/**
 * The key-value store and the rate limiter on ONE connection. node-redis writes the commands issued in
 * the same turn of the event loop in one batch, so a request that draws on a rate limit and reads or
 * counts something in the same turn pays one round trip instead of two. Close the rate limiter, then the
 * key-value store (which owns the connection).
 *
 * @example const { kv, rateLimiter } = createRedisStores({ url: config.redisUrl, logger });
 */
export function createRedisStores(options: RedisStoresOptions): { kv: KeyValue; rateLimiter: RateLimiter } {
  const { kv, client } = openKeyValue(options);
  const rateLimiter = createRedisRateLimiter({
    ...options.rateLimit,
    client: client as unknown as RedisClientType,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return { kv, rateLimiter };
}

function openKeyValue(options: RedisKeyValueOptions) {
  const log = options.logger?.child({ component: 'redis' });
  const maxDelayMs = options.maxReconnectDelayMs ?? 5_000;
  const client = createClient({
    url: options.url,
    scripts: { increment: INCREMENT },
    socket: { reconnectStrategy: (retries) => reconnectDelay(retries, maxDelayMs) },
  });

  // Log each outage once, not once per reconnect attempt.
  const connection = manageConnection(client, {
    onReady: () => log?.info('redis connected'),
    onError: (err, wasReady) =>
      wasReady
        ? log?.warn({ err }, 'redis connection lost; reconnecting')
        : log?.debug({ err }, 'redis not reachable yet'),
    onGiveUp: (err) => log?.error({ err }, 'redis client gave up connecting'),
  });
  const shutDown = () => connection.close();

  const within = deadline(options.commandTimeoutMs ?? 1_000);
  const run = async <T>(operation: string, command: () => Promise<T>): Promise<T> => {
    try {
      return await within(command());
    } catch (err) {
      if (err instanceof ErrorReply) throw err;
      throw new ServiceUnavailableError(`Key-value store unavailable (${operation})`, err);
    }
  };

  let closing: Promise<void> | undefined;
  const kv: KeyValue = {
    get: (key) => run('get', () => client.get(key)),

    async set(key, value, setOptions) {
      const ttlMs = setOptions?.ttlMs;
      if (ttlMs !== undefined) assertTtlMs(ttlMs);
      await run('set', () =>
        ttlMs === undefined
          ? client.set(key, value)
          : client.set(key, value, { expiration: { type: 'PX', value: ttlMs } }),
      );
    },

    async delete(key) {
      await run('delete', () => client.del(key));
    },

    async increment(key, incrementOptions) {
      const by = incrementOptions?.by ?? 1;
      const ttlMs = incrementOptions?.ttlMs;
      if (!Number.isSafeInteger(by)) throw new RangeError(`by must be an integer, got ${by}`);
      if (ttlMs !== undefined) assertTtlMs(ttlMs);
      const [value, remaining] = await run('increment', () => client.increment(key, by, ttlMs ?? 0));
      return { value: Number(value), ttlMs: Number(remaining) };
    },

    async ping() {
      await run('ping', () => client.ping());
    },

    async close() {
      closing ??= shutDown();
      await closing;
    },
  };
  return { kv, client };
}

/** Exponential backoff from 100 ms, capped, with jitter so that replicas do not reconnect in lockstep. */

function assertTtlMs(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
}
