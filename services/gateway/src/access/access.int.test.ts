import { ManualClock, type KeyValue, type RateLimiter } from '@verdict/platform';
import { createRedisKeyValue } from '@verdict/platform/redis';
import { createRedisRateLimiter } from '@verdict/platform/rateLimit/redis';
import { requireServer, uniqueName } from '@verdict/platform/testing';
import { API_PREFIXES } from '../app';
import { errorEnvelope, NOW, repeat, seededDirectory, startGateway, type TestGateway } from './accessTestKit';
import type { FakeIdentityDirectory } from './fakeIdentityDirectory';

const [prefix] = API_PREFIXES;

/**
 * Two gateway replicas: separate apps, separate Redis connections, one Redis and one identity directory
 * (the FAKE directory stands in for the shared read model).
 */
describe('two gateway replicas sharing one Redis', () => {
  let directory: FakeIdentityDirectory;
  let replicas: TestGateway[];
  let adapters: Array<RateLimiter | KeyValue>;

  beforeEach(async () => {
    const url = requireServer('REDIS_URL');
    const keyPrefix = uniqueName('rl');
    directory = seededDirectory();
    adapters = [];
    replicas = [];
    for (let i = 0; i < 2; i += 1) {
      const rateLimiter = createRedisRateLimiter({ url, keyPrefix });
      const kv = createRedisKeyValue({ url });
      adapters.push(rateLimiter, kv);
      replicas.push(await startGateway({ directory, rateLimiter, kv, clock: new ManualClock(NOW) }));
    }
  });

  afterEach(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await Promise.all(adapters.map((adapter) => adapter.close()));
  });

  const read = (replica: TestGateway, token: string) =>
    replica.http.get(`${prefix}/p1/test-runs`).set('Authorization', `Bearer ${token}`);

  it('when 50 reads go to each replica, then the 101st read is refused by either replica', async () => {
    const [a, b] = replicas as [TestGateway, TestGateway];
    const { token } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    const statuses = [
      ...(await repeat(50, () => read(a, token))),
      ...(await repeat(50, () => read(b, token))),
    ];
    expect(statuses.every((status) => status === 200)).toBe(true);

    const fromA = await read(a, token);
    const fromB = await read(b, token);
    for (const refused of [fromA, fromB]) {
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(errorEnvelope('RATE_LIMIT_EXCEEDED'));
      expect(refused.headers['ratelimit-limit']).toBe('100');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('when a token is revoked, then its very next request is refused by both replicas', async () => {
    const [a, b] = replicas as [TestGateway, TestGateway];
    const { token, record } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    expect((await read(a, token)).status).toBe(200);
    expect((await read(b, token)).status).toBe(200);

    directory.revoke(record.id, NOW);

    for (const replica of [a, b]) {
      const response = await read(replica, token);
      expect(response.status).toBe(401);
      expect(response.body).toEqual(errorEnvelope('UNAUTHORIZED'));
    }
  });

  it('when a token is used on both replicas, then token-info on either counts every use', async () => {
    const [a, b] = replicas as [TestGateway, TestGateway];
    const { token } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    await repeat(3, () => read(a, token));
    await repeat(2, () => read(b, token));
    const response = await b.http.get(`${prefix}/p1/token-info`).set('Authorization', `Bearer ${token}`);
    expect(response.status).toBe(200);
    expect(response.body.data.usageCount).toBe(6);
  });
});
