import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../clock';
import { requireServer, uniqueName } from '../testing';
import { createTestPGlite } from '../testing/databases';
import { createPostgresDatabase } from '../sql/postgres';
import type { SqlDatabase } from '../sql/types';
import { createMemoryKeyValue } from './memory';
import { createRedisKeyValue } from './redis';
import { createSqlKeyValue } from './sql';
import type { KeyValue } from './types';

/** One database per SQL engine for the whole file; each store gets a schema of its own. */
const databases: SqlDatabase[] = [];
function sqlStore(open: () => Promise<SqlDatabase>): () => Promise<KeyValue> {
  let db: Promise<SqlDatabase> | undefined;
  return async () => {
    db ??= open().then((opened) => (databases.push(opened), opened));
    return createSqlKeyValue({ db: await db, schema: uniqueName('kv') });
  };
}
afterAll(async () => {
  for (const db of databases) await db.close();
});

// One contract, every adapter: the embedded and distributed modes must behave the same.
describe.each([
  ['memory', async () => createMemoryKeyValue()],
  ['redis', async () => createRedisKeyValue({ url: requireServer('REDIS_URL') })],
  ['SQL on PGlite', sqlStore(() => createTestPGlite())],
  [
    'SQL on PostgreSQL',
    sqlStore(async () => createPostgresDatabase({ connectionString: requireServer('DATABASE_URL'), max: 4 })),
  ],
] as const)('KeyValue contract (%s)', (_adapter, create: () => Promise<KeyValue>) => {
  let kv: KeyValue;
  let key: (name: string) => string;

  beforeEach(async () => {
    kv = await create();
    const prefix = uniqueName('kv');
    key = (name) => `${prefix}:${name}`;
  });

  afterEach(async () => {
    await kv.close();
  });

  it('when a key was never set, then get returns null', async () => {
    expect(await kv.get(key('missing'))).toBeNull();
  });

  it('when a value is set, then get returns it and a second set overwrites it', async () => {
    await kv.set(key('a'), 'one');
    expect(await kv.get(key('a'))).toBe('one');
    await kv.set(key('a'), 'two');
    expect(await kv.get(key('a'))).toBe('two');
  });

  it('when a key is deleted, then get returns null and deleting again is harmless', async () => {
    await kv.set(key('a'), 'one');
    await kv.delete(key('a'));
    expect(await kv.get(key('a'))).toBeNull();
    await expect(kv.delete(key('a'))).resolves.toBeUndefined();
  });

  it('when a value is set with a TTL, then it is gone once the TTL has passed', async () => {
    await kv.set(key('short'), 'v', { ttlMs: 50 });
    await kv.set(key('long'), 'v', { ttlMs: 60_000 });
    await sleep(200);
    expect(await kv.get(key('short'))).toBeNull();
    expect(await kv.get(key('long'))).toBe('v');
  });

  it('when a TTL is zero or negative, then set and increment reject it', async () => {
    await expect(kv.set(key('a'), 'v', { ttlMs: 0 })).rejects.toThrow(/ttlMs/);
    await expect(kv.increment(key('a'), { ttlMs: -5 })).rejects.toThrow(/ttlMs/);
    expect(await kv.get(key('a'))).toBeNull();
  });

  it('when a counter does not exist, then increment creates it at `by` with the given TTL', async () => {
    const result = await kv.increment(key('c'), { by: 5, ttlMs: 60_000 });
    expect(result.value).toBe(5);
    expect(result.ttlMs).toBeGreaterThan(0);
    expect(result.ttlMs).toBeLessThanOrEqual(60_000);
    expect(await kv.get(key('c'))).toBe('5');
  });

  it('when a counter is incremented again, then its TTL is kept, not renewed', async () => {
    const first = await kv.increment(key('c'), { ttlMs: 60_000 });
    await sleep(20);
    const second = await kv.increment(key('c'), { ttlMs: 60_000 });
    expect(second.value).toBe(2);
    expect(second.ttlMs).toBeGreaterThan(0);
    expect(second.ttlMs).toBeLessThanOrEqual(first.ttlMs);
  });

  it('when a counter is created without a TTL, then it reports -1 and a later TTL is not applied', async () => {
    expect(await kv.increment(key('c'))).toEqual({ value: 1, ttlMs: -1 });
    expect(await kv.increment(key('c'), { ttlMs: 50 })).toEqual({ value: 2, ttlMs: -1 });
    await sleep(200);
    expect(await kv.get(key('c'))).toBe('2');
  });

  it('when a counter with a TTL expires, then the next increment starts a new one', async () => {
    await kv.increment(key('c'), { by: 3, ttlMs: 50 });
    await sleep(200);
    const result = await kv.increment(key('c'), { ttlMs: 60_000 });
    expect(result.value).toBe(1);
    expect(result.ttlMs).toBeGreaterThan(50);
  });

  it('when by is negative, then the counter goes down', async () => {
    await kv.increment(key('c'), { by: 10 });
    expect((await kv.increment(key('c'), { by: -4 })).value).toBe(6);
  });

  it('when the value is not an integer, then increment rejects and leaves it alone', async () => {
    await kv.set(key('text'), 'hello');
    await expect(kv.increment(key('text'))).rejects.toThrow(/integer/);
    expect(await kv.get(key('text'))).toBe('hello');
  });

  it('when 200 increments run concurrently on one key, then the counter ends at exactly 200', async () => {
    const results = await Promise.all(
      Array.from({ length: 200 }, () => kv.increment(key('busy'), { ttlMs: 60_000 })),
    );
    expect(await kv.get(key('busy'))).toBe('200');
    // Atomic: every caller saw a distinct value, so no two requests shared one rate-limit slot.
    expect(new Set(results.map((r) => r.value)).size).toBe(200);
  });

  it('when the store is up, then ping resolves', async () => {
    await expect(kv.ping()).resolves.toBeUndefined();
  });

  it('when the store is closed, then operations reject and closing again is harmless', async () => {
    await kv.close();
    await expect(kv.get(key('a'))).rejects.toThrow();
    await expect(kv.ping()).rejects.toThrow();
    await expect(kv.close()).resolves.toBeUndefined();
  });
});

describe('Redis KeyValue when the server cannot be reached', () => {
  it('when a command is issued, then it fails with SERVICE_UNAVAILABLE instead of hanging', async () => {
    // Port 1 on loopback: nothing listens there, so every connection attempt is refused.
    const kv = createRedisKeyValue({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 100 });
    try {
      await expect(kv.ping()).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', retriable: true });
      await expect(kv.increment('k')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await kv.close();
    }
  });
});

describe.each([
  ['memory', async (clock: ManualClock) => ({ kv: createMemoryKeyValue({ clock }), done: async () => {} })],
  [
    'SQL on PGlite',
    async (clock: ManualClock) => {
      const db = await createTestPGlite();
      return { kv: await createSqlKeyValue({ db, schema: 'kv_clock', clock }), done: () => db.close() };
    },
  ],
] as const)('%s KeyValue on an injected clock', (_adapter, open) => {
  it('when the clock passes a TTL, then the key and the counter are gone without waiting', async () => {
    const clock = new ManualClock();
    const { kv, done } = await open(clock);
    try {
      await kv.set('value', 'v', { ttlMs: 1_000 });
      await kv.increment('counter', { ttlMs: 1_000 });
      clock.advance(999);
      expect(await kv.get('value')).toBe('v');
      expect(await kv.increment('counter')).toEqual({ value: 2, ttlMs: 1 });
      clock.advance(1);
      expect(await kv.get('value')).toBeNull();
      expect(await kv.get('counter')).toBeNull();
    } finally {
      await kv.close();
      await done();
    }
  });
});

describe('SQL KeyValue', () => {
  it('when the process starts again on the same database, then the values are still there', async () => {
    const db = await createTestPGlite();
    try {
      const first = await createSqlKeyValue({ db, schema: 'kv_restart' });
      await first.increment('gateway:token-usage:t1:count', { by: 5 });
      await first.close();
      const again = await createSqlKeyValue({ db, schema: 'kv_restart' });
      expect(await again.increment('gateway:token-usage:t1:count')).toEqual({ value: 6, ttlMs: -1 });
    } finally {
      await db.close();
    }
  });
});
