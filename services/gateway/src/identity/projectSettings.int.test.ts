import { Router } from 'express';
import { ProjectPath, ProjectSettings, WRITER_ROLES, type RouteSpec } from '@verdict/contracts';
import { requireInternalIdentity, sendData } from '@verdict/platform';
import { CLUSTERS, INTERNAL_SECRET, provision, type GatewayCluster, type RunningGateway } from '../testing';

// A stand-in for test-results: POST /{projectId}/test-runs answers the identity the gateway forwarded.
const startRunRoutes: readonly RouteSpec[] = [
  {
    method: 'post',
    path: '/{projectId}/test-runs',
    summary: 'Start a run (stand-in)',
    tag: 'Test',
    security: 'bearer',
    roles: WRITER_ROLES,
    params: ProjectPath,
    responses: { 200: { description: 'OK' } },
  },
];

function startRunRouter(): Router {
  const router = Router();
  router.use(requireInternalIdentity({ secret: INTERNAL_SECRET }));
  router.post('/:projectId/test-runs', (_req, res) => sendData(res, { identity: res.locals.identity }));
  return router;
}

interface Answer {
  status: number;
  body: { data?: unknown; error?: { code: string; message: string } };
}

describe.each(CLUSTERS)("a project's settings, %s", (_name, makeCluster) => {
  let cluster: GatewayCluster;
  let gateway: RunningGateway;
  let base = '';

  beforeAll(async () => {
    cluster = await makeCluster();
    gateway = await cluster.replica([
      { name: 'runs', routes: startRunRoutes, target: { kind: 'in-process', router: startRunRouter() } },
    ]);
    base = `${gateway.url}/api/public/v1`;
  });
  afterAll(() => cluster.close());

  async function call(method: string, path: string, token: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Answer['body'] };
  }

  it('when a viewer reads the settings of a project nobody changed, then its default branch is main', async () => {
    const { projectId, token } = await provision(gateway.url, 'viewer');
    const answer = await call('GET', `/${projectId}/settings`, token.token);
    expect(answer.status).toBe(200);
    expect(ProjectSettings.parse(answer.body.data)).toEqual({ projectId, defaultBranch: 'main' });
  });

  it.each(['owner', 'admin'] as const)(
    'when an %s changes the default branch, then it is read back and the next run start carries it',
    async (role) => {
      const { projectId, token } = await provision(gateway.url, role);
      const changed = await call('PATCH', `/${projectId}/settings`, token.token, {
        defaultBranch: ' develop ',
      });
      expect(changed).toMatchObject({ status: 200, body: { data: { projectId, defaultBranch: 'develop' } } });
      const read = await call('GET', `/${projectId}/settings`, token.token);
      expect(read.body.data).toEqual({ projectId, defaultBranch: 'develop' });
      const started = await call('POST', `/${projectId}/test-runs`, token.token, {});
      expect(started.status).toBe(200);
      expect(started.body.data).toMatchObject({ identity: { projectId, defaultBranch: 'develop' } });
    },
  );

  it('when a run starts in a project whose settings nobody changed, then the identity says main', async () => {
    const { projectId, token } = await provision(gateway.url, 'member');
    const started = await call('POST', `/${projectId}/test-runs`, token.token, {});
    expect(started.body.data).toMatchObject({ identity: { defaultBranch: 'main' } });
  });

  it.each(['member', 'viewer'] as const)(
    'when a %s changes the default branch, then 403 FORBIDDEN and it stays main',
    async (role) => {
      const { projectId, token } = await provision(gateway.url, role);
      const refused = await call('PATCH', `/${projectId}/settings`, token.token, {
        defaultBranch: 'develop',
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error?.code).toBe('FORBIDDEN');
      expect((await call('GET', `/${projectId}/settings`, token.token)).body.data).toMatchObject({
        defaultBranch: 'main',
      });
    },
  );

  it.each([
    ['no default branch', {}],
    ['an empty one', { defaultBranch: '  ' }],
    ['an unknown field', { defaultBranch: 'develop', color: 'red' }],
  ])('when the change has %s, then 400 VALIDATION_ERROR in the envelope', async (_case, body) => {
    const { projectId, token } = await provision(gateway.url, 'owner');
    const refused = await call('PATCH', `/${projectId}/settings`, token.token, body);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
  });

  it('when a token of another project reads or changes the settings, then 403 FORBIDDEN', async () => {
    const { projectId } = await provision(gateway.url, 'owner');
    const other = await provision(gateway.url, 'owner');
    expect((await call('GET', `/${projectId}/settings`, other.token.token)).status).toBe(403);
    const changed = await call('PATCH', `/${projectId}/settings`, other.token.token, { defaultBranch: 'x' });
    expect(changed.status).toBe(403);
  });
});
