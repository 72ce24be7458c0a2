import { Router } from 'express';
import { ErrorEnvelope, ProjectPath, READER_ROLES } from '@verdict/contracts';
import {
  createHttpApp,
  INTERNAL_IDENTITY_HEADER,
  listen,
  mintInternalToken,
  requireInternalIdentity,
  sendData,
  silentLogger,
  type RouteSpec,
} from '@verdict/platform';
import { createServer, type Server } from 'node:http';
import { CLUSTERS, INTERNAL_SECRET, provision, type GatewayCluster, type RunningGateway } from '../testing';
import type { ServiceMount } from './forward';

// A stand-in service with the middleware every real service mounts: it trusts only the internal JWT.
const echoRoutes: readonly RouteSpec[] = [
  {
    method: 'get',
    path: '/{projectId}/echo',
    summary: 'Echo the identity',
    tag: 'Test',
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectPath,
    responses: { 200: { description: 'OK' } },
  },
  {
    method: 'post',
    path: '/{projectId}/echo',
    summary: 'Echo the body',
    tag: 'Test',
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectPath,
    responses: { 200: { description: 'OK' } },
  },
];

function echoRouter(): Router {
  const router = Router();
  router.use(requireInternalIdentity({ secret: INTERNAL_SECRET }));
  router.get('/:projectId/echo', (req, res) => {
    sendData(res, { identity: res.locals.identity, authorization: req.get('authorization') ?? null });
  });
  router.post('/:projectId/echo', (req, res) => {
    sendData(res, { identity: res.locals.identity, body: req.body as unknown });
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

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const embedded = CLUSTERS[0];
const distributed = CLUSTERS[1];
if (!embedded || !distributed) throw new Error('clusters are missing');

describe.each([
  ['in-process (embedded)', 'in-process', embedded[1]],
  ['over HTTP (distributed)', 'http', distributed[1]],
] as const)('a service behind the gateway, %s', (_name, kind, makeCluster) => {
  let cluster: GatewayCluster;
  let gateway: RunningGateway;
  let service: { server: Server; url: string };

  beforeAll(async () => {
    service = await startEchoService();
    const mount: ServiceMount = {
      name: 'echo',
      routes: echoRoutes,
      target: kind === 'in-process' ? { kind, router: echoRouter() } : { kind, url: service.url },
    };
    cluster = await makeCluster();
    gateway = await cluster.replica([mount]);
  });
  afterAll(async () => {
    await cluster.close();
    await new Promise((resolve) => service.server.close(resolve));
  });

  it('when an authorized request is forwarded, then the service sees the gateway’s identity and never the client’s token', async () => {
    const { projectId, organizationId, userId, token } = await provision(gateway.url, 'member');
    const answer = await fetch(`${gateway.url}/api/v1/public/${projectId}/echo`, {
      headers: bearer(token.token),
    });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as {
      data: { identity: Record<string, unknown>; authorization: unknown };
    };
    expect(body.data.identity).toMatchObject({
      projectId,
      organizationId,
      userId,
      role: 'member',
      tokenId: token.id,
    });
    expect(body.data.authorization).toBeNull();
  });

  it('when a client sends its own internal identity header, then the gateway replaces it', async () => {
    const { projectId, token } = await provision(gateway.url, 'viewer');
    const forged = mintInternalToken(
      { organizationId: 'o', projectId, userId: 'someone-else', role: 'owner', scopes: [], tokenId: 't' },
      { secret: INTERNAL_SECRET },
    );
    const answer = await fetch(`${gateway.url}/api/public/v1/${projectId}/echo`, {
      headers: { ...bearer(token.token), [INTERNAL_IDENTITY_HEADER]: forged },
    });
    const body = (await answer.json()) as { data: { identity: { role: string; userId: string } } };
    expect(body.data.identity.role).toBe('viewer');
    expect(body.data.identity.userId).not.toBe('someone-else');
  });

  it('when a JSON body is posted, then the service receives it as sent', async () => {
    const { projectId, token } = await provision(gateway.url, 'member');
    const answer = await fetch(`${gateway.url}/api/public/v1/${projectId}/echo`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'content-type': 'application/json' },
      body: JSON.stringify({ hello: ['world', 1] }),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: { body: unknown } }).data.body).toEqual({ hello: ['world', 1] });
  });
});

describe('a service behind HTTP that records the bytes it receives', () => {
  let cluster: GatewayCluster;
  let gateway: RunningGateway;
  let server: Server;
  const received: { contentType: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          contentType: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"data":null}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    cluster = await distributed[1]();
    gateway = await cluster.replica([{ name: 'raw', routes: echoRoutes, target: { kind: 'http', url } }]);
  });
  afterAll(async () => {
    await cluster.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('when a JSON body is posted, then it reaches the service byte for byte, neither parsed nor re-serialised', async () => {
    const { projectId, token } = await provision(gateway.url, 'member');
    const sent = '{"b": 1,   "a": [2, 3.50],\n "unicode": "\u00e9t\u00e9"}';
    const answer = await fetch(`${gateway.url}/api/public/v1/${projectId}/echo`, {
      method: 'POST',
      headers: { ...bearer(token.token), 'content-type': 'application/json' },
      body: sent,
    });
    expect(answer.status).toBe(200);
    expect(received.at(-1)).toEqual({ contentType: 'application/json', body: sent });
  });
});

describe('a service reached directly, around the gateway', () => {
  let service: { server: Server; url: string };
  beforeAll(async () => {
    service = await startEchoService();
  });
  afterAll(() => new Promise((resolve) => service.server.close(resolve)));

  const identity = {
    organizationId: 'o',
    projectId: 'p',
    userId: 'u',
    role: 'owner' as const,
    scopes: [],
    tokenId: 't',
  };

  it('when the internal JWT is missing, then 401 UNAUTHORIZED', async () => {
    const answer = await fetch(`${service.url}/p/echo`);
    expect(answer.status).toBe(401);
    expect(ErrorEnvelope.parse(await answer.json()).error.code).toBe('UNAUTHORIZED');
  });

  it('when the internal JWT was tampered with, then 401 UNAUTHORIZED', async () => {
    const token = mintInternalToken(identity, { secret: INTERNAL_SECRET });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, role: 'owner', projectId: 'other' })).toString('base64url')}.${signature}`;
    const answer = await fetch(`${service.url}/p/echo`, {
      headers: { [INTERNAL_IDENTITY_HEADER]: tampered },
    });
    expect(answer.status).toBe(401);
  });

  it('when the internal JWT is signed with another secret or is a public token, then 401 UNAUTHORIZED', async () => {
    const foreign = mintInternalToken(identity, { secret: 'another-secret-that-is-long-enough-0123456789' });
    expect(
      (await fetch(`${service.url}/p/echo`, { headers: { [INTERNAL_IDENTITY_HEADER]: foreign } })).status,
    ).toBe(401);
    expect(
      (await fetch(`${service.url}/p/echo`, { headers: { authorization: 'Bearer svc_pat_x' } })).status,
    ).toBe(401);
  });

  it('when the internal JWT is valid, then the service answers', async () => {
    const token = mintInternalToken(identity, { secret: INTERNAL_SECRET });
    expect(
      (await fetch(`${service.url}/p/echo`, { headers: { [INTERNAL_IDENTITY_HEADER]: token } })).status,
    ).toBe(200);
  });
});
