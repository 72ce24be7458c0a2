import type request from 'supertest';
import supertest from 'supertest';
import {
  createHttpApp,
  createMemoryRateLimiter,
  loadConfig,
  sendData,
  silentLogger,
} from '@verdict/platform';
import { API_PREFIXES } from '../app';
import { errorEnvelope, repeat, seededDirectory, startGateway, type TestGateway } from './accessTestKit';
import type { FakeIdentityDirectory } from './fakeIdentityDirectory';
import { requireAdminKey } from '../identity/adminKey';
import { ADMIN_KEY_FAILURES_PER_MINUTE, limitFailedAdminKeys, RateLimitConfig } from './rateLimits';

const prefix: string = API_PREFIXES[0];
const otherPrefix: string = API_PREFIXES[1];

function rateLimitHeaders(response: request.Response) {
  return {
    limit: Number(response.headers['ratelimit-limit']),
    remaining: Number(response.headers['ratelimit-remaining']),
    reset: Number(response.headers['ratelimit-reset']),
  };
}

function expectRefused(response: request.Response, limit: number) {
  expect(response.status).toBe(429);
  expect(response.body).toEqual(errorEnvelope('RATE_LIMIT_EXCEEDED'));
  expect(rateLimitHeaders(response)).toEqual({ limit, remaining: 0, reset: expect.any(Number) });
  const reset = rateLimitHeaders(response).reset;
  expect(reset).toBeGreaterThan(0);
  expect(reset).toBeLessThanOrEqual(60);
  expect(Number(response.headers['retry-after'])).toBe(reset);
}

describe('rate limits of the public API (spec §8, API.md ingest)', () => {
  let directory: FakeIdentityDirectory;
  let gateway: TestGateway;
  let token: string;

  async function start(ingestLimitPerMinute?: number) {
    directory = seededDirectory();
    gateway = await startGateway(
      ingestLimitPerMinute === undefined ? { directory } : { directory, ingestLimitPerMinute },
    );
    token = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] }).token;
  }

  afterEach(async () => {
    await gateway.close();
  });

  const get = (path: string, bearer = token, base = prefix) =>
    gateway.http.get(`${base}${path}`).set('Authorization', `Bearer ${bearer}`);
  const post = (path: string, bearer = token) =>
    gateway.http.post(`${prefix}${path}`).set('Authorization', `Bearer ${bearer}`).send({});

  describe('with the default configuration', () => {
    beforeEach(async () => {
      await start();
    });

    it('when a token makes its 101st read within a minute, then 429 RATE_LIMIT_EXCEEDED with Retry-After', async () => {
      const statuses = await repeat(100, () => get('/p1/test-runs'));
      expect(statuses.every((status) => status === 200)).toBe(true);
      expectRefused(await get('/p1/test-runs'), 100);
    });

    it('when a token makes its 61st write within a minute, then 429 RATE_LIMIT_EXCEEDED', async () => {
      const statuses = await repeat(60, () => post('/p1/manual-test-cases'));
      expect(statuses.every((status) => status === 200)).toBe(true);
      expectRefused(await post('/p1/manual-test-cases'), 60);
    });

    it('when a token creates its 11th manual run within a minute, then 429 from the manual-run bucket', async () => {
      const statuses = await repeat(10, () => post('/p1/manual-runs'));
      expect(statuses.every((status) => status === 200)).toBe(true);
      expectRefused(await post('/p1/manual-runs'), 10);
    });

    it('when a token asks for its 2nd PDF within a minute, then 429 with Retry-After', async () => {
      expect((await post('/p1/reports')).status).toBe(200);
      expectRefused(await post('/p1/reports'), 1);
    });

    it('when manual runs were created, then they also spent the write budget (both buckets must allow)', async () => {
      await repeat(10, () => post('/p1/manual-runs'));
      const statuses = await repeat(50, () => post('/p1/manual-test-cases'));
      expect(statuses.every((status) => status === 200)).toBe(true);
      expectRefused(await post('/p1/manual-test-cases'), 60);
    });

    it('when the write budget is spent, then a PDF request is refused by the write bucket', async () => {
      await repeat(60, () => post('/p1/manual-test-cases'));
      expectRefused(await post('/p1/reports'), 60);
    });

    it('when a PDF request is refused by its own bucket, then it does not spend a write', async () => {
      await post('/p1/reports');
      await repeat(5, () => post('/p1/reports'));
      expect(rateLimitHeaders(await post('/p1/manual-test-cases')).remaining).toBe(58);
    });

    const refused = (path: string) =>
      gateway.http
        .post(`${prefix}${path}`)
        .set('Authorization', `Bearer ${token}`)
        .set('x-test-status', '400')
        .send({});

    it('when manual-run creations are refused by the service, then they give their draw back and 10 runs can still be created', async () => {
      const statuses = await repeat(12, () => refused('/p1/manual-runs'));
      expect(statuses.every((status) => status === 400)).toBe(true);
      const created = await repeat(10, () => post('/p1/manual-runs'));
      expect(created.every((status) => status === 200)).toBe(true);
      expectRefused(await post('/p1/manual-runs'), 10);
    });

    it('when a PDF request is refused by the service, then the next one is generated', async () => {
      const first = await refused('/p1/reports');
      expect(first.status).toBe(400);
      // Its draw is given back, and its headers say so: the next request is not the one over the limit.
      expect(rateLimitHeaders(first)).toMatchObject({ limit: 1, remaining: 1 });
      expect((await post('/p1/reports')).status).toBe(200);
      expectRefused(await post('/p1/reports'), 1);
    });

    it('when a manual-run creation is refused by the service, then its write still counts', async () => {
      await repeat(3, () => refused('/p1/manual-runs'));
      expect(rateLimitHeaders(await post('/p1/manual-test-cases')).remaining).toBe(56);
    });

    it('when one IP sends its 201st request, then 429 even though it never authenticated', async () => {
      const statuses = await repeat(200, () => gateway.http.get(`${prefix}/p1/test-runs`));
      expect(statuses.every((status) => status === 401)).toBe(true);
      expectRefused(await gateway.http.get(`${prefix}/p1/test-runs`), 200);
    });

    it('when one IP spends its budget, then even a valid token from that IP is refused', async () => {
      await repeat(200, () => gateway.http.get(`${prefix}/p1/test-runs`));
      expectRefused(await get('/p1/test-runs'), 200);
    });

    it('when one token spent its reads, then another token still reads and the same token still writes', async () => {
      await repeat(100, () => get('/p1/test-runs'));
      const other = directory.issueToken({ ownerUserId: 'u-viewer', projectIds: ['p1'] }).token;
      expect((await get('/p1/test-runs', other)).status).toBe(200);
      expect((await post('/p1/manual-test-cases')).status).toBe(200);
    });

    it('when reads go through both API prefixes, then they share one budget per token', async () => {
      await repeat(50, () => get('/p1/test-runs', token, prefix));
      await repeat(50, () => get('/p1/test-runs', token, otherPrefix));
      expectRefused(await get('/p1/test-runs', token, otherPrefix), 100);
    });

    it('when ingest calls exceed 60 a minute, then they are not throttled by the write limit', async () => {
      const ingest = [
        '/p1/test-runs',
        '/p1/test-runs/r1/results',
        '/p1/test-runs/r1/artifacts',
        '/p1/test-runs/r1/coverage',
        '/p1/test-runs/r1/finish',
        '/p1/imports/playwright',
        '/p1/imports/junit',
      ];
      const statuses: number[] = [];
      for (let round = 0; round < 10; round += 1) {
        for (const path of ingest) statuses.push((await post(path)).status);
      }
      expect(statuses).toHaveLength(70);
      expect(statuses.every((status) => status === 200)).toBe(true);
      // The write bucket is untouched: the next ordinary write is its first.
      expect(rateLimitHeaders(await post('/p1/manual-test-cases'))).toMatchObject({
        limit: 60,
        remaining: 59,
      });
    });

    it('when one CI machine sends 250 ingest calls in a minute, then the per-IP limit does not stop them and the headers show the ingest bucket', async () => {
      const statuses = await repeat(250, () => post('/p1/test-runs/r1/results'));
      expect(statuses.every((status) => status === 200)).toBe(true);
      expect(rateLimitHeaders(await post('/p1/test-runs/r1/results'))).toMatchObject({
        limit: 1_200,
        remaining: 1_200 - 251,
      });
      // The address still has its whole budget for everything else.
      expect(rateLimitHeaders(await gateway.http.get(`${prefix}/p1/test-runs`))).toMatchObject({
        limit: 200,
        remaining: 199,
      });
    });

    it('when a read succeeds, then RateLimit-* show the read bucket', async () => {
      const response = await get('/p1/test-runs');
      expect(response.status).toBe(200);
      expect(rateLimitHeaders(response)).toEqual({ limit: 100, remaining: 99, reset: expect.any(Number) });
      expect(rateLimitHeaders(response).reset).toBeGreaterThan(0);
    });

    it('when a PDF succeeds, then RateLimit-* show the most restrictive bucket, the PDF one', async () => {
      expect(rateLimitHeaders(await post('/p1/reports'))).toMatchObject({ limit: 1, remaining: 0 });
    });

    it('when authentication fails, then the 401 still carries RateLimit-* of the IP bucket', async () => {
      const response = await gateway.http.get(`${prefix}/p1/test-runs`);
      expect(response.status).toBe(401);
      expect(rateLimitHeaders(response)).toEqual({ limit: 200, remaining: 199, reset: expect.any(Number) });
    });

    it('when authorization fails, then the 403 still carries RateLimit-* headers', async () => {
      const response = await get('/p2/test-runs');
      expect(response.status).toBe(403);
      expect(rateLimitHeaders(response)).toMatchObject({ limit: 200, remaining: 199 });
    });

    it('when no route matches, then the 404 still carries RateLimit-* of the token bucket', async () => {
      const response = await get('/nothing-here');
      expect(response.status).toBe(404);
      expect(rateLimitHeaders(response)).toMatchObject({ limit: 100, remaining: 99 });
    });
  });

  describe('with VERDICT_INGEST_RATE_LIMIT set', () => {
    beforeEach(async () => {
      await start(5);
    });

    it('when a token sends its 6th ingest call of a minute under a limit of 5, then 429 from the ingest bucket', async () => {
      const statuses = await repeat(5, () => post('/p1/test-runs/r1/results'));
      expect(statuses.every((status) => status === 200)).toBe(true);
      expectRefused(await post('/p1/imports/junit'), 5);
    });
  });
});

describe('rate-limit configuration', () => {
  it('when VERDICT_INGEST_RATE_LIMIT is unset, then the ingest limit is 1,200 a minute', () => {
    expect(loadConfig(RateLimitConfig, {}).VERDICT_INGEST_RATE_LIMIT).toBe(1_200);
  });

  it('when VERDICT_INGEST_RATE_LIMIT is set, then it is the ingest limit', () => {
    expect(loadConfig(RateLimitConfig, { VERDICT_INGEST_RATE_LIMIT: '5000' }).VERDICT_INGEST_RATE_LIMIT).toBe(
      5_000,
    );
  });

  it.each(['0', '-1', '1.5', 'many'])(
    'when VERDICT_INGEST_RATE_LIMIT is %s, then the configuration is refused',
    (value) => {
      expect(() => loadConfig(RateLimitConfig, { VERDICT_INGEST_RATE_LIMIT: value })).toThrow(
        /VERDICT_INGEST_RATE_LIMIT/,
      );
    },
  );
});

describe('wrong admin keys (the admin API)', () => {
  const KEY = 'admin-key-0123456789abcdef';
  function adminApp() {
    const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'gateway' });
    app.use(
      '/admin/v1',
      limitFailedAdminKeys({ rateLimiter: createMemoryRateLimiter() }),
      requireAdminKey(KEY),
    );
    app.get('/admin/v1/ping', (_req, res) => sendData(res, { ok: true }));
    finish(app);
    return supertest(app);
  }

  it(`when an address offers ${ADMIN_KEY_FAILURES_PER_MINUTE} wrong keys in a minute, then the next request is a 429 with Retry-After, even with the right key`, async () => {
    const http = adminApp();
    const wrong = await repeat(ADMIN_KEY_FAILURES_PER_MINUTE, () =>
      http.get('/admin/v1/ping').set('authorization', 'Bearer not-the-key-0123456789'),
    );
    expect(wrong).toEqual(Array(ADMIN_KEY_FAILURES_PER_MINUTE).fill(401));
    const refused = await http.get('/admin/v1/ping').set('authorization', `Bearer ${KEY}`);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(errorEnvelope('RATE_LIMIT_EXCEEDED'));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('when the right key is used, then requests never count: an administrator is not slowed', async () => {
    const http = adminApp();
    const statuses = await repeat(ADMIN_KEY_FAILURES_PER_MINUTE * 3, () =>
      http.get('/admin/v1/ping').set('authorization', `Bearer ${KEY}`),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});
