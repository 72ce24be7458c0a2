import { API_PREFIXES } from '../app';
import type { Role } from '../identity/directory';
import { errorEnvelope, seededDirectory, startGateway, type TestGateway } from './accessTestKit';
import type { FakeIdentityDirectory } from './fakeIdentityDirectory';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

describe.each(API_PREFIXES)('authorization of the public API under %s (spec §5.2–§5.4, §4.9)', (prefix) => {
  let directory: FakeIdentityDirectory;
  let gateway: TestGateway;

  beforeEach(async () => {
    directory = seededDirectory();
    gateway = await startGateway({ directory });
  });

  afterEach(async () => {
    await gateway.close();
  });

  const personalTokenOf = (role: Role | 'outsider', projectIds = ['p1']) =>
    directory.issueToken({ ownerUserId: `u-${role}`, projectIds }).token;

  const call = (method: Method, path: string, token: string) =>
    gateway.http[method](`${prefix}${path}`).set('Authorization', `Bearer ${token}`).send({});

  async function expectForbidden(method: Method, path: string, token: string) {
    const response = await call(method, path, token);
    expect(response.status).toBe(403);
    expect(response.body).toEqual(errorEnvelope('FORBIDDEN'));
  }

  it('when a member reads a project of its token, then the request carries the identity services need', async () => {
    const { token, record } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1', 'p2'] });
    const response = await call('get', '/p2/test-runs', token);
    expect(response.status).toBe(200);
    expect(response.body.data.access).toEqual({
      organizationId: 'org-1',
      projectId: 'p2',
      userId: 'u-member',
      role: 'member',
      scopes: [],
      tokenId: record.id,
    });
  });

  it('when the path names a project the token is not scoped to, then 403 FORBIDDEN', async () => {
    await expectForbidden('get', '/p2/test-runs', personalTokenOf('owner', ['p1']));
  });

  it("when the path names another organization's project, then 403 FORBIDDEN", async () => {
    await expectForbidden('get', '/p3/test-runs', personalTokenOf('owner', ['p1']));
  });

  it('when the path names a project that does not exist, then 403 FORBIDDEN, not 404', async () => {
    await expectForbidden('get', '/no-such-project/test-runs', personalTokenOf('owner', ['p1']));
  });

  it('when the token is scoped to a project that no longer exists, then 403 FORBIDDEN', async () => {
    await expectForbidden('get', '/gone/test-runs', personalTokenOf('owner', ['p1', 'gone']));
  });

  it('when a project token carries the public-api scope, then it reaches its project', async () => {
    const { token } = directory.issueToken({
      kind: 'project',
      ownerUserId: 'u-member',
      projectIds: ['p1'],
      scopes: ['public-api'],
    });
    const response = await call('get', '/p1/test-runs', token);
    expect(response.status).toBe(200);
    expect(response.body.data.access.scopes).toEqual(['public-api']);
  });

  it('when a project token lacks the public-api scope, then 403 FORBIDDEN even on its own project', async () => {
    const { token } = directory.issueToken({
      kind: 'project',
      ownerUserId: 'u-owner',
      projectIds: ['p1'],
      scopes: [],
    });
    await expectForbidden('get', '/p1/test-runs', token);
    const noProjectPath = await gateway.http.get(`${prefix}/whoami`).set('Authorization', `Bearer ${token}`);
    expect(noProjectPath.status).toBe(403);
  });

  it("when the token's owner is not a member of the project's organization, then 403 FORBIDDEN", async () => {
    await expectForbidden('get', '/p1/test-runs', personalTokenOf('outsider'));
  });

  it('when a viewer reads, then the request goes through', async () => {
    expect((await call('get', '/p1/test-runs', personalTokenOf('viewer'))).status).toBe(200);
  });

  it.each(['post', 'patch', 'put', 'delete'] as const)(
    'when a viewer writes with %s, then 403 FORBIDDEN',
    async (method) => {
      await expectForbidden(method, '/p1/manual-test-cases/TC-1', personalTokenOf('viewer'));
    },
  );

  it.each(['post', 'patch'] as const)(
    'when a member writes with %s, then the request goes through',
    async (method) => {
      expect((await call(method, '/p1/manual-test-cases/TC-1', personalTokenOf('member'))).status).toBe(200);
    },
  );

  it.each([
    ['post', '/p1/webhooks'],
    ['patch', '/p1/webhooks/wh-1'],
    ['delete', '/p1/webhooks/wh-1'],
  ] as const)(
    'when a member sends %s %s, then 403 FORBIDDEN (webhook writes need owner or admin)',
    async (method, path) => {
      await expectForbidden(method, path, personalTokenOf('member'));
    },
  );

  it('when a viewer writes to webhooks, then 403 says what webhook writes need (not that members can)', async () => {
    const response = await call('post', '/p1/webhooks', personalTokenOf('viewer'));
    expect(response.status).toBe(403);
    expect(response.body.error.message).toBe(
      'Creating, updating and deleting webhooks needs the owner or admin role',
    );
  });

  it.each([
    ['owner', 'post', '/p1/webhooks'],
    ['owner', 'patch', '/p1/webhooks/wh-1'],
    ['owner', 'delete', '/p1/webhooks/wh-1'],
    ['admin', 'post', '/p1/webhooks'],
    ['admin', 'patch', '/p1/webhooks/wh-1'],
    ['admin', 'delete', '/p1/webhooks/wh-1'],
  ] as const)('when an %s sends %s %s, then the request goes through', async (role, method, path) => {
    expect((await call(method, path, personalTokenOf(role))).status).toBe(200);
  });

  it('when a member or a viewer reads webhooks, then the request goes through (reads are open to members)', async () => {
    expect((await call('get', '/p1/webhooks', personalTokenOf('member'))).status).toBe(200);
    expect((await call('get', '/p1/webhooks/wh-1/deliveries', personalTokenOf('viewer'))).status).toBe(200);
  });

  it('when a member writes to webhooks under other letter case or a trailing slash, then still 403 FORBIDDEN', async () => {
    await expectForbidden('post', '/p1/Webhooks/', personalTokenOf('member'));
    await expectForbidden('patch', '/p1/WEBHOOKS/wh-1', personalTokenOf('member'));
  });
});
