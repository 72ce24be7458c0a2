import { apiBases } from './baseUrl';
import { batchesOf } from './client';
import { mayRetryFailure, mayRetryStatus, replayOf, replayRule } from './replay';
import { backoffDelay, isRetriableStatus, retryAfterMs, retryPolicy } from './retry';

const at = (random: number) => ({ baseDelayMs: 1_000, maxDelayMs: 30_000, random: () => random });

describe('spec §7 retry rule', () => {
  it('when an answer is 429 or 5xx, then it is retriable; 400, 401, 403, 404 and other 4xx never are', () => {
    for (const status of [429, 500, 502, 503, 504, 599]) expect(isRetriableStatus(status)).toBe(true);
    for (const status of [200, 201, 400, 401, 403, 404, 409, 413, 415, 422]) {
      expect(isRetriableStatus(status)).toBe(false);
    }
  });

  it('when retries follow each other, then the nominal wait doubles from 1 s and stops at 30 s', () => {
    const nominal = [1, 2, 3, 4, 5, 6, 7, 10].map((retry) => backoffDelay(retry, at(1)));
    expect(nominal).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('when jitter applies, then each wait lies between half of and the whole nominal wait', () => {
    expect(backoffDelay(1, at(0))).toBe(500);
    expect(backoffDelay(1, at(0.5))).toBe(750);
    expect(backoffDelay(6, at(0))).toBe(15_000);
    expect(backoffDelay(6, at(0.999999))).toBe(30_000);
  });

  it('when Retry-After is delay-seconds or an HTTP date, then it is the wait in milliseconds', () => {
    const now = Date.parse('2026-11-20T10:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Fri, 20 Nov 2026 10:00:42 GMT', now)).toBe(42_000);
    expect(retryAfterMs('Fri, 20 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-3', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('when options are left out, then 5 attempts over at most 2 minutes; `false` means one attempt', () => {
    expect(retryPolicy(undefined)).toMatchObject({ maxAttempts: 5, maxElapsedMs: 120_000 });
    expect(retryPolicy(false).maxAttempts).toBe(1);
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow(RangeError);
  });
});

describe('which requests are replayed after an unknown outcome', () => {
  it('when a request is a read, a PUT or a DELETE, then it is safe to replay', () => {
    expect(replayRule('GET', '/p1/test-runs')).toBe('safe');
    expect(replayRule('DELETE', '/p1/webhooks/w1')).toBe('safe');
    expect(replayRule('PUT', '/organizations/o1/members/u1')).toBe('safe');
  });

  it('when a write is one Verdict makes idempotent, then it is safe to replay', () => {
    for (const path of ['results', 'artifacts', 'coverage', 'finish']) {
      expect(replayRule('POST', `/p1/test-runs/r1/${path}`)).toBe('safe');
    }
    expect(replayRule('POST', '/p1/imports/junit')).toBe('safe');
    expect(replayRule('POST', '/p1/imports/playwright')).toBe('safe');
    expect(replayRule('POST', '/p1/reports')).toBe('safe');
  });

  it('when a run is started, then it is safe to replay only with a ciRunId', () => {
    const rule = replayRule('POST', '/p1/test-runs');
    expect(replayOf(rule, { ciRunId: 'gh-42' })).toBe('safe');
    expect(replayOf(rule, { branch: 'main' })).toBe('refusedOnly');
    expect(replayOf(rule, { ciRunId: '  ' })).toBe('refusedOnly');
    expect(replayOf(rule, undefined)).toBe('refusedOnly');
  });

  it('when a write creates something each time, then it is retried only when the server provably did nothing', () => {
    for (const [method, path] of [
      ['POST', '/p1/manual-test-cases'],
      ['PATCH', '/p1/manual-test-cases/TC-1'],
      ['POST', '/p1/manual-runs'],
      ['POST', '/p1/webhooks'],
      ['POST', '/tokens'],
    ] as const) {
      expect(replayRule(method, path)).toBe('refusedOnly');
    }
    expect(mayRetryStatus('refusedOnly', 429)).toBe(true);
    expect(mayRetryStatus('refusedOnly', 503)).toBe(false);
    expect(mayRetryStatus('safe', 503)).toBe(true);
    expect(mayRetryStatus('safe', 404)).toBe(false);
    expect(mayRetryFailure('refusedOnly', 'ECONNREFUSED')).toBe(true);
    expect(mayRetryFailure('refusedOnly', 'ECONNRESET')).toBe(false);
    expect(mayRetryFailure('refusedOnly', undefined)).toBe(false);
    expect(mayRetryFailure('safe', 'ECONNRESET')).toBe(true);
  });
});

describe('the base URL', () => {
  it('when it is the server origin, then the API bases hang under it', () => {
    const bases = apiBases('http://localhost:8080');
    expect(bases.api.href).toBe('http://localhost:8080/api/public/v1');
    expect(bases.admin.href).toBe('http://localhost:8080/admin/v1');
  });

  it('when it is a full API base in either spelling, then it is kept as given', () => {
    expect(apiBases('https://ci.example.com/api/v1/public/').api.href).toBe(
      'https://ci.example.com/api/v1/public',
    );
    expect(apiBases('https://ci.example.com/x/api/public/v1').admin.href).toBe(
      'https://ci.example.com/x/admin/v1',
    );
  });

  it('when the server is under a path behind a proxy, then the API bases are under that path', () => {
    expect(apiBases('https://ci.example.com/verdict/').api.href).toBe(
      'https://ci.example.com/verdict/api/public/v1',
    );
  });

  it('when it is not an http(s) URL, then it is a configuration error naming it', () => {
    expect(() => apiBases('localhost:8080')).toThrow(/baseUrl/);
    expect(() => apiBases('not a url')).toThrow(/baseUrl/);
  });
});

describe('result batches', () => {
  const item = (i: number, size = 10) => ({ i, pad: 'x'.repeat(size) });

  it('when there are more results than a batch holds, then they are split by count, in order', () => {
    const batches = [
      ...batchesOf(
        Array.from({ length: 2_500 }, (_, i) => item(i)),
        1_000,
        1e9,
      ),
    ];
    expect(batches.map((b) => b.items.length)).toEqual([1_000, 1_000, 500]);
    expect(batches.flatMap((b) => b.items.map((x) => x.i))).toEqual(
      Array.from({ length: 2_500 }, (_, i) => i),
    );
    expect(JSON.parse(batches[2]?.json ?? '')).toEqual({ results: batches[2]?.items });
  });

  it('when results are large, then a batch stays under the byte limit, and an item over it goes alone', () => {
    const batches = [...batchesOf([item(0, 400), item(1, 400), item(2, 5_000), item(3, 10)], 1_000, 1_000)];
    expect(batches.map((b) => b.items.map((x) => x.i))).toEqual([[0, 1], [2], [3]]);
    for (const batch of batches.filter((b) => b.items.length > 1)) {
      expect(Buffer.byteLength(batch.json)).toBeLessThanOrEqual(1_000);
    }
  });

  it('when results hold multi-byte text, then the limit counts bytes, not characters', () => {
    const wide = { text: '€'.repeat(200) }; // 600 bytes of UTF-8 in 200 characters
    const batches = [...batchesOf([wide, wide], 1_000, 1_000)];
    expect(batches).toHaveLength(2);
  });
});
