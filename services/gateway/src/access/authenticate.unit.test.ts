import { API_PREFIXES } from '../app';
import { mintToken } from '../identity/tokenFormat';
import { errorEnvelope, NOW, seededDirectory, startGateway, type TestGateway } from './accessTestKit';
import type { FakeIdentityDirectory } from './fakeIdentityDirectory';

describe.each(API_PREFIXES)('authentication of the public API under %s (spec §5)', (prefix) => {
  let directory: FakeIdentityDirectory;
  let gateway: TestGateway;

  beforeEach(async () => {
    directory = seededDirectory();
    gateway = await startGateway({ directory });
  });

  afterEach(async () => {
    await gateway.close();
  });

  const read = (authorization?: string) => {
    const call = gateway.http.get(`${prefix}/p1/test-runs`);
    return authorization === undefined ? call : call.set('Authorization', authorization);
  };

  async function expectUnauthorized(authorization: string | undefined) {
    const response = await read(authorization);
    expect(response.status).toBe(401);
    expect(response.body).toEqual(errorEnvelope('UNAUTHORIZED'));
    return response;
  }

  it('when a valid token is sent as a bearer token, then the request goes through with its identity', async () => {
    const { token, record } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    const response = await read(`Bearer ${token}`);
    expect(response.status).toBe(200);
    expect(response.body.data.access.tokenId).toBe(record.id);
  });

  it('when the scheme is written in lower case, then the token is still accepted (RFC 7235)', async () => {
    const { token } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    expect((await read(`bearer ${token}`)).status).toBe(200);
  });

  it('when the Authorization header is missing, then 401 UNAUTHORIZED', async () => {
    await expectUnauthorized(undefined);
  });

  it('when the header says Bearer without a token, then 401 UNAUTHORIZED', async () => {
    await expectUnauthorized('Bearer');
    await expectUnauthorized('Bearer    ');
  });

  it('when the header uses another scheme, then 401 UNAUTHORIZED', async () => {
    const { token } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    await expectUnauthorized(`Basic ${token}`);
    await expectUnauthorized(token);
  });

  it('when the token does not have the shape of a token, then 401 UNAUTHORIZED', async () => {
    await expectUnauthorized('Bearer not-a-token');
    await expectUnauthorized('Bearer svc_pat_1234');
  });

  it('when the token id is unknown, then 401 UNAUTHORIZED', async () => {
    const { token } = mintToken('personal', '0190f3c2-a1b2-7c3e-8d4f-5a6b7c8d9e0f');
    await expectUnauthorized(`Bearer ${token}`);
  });

  it('when the secret is wrong for a known token id, then 401 UNAUTHORIZED', async () => {
    const { record } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    const { token: forged } = mintToken('personal', record.id);
    await expectUnauthorized(`Bearer ${forged}`);
  });

  it('when a personal token is presented with the project-token prefix, then 401 UNAUTHORIZED', async () => {
    const { token } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    await expectUnauthorized(`Bearer ${token.replace('svc_pat_', 'svcp_')}`);
  });

  it('when the token expired before now, then 401 UNAUTHORIZED', async () => {
    const { token } = directory.issueToken({
      ownerUserId: 'u-member',
      projectIds: ['p1'],
      expiresAt: '2026-03-01T11:59:59.999Z',
    });
    const response = await expectUnauthorized(`Bearer ${token}`);
    expect(response.body.error.message).toMatch(/expired/i);
  });

  it('when the clock reaches expiresAt, then the token stops working at that instant', async () => {
    const { token } = directory.issueToken({
      ownerUserId: 'u-member',
      projectIds: ['p1'],
      expiresAt: '2026-03-01T12:00:01.000Z',
    });
    expect((await read(`Bearer ${token}`)).status).toBe(200);
    gateway.clock.advance(1_000);
    await expectUnauthorized(`Bearer ${token}`);
  });

  it('when the token is revoked, then 401 UNAUTHORIZED', async () => {
    const { token, record } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    directory.revoke(record.id, NOW);
    const response = await expectUnauthorized(`Bearer ${token}`);
    expect(response.body.error.message).toMatch(/revoked/i);
  });

  it('when a token that just worked is revoked, then the very next request is refused', async () => {
    const { token, record } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    expect((await read(`Bearer ${token}`)).status).toBe(200);
    directory.revoke(record.id, NOW);
    await expectUnauthorized(`Bearer ${token}`);
  });

  it('when a path names no project, then a valid token still has to be presented', async () => {
    const { token, record } = directory.issueToken({ ownerUserId: 'u-member', projectIds: ['p1'] });
    expect((await gateway.http.get(`${prefix}/whoami`)).status).toBe(401);
    const response = await gateway.http.get(`${prefix}/whoami`).set('Authorization', `Bearer ${token}`);
    expect(response.status).toBe(200);
    expect(response.body.data.tokenId).toBe(record.id);
  });
});
