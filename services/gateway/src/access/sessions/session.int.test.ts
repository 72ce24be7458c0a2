import type { Server } from 'node:http';
import { Router } from 'express';
import { ProjectPath, READER_ROLES, SessionInfo } from '@verdict/contracts';
import {
  createHttpApp,
  listen,
  requireInternalIdentity,
  sendData,
  silentLogger,
  type RouteSpec,
} from '@verdict/platform';
import type { ServiceMount } from '../../routing/forward';
import {
  admin,
  CLUSTERS,
  INTERNAL_SECRET,
  provision,
  type GatewayCluster,
  type RunningGateway,
} from '../../testing';
import { call, codeOf, signIn } from './sessionTestKit';

// A service behind the gateway that tells what reached it: the identity, and any credential left on it.
const echoRoutes: RouteSpec[] = ['get', 'post'].map((method) => ({
  method: method as 'get' | 'post',
  path: '/{projectId}/echo',
  summary: 'Echo',
  tag: 'Test',
  security: 'bearer',
  roles: READER_ROLES,
  params: ProjectPath,
  responses: { 200: { description: 'OK' } },
}));

function echoRouter(): Router {
  const router = Router();
  router.use(requireInternalIdentity({ secret: INTERNAL_SECRET }));
  router.all('/:projectId/echo', (req, res) => {
    sendData(res, {
      identity: res.locals.identity,
      cookie: req.get('cookie') ?? null,
      authorization: req.get('authorization') ?? null,
    });
  });
  return router;
}

async function startEchoService(): Promise<{ server: Server; url: string }> {
  const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'echo' });
  app.use(echoRouter());
  finish(app);
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  const address = server.address();
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

describe.each(CLUSTERS)('web sessions, %s', (name, makeCluster) => {
  let cluster: GatewayCluster;
  let gateway: RunningGateway;
  let service: { server: Server; url: string };
  let base: string;

  beforeAll(async () => {
    service = await startEchoService();
    const mount: ServiceMount = {
      name: 'echo',
      routes: echoRoutes,
      target: name.startsWith('embedded')
        ? { kind: 'in-process', router: echoRouter() }
        : { kind: 'http', url: service.url },
    };
    cluster = await makeCluster();
    gateway = await cluster.replica([mount]);
    base = `${gateway.url}/api/public/v1`;
  });
  afterAll(async () => {
    await cluster.close();
    await new Promise((resolve) => service.server.close(resolve));
  });

  it('when a personal token signs in, then an httpOnly SameSite=Lax cookie opens a session that tells the person, the projects and the role in each', async () => {
    const { projectId, organizationId, userId, token } = await provision(gateway.url, 'member');
    const { setCookie, session, cookie } = await signIn(base, { token: token.token });
    expect(setCookie).toMatch(/^verdict_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(session).toMatchObject({
      user: { id: userId, firstName: 'Ada', lastName: 'Lovelace' },
      token: { id: token.id, kind: 'personal' },
      projects: [{ id: projectId, name: 'Checkout', organizationId, role: 'member' }],
      idleTimeoutSeconds: 480 * 60,
    });
    expect(session.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The token itself is nowhere in what the browser keeps.
    expect(setCookie).not.toContain(token.token);

    const again = await call(`${base}/session`, 'GET', { cookie });
    expect(again.status).toBe(200);
    expect(SessionInfo.parse(again.body.data).token.id).toBe(token.id);
  });

  it('when a request carries only the session cookie, then it reaches the project as its token would, and the service sees neither the cookie nor a token', async () => {
    const { projectId, organizationId, userId, token } = await provision(gateway.url, 'viewer');
    const { cookie } = await signIn(base, { token: token.token });
    const info = await call(`${base}/${projectId}/token-info`, 'GET', { cookie });
    expect(info.status).toBe(200);
    expect(info.body.data).toMatchObject({ id: token.id, projectName: 'Checkout' });

    const echoed = await call(`${base}/${projectId}/echo`, 'GET', { cookie });
    expect(echoed.status).toBe(200);
    expect(echoed.body.data).toEqual({
      identity: expect.objectContaining({
        projectId,
        organizationId,
        userId,
        role: 'viewer',
        tokenId: token.id,
      }),
      cookie: null,
      authorization: null,
    });
  });

  it("when a session's request is counted, then it draws on its token's buckets: the same budget as the token's bearer requests", async () => {
    const { projectId, token } = await provision(gateway.url, 'member');
    const { cookie } = await signIn(base, { token: token.token });
    const first = await call(`${base}/${projectId}/token-info`, 'GET', { bearer: token.token });
    const second = await call(`${base}/${projectId}/token-info`, 'GET', { cookie });
    expect(first.headers.get('ratelimit-limit')).toBe('100');
    expect(second.headers.get('ratelimit-limit')).toBe('100');
    expect(Number(second.headers.get('ratelimit-remaining'))).toBe(
      Number(first.headers.get('ratelimit-remaining')) - 1,
    );
    expect((second.body.data as { usageCount: number }).usageCount).toBeGreaterThan(
      (first.body.data as { usageCount: number }).usageCount,
    );
  });

  it('when a write is made with the session cookie, then it needs the X-CSRF-Token of that session: missing or wrong is 403 FORBIDDEN', async () => {
    const { projectId, token } = await provision(gateway.url, 'member');
    const { cookie, session } = await signIn(base, { token: token.token });
    const other = await signIn(base, { token: token.token });
    const url = `${base}/${projectId}/echo`;
    const missing = await call(url, 'POST', { cookie, body: {} });
    expect(missing.status).toBe(403);
    expect(codeOf(missing)).toBe('FORBIDDEN');
    expect(missing.body.error?.message).toMatch(/X-CSRF-Token/);
    const wrong = await call(url, 'POST', { cookie, csrf: other.session.csrfToken ?? '', body: {} });
    expect(wrong.status).toBe(403);
    const right = await call(url, 'POST', { cookie, csrf: session.csrfToken ?? '', body: {} });
    expect(right.status).toBe(200);
    // A bearer token is no ambient credential: it needs no CSRF token.
    expect((await call(url, 'POST', { bearer: token.token, body: {} })).status).toBe(200);
  });

  it("when a viewer's session makes a write, then it is refused as the viewer's token is: 403 FORBIDDEN", async () => {
    const { projectId, token } = await provision(gateway.url, 'viewer');
    const { cookie, session } = await signIn(base, { token: token.token });
    const refused = await call(`${base}/${projectId}/echo`, 'POST', {
      cookie,
      csrf: session.csrfToken ?? '',
      body: {},
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toMatch(/viewer role cannot make changes/);
  });

  it("when the session's token is revoked, then the session's very next request is 401 UNAUTHORIZED, and it stays ended", async () => {
    const { projectId, token } = await provision(gateway.url, 'owner');
    const { cookie } = await signIn(base, { token: token.token });
    expect((await call(`${base}/${projectId}/token-info`, 'GET', { cookie })).status).toBe(200);
    await admin(gateway.url, 'DELETE', `/tokens/${token.id}`, undefined, 200);
    const refused = await call(`${base}/${projectId}/token-info`, 'GET', { cookie });
    expect(refused.status).toBe(401);
    expect(codeOf(refused)).toBe('UNAUTHORIZED');
    const later = await call(`${base}/session`, 'GET', { cookie });
    expect(later.status).toBe(401);
    expect(later.body.error?.message).toMatch(/Session expired or signed out/);
  });

  it('when the person signs out, then the cookie is cleared and no longer opens anything', async () => {
    const { projectId, token } = await provision(gateway.url, 'member');
    const { cookie, session } = await signIn(base, { token: token.token });
    const out = await call(`${base}/session`, 'DELETE', { cookie, csrf: session.csrfToken ?? '' });
    expect(out.status).toBe(200);
    expect(out.body.data).toEqual({ signedOut: true });
    expect(out.headers.get('set-cookie')).toMatch(/^verdict_session=; Path=\/; Expires=Thu, 01 Jan 1970/);
    expect((await call(`${base}/${projectId}/token-info`, 'GET', { cookie })).status).toBe(401);
    // The token itself still works: signing out ends the session, not the token.
    expect((await call(`${base}/${projectId}/token-info`, 'GET', { bearer: token.token })).status).toBe(200);
  });

  it('when a one-time sign-in code is redeemed, then it opens one session, once, even when two redeem it at the same moment', async () => {
    const { token } = await provision(gateway.url, 'owner');
    const link = await gateway.gateway.signInLink(token.id, 60_000);
    expect(link).toMatch(/^http:\/\/localhost\/sign-in#code=[A-Za-z0-9_-]{43}$/);
    const code = link.split('#code=')[1];
    const answers = await Promise.all(
      [1, 2, 3].map(() => call(`${base}/session`, 'POST', { body: { code } })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 401, 401]);
    const later = await call(`${base}/session`, 'POST', { body: { code } });
    expect(later.status).toBe(401);
    expect(later.body.error?.message).toMatch(/used already or has expired/);
  });

  it('when a sign-in names a wrong, malformed or project token, or no token and no code, then it is refused with the envelope', async () => {
    const { projectId, userId, token } = await provision(gateway.url, 'owner');
    const projectToken = await admin<{ token: string }>(
      gateway.url,
      'POST',
      '/tokens',
      { kind: 'project', projectId, createdByUserId: userId, scopes: ['public-api'] },
      201,
    );
    const cases: [unknown, number, string][] = [
      [{ token: `${token.token.slice(0, -4)}AAAA` }, 401, 'UNAUTHORIZED'],
      [{ token: 'not-a-token' }, 401, 'UNAUTHORIZED'],
      [{ code: 'made-up' }, 401, 'UNAUTHORIZED'],
      [{ token: projectToken.token }, 403, 'FORBIDDEN'],
      [{}, 400, 'VALIDATION_ERROR'],
      [{ token: token.token, code: 'x' }, 400, 'VALIDATION_ERROR'],
      [{ token: token.token, remember: true }, 400, 'VALIDATION_ERROR'],
    ];
    for (const [body, status, code] of cases) {
      const answer = await call(`${base}/session`, 'POST', { body });
      expect([answer.status, codeOf(answer)]).toEqual([status, code]);
      expect(answer.headers.get('set-cookie')).toBeNull();
    }
  });

  it('when a session cookie is made up, or a bearer token asks to sign out, then 401 and 400: nothing is opened or ended', async () => {
    const { token } = await provision(gateway.url, 'owner');
    const madeUp = await call(`${base}/session`, 'GET', { cookie: `verdict_session=${'A'.repeat(43)}` });
    expect(madeUp.status).toBe(401);
    const signOut = await call(`${base}/session`, 'DELETE', { bearer: token.token });
    expect(signOut.status).toBe(400);
    expect(codeOf(signOut)).toBe('VALIDATION_ERROR');
  });
});
