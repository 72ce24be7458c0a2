import { createMemoryKeyValue, ServiceUnavailableError, type KeyValue } from '@verdict/platform';
import { API_PREFIXES } from '../app';
import { errorEnvelope, NOW, seededDirectory, startGateway, type TestGateway } from './accessTestKit';
import type { FakeIdentityDirectory } from './fakeIdentityDirectory';

describe.each(API_PREFIXES)('GET %s/{projectId}/token-info (spec §4.1, §2)', (prefix) => {
  let directory: FakeIdentityDirectory;
  let gateway: TestGateway;

  beforeEach(async () => {
    directory = seededDirectory();
    gateway = await startGateway({ directory });
  });

  afterEach(async () => {
    await gateway.close();
  });

  const tokenInfo = (token: string, projectId = 'p1') =>
    gateway.http.get(`${prefix}/${projectId}/token-info`).set('Authorization', `Bearer ${token}`);

  it('when a query parameter is sent, then 400 VALIDATION_ERROR names it (spec §4.1: no parameters)', async () => {
    const { token } = directory.issueToken({ ownerUserId: 'u-viewer', projectIds: ['p1'] });
    const response = await gateway.http
      .get(`${prefix}/p1/token-info?verbose=1`)
      .set('Authorization', `Bearer ${token}`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual(errorEnvelope('VALIDATION_ERROR'));
    expect(response.body.error.message).toBe('verbose: is not allowed');
  });

  it('when a personal token asks, then it gets its metadata in the envelope', async () => {
    const { token, record } = directory.issueToken({
      ownerUserId: 'u-viewer',
      projectIds: ['p1', 'p2'],
      createdAt: '2026-02-01T08:00:00.000Z',
    });
    const response = await tokenInfo(token, 'p2');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      data: {
        id: record.id,
        scopes: ['organizations/org-1/projects/p1', 'organizations/org-1/projects/p2'],
        projectName: 'Search',
        expiresAt: null,
        createdAt: '2026-02-01T08:00:00.000Z',
        lastUsed: NOW,
        usageCount: 1,
        rateLimit: { limit: 100, window: '1m' },
        role: 'viewer',
      },
    });
  });

  it('when a project token asks, then its scopes name its project and its public-api capability', async () => {
    const { token } = directory.issueToken({
      kind: 'project',
      ownerUserId: 'u-member',
      projectIds: ['p1'],
      scopes: ['public-api'],
      expiresAt: '2026-12-31T00:00:00.000Z',
    });
    const { data } = (await tokenInfo(token)).body;
    expect(data.scopes).toEqual(['organizations/org-1/projects/p1', 'public-api']);
    expect(data.expiresAt).toBe('2026-12-31T00:00:00.000Z');
    expect(data.projectName).toBe('Checkout');
  });

  it.each([
    ['u-owner', 'owner'],
    ['u-member', 'member'],
    ['u-viewer', 'viewer'],
  ])(
    "when %s's token asks, then role is the owner's role in the project's organization (%s)",
    async (ownerUserId, role) => {
      const personal = directory.issueToken({ ownerUserId, projectIds: ['p1'] });
      const project = directory.issueToken({
        kind: 'project',
        ownerUserId,
        projectIds: ['p1'],
        scopes: ['public-api'],
      });
      expect((await tokenInfo(personal.token)).body.data.role).toBe(role);
      expect((await tokenInfo(project.token)).body.data.role).toBe(role);
    },
  );

  it('when the token was used before, then usageCount counts every authenticated request and lastUsed is the latest', async () => {
    const { token } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    await gateway.http.get(`${prefix}/p1/test-runs`).set('Authorization', `Bearer ${token}`);
    await gateway.http
      .post(`${prefix}/p1/manual-test-cases`)
      .set('Authorization', `Bearer ${token}`)
      .send({});
    gateway.clock.advance(90_000);
    const { data } = (await tokenInfo(token)).body;
    expect(data.usageCount).toBe(3);
    expect(data.lastUsed).toBe('2026-03-01T12:01:30.000Z');
  });

  it('when requests fail authentication, then they do not count as uses of the token', async () => {
    const { token, record } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    const other = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    await gateway.http.get(`${prefix}/p1/test-runs`).set('Authorization', `Bearer ${other.token}`);
    await gateway.http.get(`${prefix}/p1/test-runs`).set('Authorization', `Bearer ${token}x`);
    const { data } = (await tokenInfo(token)).body;
    expect(data.id).toBe(record.id);
    expect(data.usageCount).toBe(1);
  });

  it('when the token is not scoped to the project of the path, then 403 FORBIDDEN', async () => {
    const { token } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    const response = await tokenInfo(token, 'p2');
    expect(response.status).toBe(403);
    expect(response.body).toEqual(errorEnvelope('FORBIDDEN'));
  });

  it('when no token is sent, then 401 UNAUTHORIZED', async () => {
    const response = await gateway.http.get(`${prefix}/p1/token-info`);
    expect(response.status).toBe(401);
    expect(response.body).toEqual(errorEnvelope('UNAUTHORIZED'));
  });
});

describe('token info while the usage store is down', () => {
  it('when usage cannot be recorded, then other requests still succeed and token-info answers 503', async () => {
    const memory = createMemoryKeyValue();
    const down: KeyValue = {
      ...memory,
      increment: async () => {
        throw new ServiceUnavailableError('Key-value store unavailable (increment)');
      },
    };
    const directory = seededDirectory();
    const gateway = await startGateway({ directory, kv: down });
    try {
      const { token } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
      const auth = { Authorization: `Bearer ${token}` };
      expect((await gateway.http.get(`${API_PREFIXES[0]}/p1/test-runs`).set(auth)).status).toBe(200);
      const response = await gateway.http.get(`${API_PREFIXES[0]}/p1/token-info`).set(auth);
      expect(response.status).toBe(503);
      expect(response.body).toEqual(errorEnvelope('SERVICE_UNAVAILABLE'));
    } finally {
      await gateway.close();
      await memory.close();
    }
  });
});
