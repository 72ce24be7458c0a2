import { setTimeout as sleep } from 'node:timers/promises';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Registry } from 'prom-client';
import { createClient, type RedisClientType } from 'redis';
import { requireServer, uniqueName } from '../testing';
import { createMemoryRateLimiter } from './memory';
import { createRedisRateLimiter } from './redis';
import type { RateLimiter, RateLimitRule } from './types';

const perMinute = (limit: number): RateLimitRule => ({ limit, windowMs: 60_000 });

async function consumeTimes(
  limiter: RateLimiter,
  times: number,
  bucket: string,
  key: string,
  rule: RateLimitRule,
) {
  const decisions = [];
  for (let i = 0; i < times; i += 1) decisions.push(await limiter.consume(bucket, key, rule));
  return decisions;
}

interface Subject {
  limiter: RateLimiter;
  /** Decisions the Redis adapter took from its in-memory fallback; the contract must hold without it. */
  fallbacks(): Promise<number>;
}

function redisSubject(): Subject {
  const metrics = new Registry();
  const limiter = createRedisRateLimiter({
    url: requireServer('REDIS_URL'),
    keyPrefix: uniqueName('rl'),
    metrics,
  });
  const fallbacks = async () => {
    const metric = await metrics.getSingleMetric('verdict_rate_limit_fallback_total')?.get();
    return (metric?.values ?? []).reduce((sum, sample) => sum + sample.value, 0);
  };
  return { limiter, fallbacks };
}

// One contract, every adapter: the embedded and distributed modes must limit the same way.
describe.each([
  ['memory', (): Subject => ({ limiter: createMemoryRateLimiter(), fallbacks: async () => 0 })],
  ['redis', redisSubject],
] as const)('RateLimiter contract (%s)', (_adapter, create: () => Subject) => {
  let subject: Subject;
  let limiter: RateLimiter;
  let bucket: string;

  beforeEach(() => {
    subject = create();
    limiter = subject.limiter;
    bucket = uniqueName('bucket');
  });

  afterEach(async () => {
    expect(await subject.fallbacks()).toBe(0);
    await limiter.close();
  });

  it('when N requests arrive within the window, then all N are allowed and the N+1st is refused', async () => {
    const decisions = await consumeTimes(limiter, 6, bucket, 'token-a', perMinute(5));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
  });

  it('when requests are allowed, then remaining counts down to zero and the limit is reported', async () => {
    const decisions = await consumeTimes(limiter, 4, bucket, 'token-a', perMinute(3));
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions.every((d) => d.limit === 3)).toBe(true);
  });

  it('when a request is counted, then the reset lies within the window, in whole seconds above zero', async () => {
    const [first, refused] = await consumeTimes(limiter, 2, bucket, 'token-a', perMinute(1));
    for (const decision of [first!, refused!]) {
      expect(decision.resetSeconds).toBeGreaterThan(0);
      expect(decision.resetSeconds).toBeLessThanOrEqual(60);
      expect(Number.isInteger(decision.resetSeconds)).toBe(true);
    }
    expect(refused!.allowed).toBe(false);
  });

  it('when two keys share a bucket, then each has its own budget', async () => {
    await consumeTimes(limiter, 2, bucket, 'token-a', perMinute(2));
    expect((await limiter.consume(bucket, 'token-a', perMinute(2))).allowed).toBe(false);
    expect((await limiter.consume(bucket, 'token-b', perMinute(2))).allowed).toBe(true);
  });

  it('when one key is counted in two buckets, then each bucket has its own budget', async () => {
    await consumeTimes(limiter, 1, bucket, 'token-a', perMinute(1));
    expect((await limiter.consume(bucket, 'token-a', perMinute(1))).allowed).toBe(false);
    expect((await limiter.consume(`${bucket}-other`, 'token-a', perMinute(1))).allowed).toBe(true);
  });

  it('when 50 requests race for a budget of 20, then exactly 20 are allowed', async () => {
    const decisions = await Promise.all(
      Array.from({ length: 50 }, () => limiter.consume(bucket, 'token-a', perMinute(20))),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
  });

  it('when the window has passed, then the budget is whole again', async () => {
    const rule = { limit: 1, windowMs: 1_000 };
    await limiter.consume(bucket, 'token-a', rule);
    expect((await limiter.consume(bucket, 'token-a', rule)).allowed).toBe(false);
    await sleep(1_500);
    expect(await limiter.consume(bucket, 'token-a', rule)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('when a counted request is refunded, then it is allowed again, and only once', async () => {
    await consumeTimes(limiter, 2, bucket, 'token-a', perMinute(2));
    await limiter.refund(bucket, 'token-a', perMinute(2));
    expect(await limiter.consume(bucket, 'token-a', perMinute(2))).toMatchObject({
      allowed: true,
      remaining: 0,
    });
    expect((await limiter.consume(bucket, 'token-a', perMinute(2))).allowed).toBe(false);
  });

  it('when nothing was counted, then a refund adds nothing to the budget', async () => {
    await limiter.refund(bucket, 'token-a', perMinute(2));
    await limiter.refund(bucket, 'token-a', perMinute(2));
    const decisions = await consumeTimes(limiter, 3, bucket, 'token-a', perMinute(2));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
  });

  it('when a rule is not a positive limit over whole seconds, then consume rejects it', async () => {
    await expect(limiter.consume(bucket, 'k', { limit: 0, windowMs: 60_000 })).rejects.toThrow(/limit/);
    await expect(limiter.consume(bucket, 'k', { limit: 5, windowMs: 1_500 })).rejects.toThrow(/windowMs/);
    await expect(limiter.consume(bucket, 'k', { limit: 5, windowMs: 0 })).rejects.toThrow(/windowMs/);
  });

  it('when the limiter is closed, then consume rejects and closing again is harmless', async () => {
    await limiter.close();
    await expect(limiter.consume(bucket, 'k', perMinute(5))).rejects.toThrow(/closed/);
    await expect(limiter.close()).resolves.toBeUndefined();
  });
});

describe('Redis RateLimiter shared by two gateway replicas', () => {
  it('when two limiters share one Redis, then they draw on one budget', async () => {
    const url = requireServer('REDIS_URL');
    const keyPrefix = uniqueName('rl');
    const borrowed: RedisClientType = createClient({ url });
    await borrowed.connect();
    const replicaA = createRedisRateLimiter({ url, keyPrefix });
    const replicaB = createRedisRateLimiter({ client: borrowed, keyPrefix });
    try {
      const rule = perMinute(10);
      const fromA = await consumeTimes(replicaA, 5, 'token:read', 'token-a', rule);
      const fromB = await consumeTimes(replicaB, 5, 'token:read', 'token-a', rule);
      expect([...fromA, ...fromB].every((d) => d.allowed)).toBe(true);
      expect(fromB.at(-1)!.remaining).toBe(0);
      expect((await replicaA.consume('token:read', 'token-a', rule)).allowed).toBe(false);
      expect((await replicaB.consume('token:read', 'token-a', rule)).allowed).toBe(false);
      await replicaB.close();
      // The caller owns a client it lent: closing the limiter leaves it open.
      expect(await borrowed.ping()).toBe('PONG');
    } finally {
      await Promise.all([replicaA.close(), replicaB.close()]);
      await borrowed.close();
    }
  });
});

describe('Redis RateLimiter when Redis cannot be reached', () => {
  function capturingLogger() {
    const lines: Array<{ level: number; msg: string }> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
        done();
      },
    });
    return { logger: pino({ level: 'debug' }, sink), lines };
  }

  it('when Redis is down, then limits still hold per replica, one warning is logged and each fallback is counted', async () => {
    const { logger, lines } = capturingLogger();
    const metrics = new Registry();
    // Port 1 on loopback: nothing listens there, so every connection attempt is refused.
    const limiter = createRedisRateLimiter({
      url: 'redis://127.0.0.1:1',
      logger,
      metrics,
      commandTimeoutMs: 100,
    });
    try {
      const decisions = await consumeTimes(limiter, 3, 'token:write', 'token-a', perMinute(2));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
      expect(decisions[2]).toMatchObject({ limit: 2, remaining: 0 });
      expect(decisions[2]!.resetSeconds).toBeGreaterThan(0);
      expect(lines.filter((line) => line.level === 40 && /unreachable/.test(line.msg))).toHaveLength(1);
      const counted = await metrics.getSingleMetric('verdict_rate_limit_fallback_total')!.get();
      expect(counted.values).toEqual([
        expect.objectContaining({ labels: { bucket: 'token:write' }, value: 3 }),
      ]);
    } finally {
      await limiter.close();
    }
  });
});
