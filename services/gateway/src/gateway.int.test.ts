import http from 'node:http';
import { ErrorEnvelope } from '@verdict/contracts';
import {
  CLUSTERS,
  admin,
  gatewayUnderTest,
  provision,
  type GatewayCluster,
  type RunningGateway,
} from './testing';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Any method, TRACE included (fetch refuses to send it). */
function raw(url: string, method: string, headers: Record<string, string>) {
  return new Promise<{ status: number; allow: string | undefined; body: string }>((resolve, reject) => {
    const request = http.request(url, { method, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, allow: response.headers.allow, body }),
      );
    });
    request.on('error', reject).end();
  });
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
}

describe.each(CLUSTERS)('the gateway, %s', (_name, makeCluster) => {
  const at = gatewayUnderTest(makeCluster);

  it('when a token is issued through the admin API, then token-info answers under both prefixes', async () => {
    const { projectId, token } = await provision(at.url);
    for (const prefix of ['/api/public/v1', '/api/v1/public']) {
      const answer = await get(`${at.url}${prefix}/${projectId}/token-info`, bearer(token.token));
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        success: true,
        data: { id: token.id, projectName: 'Checkout', rateLimit: { limit: 100, window: '1m' } },
      });
      expect(answer.headers.get('ratelimit-limit')).toBe('100');
    }
  });

  it('when a token is revoked, then the very next request is refused with 401', async () => {
    const { projectId, token } = await provision(at.url);
    const url = `${at.url}/api/public/v1/${projectId}/token-info`;
    expect((await get(url, bearer(token.token))).status).toBe(200);
    await admin(at.url, 'DELETE', `/tokens/${token.id}`, undefined, 200);
    const refused = await get(url, bearer(token.token));
    expect(refused.status).toBe(401);
    expect(ErrorEnvelope.parse(refused.body).error.code).toBe('UNAUTHORIZED');
  });

  it('when the route is unknown, then it answers 404 NOT_FOUND with the rate-limit headers, token or not', async () => {
    const answer = await get(`${at.url}/api/public/v1/some-project/no-such-family`);
    expect(answer.status).toBe(404);
    expect(ErrorEnvelope.parse(answer.body).error.code).toBe('NOT_FOUND');
    expect(answer.headers.get('ratelimit-limit')).toBe('200');
    expect(Number(answer.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    expect(answer.headers.get('ratelimit-reset')).not.toBeNull();
    expect((await get(`${at.url}/nowhere`)).status).toBe(404);
  });

  it('when a known path is asked with a method none of its routes takes (TRACE, DELETE), then 405 METHOD_NOT_ALLOWED with Allow, token or not; OPTIONS answers 204 with the same Allow', async () => {
    const { projectId, token } = await provision(at.url);
    // The gateway's own routes: the services behind it are not mounted in this test.
    const tokenInfo = `/api/public/v1/${projectId}/token-info`;
    const cases = [
      { method: 'TRACE', path: tokenInfo, headers: bearer(token.token), allow: 'GET, HEAD' },
      { method: 'TRACE', path: tokenInfo, headers: {}, allow: 'GET, HEAD' },
      { method: 'DELETE', path: tokenInfo, headers: bearer(token.token), allow: 'GET, HEAD' },
      { method: 'TRACE', path: '/admin/v1/users', headers: {}, allow: 'GET, HEAD, POST' },
    ];
    for (const { method, path, headers, allow } of cases) {
      const answer = await raw(`${at.url}${path}`, method, headers);
      expect({ method, path, status: answer.status, allow: answer.allow }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
      expect(ErrorEnvelope.parse(JSON.parse(answer.body)).error.code).toBe('METHOD_NOT_ALLOWED');
    }
    const options = await raw(`${at.url}${tokenInfo}`, 'OPTIONS', {});
    expect({ status: options.status, allow: options.allow }).toEqual({ status: 204, allow: 'GET, HEAD' });
    // Every method of the path, though the sign-in (POST) is served by another router than sign-out.
    const session = await raw(`${at.url}/api/public/v1/session`, 'OPTIONS', {});
    expect({ status: session.status, allow: session.allow }).toEqual({
      status: 204,
      allow: 'DELETE, GET, HEAD, POST',
    });
    expect((await raw(`${at.url}/api/public/v1/${projectId}/no-such-family`, 'TRACE', {})).status).toBe(404);
  });

  it('when the retired context endpoint is called, with a token, without one or with a bad one, then it answers 404 NOT_FOUND (spec §4.2, §9)', async () => {
    const { projectId, token } = await provision(at.url);
    const url = `${at.url}/api/v1/public/${projectId}/context`;
    for (const headers of [bearer(token.token), {}, bearer('svc_pat_not-a-token')]) {
      const answer = await get(url, headers);
      expect(answer.status).toBe(404);
      expect(ErrorEnvelope.parse(answer.body).error.code).toBe('NOT_FOUND');
    }
  });

  it('when a request is refused before its route answers (401), then /metrics labels it with that route, not "(unmatched)"', async () => {
    const { projectId, token } = await provision(at.url);
    expect((await get(`${at.url}/api/public/v1/${projectId}/token-info`)).status).toBe(401);
    expect((await get(`${at.url}/api/public/v1/${projectId}/token-info`, bearer(token.token))).status).toBe(
      200,
    );
    const metrics = await (await fetch(`${at.url}/metrics`)).text();
    for (const status of ['401', '200']) {
      expect(metrics).toMatch(
        new RegExp(
          `http_request_duration_seconds_count\\{[^}]*route="/api/public/v1/:projectId/token-info"[^}]*status_code="${status}"`,
        ),
      );
    }
  });

  it('when an admin path does not exist, then 404 NOT_FOUND before the admin key is asked for; one that exists asks for it', async () => {
    const unknown = await fetch(`${at.url}/admin/v1/nonexistent`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect(ErrorEnvelope.parse(await unknown.json()).error.code).toBe('NOT_FOUND');
    const known = await fetch(`${at.url}/admin/v1/users`, { method: 'POST' });
    expect(known.status).toBe(401);
  });

  it('when a body is malformed JSON or too large, then 400 VALIDATION_ERROR or 413 with the envelope, never a stack', async () => {
    const post = (body: string) =>
      fetch(`${at.url}/admin/v1/users`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-admin-key-0123456789', 'content-type': 'application/json' },
        body,
      });
    const malformed = await post('{"email": ');
    expect(malformed.status).toBe(400);
    const malformedBody = ErrorEnvelope.parse(await malformed.json());
    expect(malformedBody.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(malformedBody)).not.toMatch(/at .+\.ts:\d+/);

    const oversize = await post(JSON.stringify({ email: 'x'.repeat(11 * 1024 * 1024) }));
    expect(oversize.status).toBe(413);
    expect(ErrorEnvelope.parse(await oversize.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('when the admin key is wrong or a user token is used on the admin API, then 401 UNAUTHORIZED', async () => {
    const { token } = await provision(at.url);
    for (const key of ['wrong-key-0123456789', token.token]) {
      const answer = await fetch(`${at.url}/admin/v1/users`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'a@example.com', firstName: 'A', lastName: 'B' }),
      });
      expect(answer.status).toBe(401);
      expect(ErrorEnvelope.parse(await answer.json()).error.code).toBe('UNAUTHORIZED');
    }
  });
});

describe('two gateway replicas sharing PostgreSQL, Kafka and Redis', () => {
  let cluster: GatewayCluster;
  let first: RunningGateway;
  let second: RunningGateway;

  beforeAll(async () => {
    const distributed = CLUSTERS[1];
    if (!distributed) throw new Error('the distributed cluster is missing');
    cluster = await distributed[1]();
    first = await cluster.replica();
    second = await cluster.replica();
  });
  afterAll(() => cluster.close());

  it('when a token is revoked through one replica, then the very next request on the other is refused', async () => {
    const { projectId, token } = await provision(first.url);
    const path = `/api/public/v1/${projectId}/token-info`;
    expect((await get(`${second.url}${path}`, bearer(token.token))).status).toBe(200);
    await admin(first.url, 'DELETE', `/tokens/${token.id}`, undefined, 200);
    expect((await get(`${second.url}${path}`, bearer(token.token))).status).toBe(401);
    expect((await get(`${first.url}${path}`, bearer(token.token))).status).toBe(401);
  });

  it('when a token reads through both replicas, then they share one budget of 100 reads a minute', async () => {
    const { projectId, token } = await provision(first.url);
    const path = `/api/public/v1/${projectId}/token-info`;
    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      const replica = i % 2 === 0 ? first : second;
      statuses.push((await fetch(`${replica.url}${path}`, { headers: bearer(token.token) })).status);
    }
    expect(statuses.every((status) => status === 200)).toBe(true);
    const refused = await get(`${second.url}${path}`, bearer(token.token));
    expect(refused.status).toBe(429);
    expect(ErrorEnvelope.parse(refused.body).error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
