import { IssuedToken, OwnToken, RevokedToken } from '@verdict/contracts';
import { CLUSTERS, provision, gatewayUnderTest } from '../../testing';
import { call, codeOf, signIn } from './sessionTestKit';

const DAY_MS = 86_400_000;

describe.each(CLUSTERS)("a person's own tokens, %s", (_name, makeCluster) => {
  const at = gatewayUnderTest(makeCluster);

  /** A person of `role`, signed in: their project, token, cookie and CSRF token. */
  async function signedIn(role: 'owner' | 'admin' | 'member' | 'viewer') {
    const provisioned = await provision(at.url, role);
    const { cookie, session } = await signIn(at.base, { token: provisioned.token.token });
    return { ...provisioned, cookie, csrf: session.csrfToken ?? '' };
  }

  it('when a member issues a token from the session, then it is answered once with its secret, reaches the same project with public-api and expires in 90 days by default', async () => {
    const { projectId, organizationId, cookie, csrf } = await signedIn('member');
    const before = Date.now();
    const answer = await call(`${at.base}/session/tokens`, 'POST', {
      cookie,
      csrf,
      body: { name: 'CI laptop' },
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const issued = IssuedToken.parse(answer.body.data);
    expect(issued).toMatchObject({
      kind: 'personal',
      name: 'CI laptop',
      projectIds: [projectId],
      scopes: [`organizations/${organizationId}/projects/${projectId}`, 'public-api'],
    });
    expect(issued.token).toMatch(/^svc_pat_/);
    const expiresIn = Date.parse(issued.expiresAt ?? '') - before;
    expect(expiresIn).toBeGreaterThanOrEqual(90 * DAY_MS - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(90 * DAY_MS + 60_000);

    const info = await call(`${at.base}/${projectId}/token-info`, 'GET', { bearer: issued.token });
    expect(info.status).toBe(200);
    expect(info.body.data).toMatchObject({ id: issued.id, role: 'member' });
  });

  it("when the person lists their tokens, then they see their own personal tokens newest first with last use, the session's marked current, and never a secret", async () => {
    const { token, cookie, csrf } = await signedIn('owner');
    const stranger = await signedIn('owner');
    await call(`${at.base}/session/tokens`, 'POST', {
      cookie: stranger.cookie,
      csrf: stranger.csrf,
      body: { name: 'Not yours' },
    });
    const issued = IssuedToken.parse(
      (await call(`${at.base}/session/tokens`, 'POST', { cookie, csrf, body: { name: 'Deploy' } })).body.data,
    );
    await call(`${at.base}/session`, 'GET', { bearer: issued.token });

    const answer = await call(`${at.base}/session/tokens`, 'GET', { cookie });
    expect(answer.status).toBe(200);
    const listed = OwnToken.array().parse(answer.body.data);
    expect(listed.map((own) => [own.id, own.name, own.current])).toEqual([
      [issued.id, 'Deploy', false],
      [token.id, null, true],
    ]);
    expect(listed[0]).toMatchObject({ usageCount: 1, revokedAt: null });
    expect(listed[0]?.lastUsed).not.toBeNull();
    expect(JSON.stringify(answer.body)).not.toContain(issued.token);
    expect(JSON.stringify(answer.body)).not.toMatch(/secret/i);

    const second = await call(`${at.base}/session/tokens?page=2&limit=1`, 'GET', { cookie });
    expect((second.body.data as OwnToken[]).map((own) => own.id)).toEqual([token.id]);
    expect((second.body as unknown as { pagination: unknown }).pagination).toEqual({
      page: 2,
      limit: 1,
      total: 2,
      hasNext: false,
      hasPrev: true,
    });
  });

  it("when a viewer issues a token, then it is issued and acts with the viewer's role: it reads, and writes stay refused", async () => {
    const { projectId, cookie, csrf } = await signedIn('viewer');
    const answer = await call(`${at.base}/session/tokens`, 'POST', {
      cookie,
      csrf,
      body: { name: 'Reports' },
    });
    expect(answer.status).toBe(201);
    const issued = IssuedToken.parse(answer.body.data);
    const info = await call(`${at.base}/${projectId}/token-info`, 'GET', { bearer: issued.token });
    expect(info.body.data).toMatchObject({ role: 'viewer' });
  });

  it('when the request is not a valid token to issue, then 400 VALIDATION_ERROR names the field and nothing is issued', async () => {
    const { cookie, csrf, token } = await signedIn('member');
    const elsewhere = await provision(at.url, 'owner');
    const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();
    const cases: [unknown, RegExp][] = [
      [{}, /name/],
      [{ name: '   ' }, /name/],
      [
        { name: 'x', expiresAt: new Date(Date.now() - 60_000).toISOString() },
        /expiresAt: must be in the future/,
      ],
      [{ name: 'x', expiresAt: inDays(366) }, /expiresAt: must be at most 365 days/],
      [{ name: 'x', expiresAt: null }, /expiresAt/],
      [{ name: 'x', expiresAt: 'tomorrow' }, /expiresAt/],
      [{ name: 'x', projectIds: [elsewhere.projectId] }, /projectIds\[0\].*not one this session reaches/],
      [{ name: 'x', projectIds: [] }, /projectIds/],
      [{ name: 'x', scopes: ['admin'] }, /scopes/],
    ];
    for (const [body, message] of cases) {
      const answer = await call(`${at.base}/session/tokens`, 'POST', { cookie, csrf, body });
      expect([answer.status, codeOf(answer)]).toEqual([400, 'VALIDATION_ERROR']);
      expect(answer.body.error?.message).toMatch(message);
    }
    const listed = await call(`${at.base}/session/tokens`, 'GET', { cookie });
    expect((listed.body.data as OwnToken[]).map((own) => own.id)).toEqual([token.id]);
    const ok = await call(`${at.base}/session/tokens`, 'POST', {
      cookie,
      csrf,
      body: { name: 'Year', expiresAt: inDays(365) },
    });
    expect(ok.status).toBe(201);
  });

  it('when a bearer token asks to issue or revoke, or a session writes without its CSRF token, then 403 FORBIDDEN; a bearer token may still list', async () => {
    const { token, cookie } = await signedIn('owner');
    const issue = await call(`${at.base}/session/tokens`, 'POST', {
      bearer: token.token,
      body: { name: 'x' },
    });
    expect([issue.status, codeOf(issue)]).toEqual([403, 'FORBIDDEN']);
    expect(issue.body.error?.message).toMatch(/needs a signed-in web session/);
    const revoke = await call(`${at.base}/session/tokens/${token.id}`, 'DELETE', { bearer: token.token });
    expect(revoke.status).toBe(403);
    const noCsrf = await call(`${at.base}/session/tokens`, 'POST', { cookie, body: { name: 'x' } });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error?.message).toMatch(/X-CSRF-Token/);
    const list = await call(`${at.base}/session/tokens`, 'GET', { bearer: token.token });
    expect(list.status).toBe(200);
    expect((list.body.data as OwnToken[]).map((own) => own.id)).toEqual([token.id]);
  });

  it("when a person revokes their token, then it stops working at once, revoking again answers the first revocation, and another person's token is 404", async () => {
    const { projectId, cookie, csrf } = await signedIn('member');
    const stranger = await signedIn('member');
    const issued = IssuedToken.parse(
      (await call(`${at.base}/session/tokens`, 'POST', { cookie, csrf, body: { name: 'Old' } })).body.data,
    );
    const notMine = await call(`${at.base}/session/tokens/${stranger.token.id}`, 'DELETE', { cookie, csrf });
    expect([notMine.status, codeOf(notMine)]).toEqual([404, 'NOT_FOUND']);
    const unknown = await call(`${at.base}/session/tokens/no-such-token`, 'DELETE', { cookie, csrf });
    expect(unknown.status).toBe(404);
    expect(
      (await call(`${at.base}/${stranger.projectId}/token-info`, 'GET', { bearer: stranger.token.token }))
        .status,
    ).toBe(200);

    const first = await call(`${at.base}/session/tokens/${issued.id}`, 'DELETE', { cookie, csrf });
    expect(first.status).toBe(200);
    const revoked = RevokedToken.parse(first.body.data);
    expect((await call(`${at.base}/${projectId}/token-info`, 'GET', { bearer: issued.token })).status).toBe(
      401,
    );
    const again = await call(`${at.base}/session/tokens/${issued.id}`, 'DELETE', { cookie, csrf });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(revoked);
    const listed = OwnToken.array().parse(
      (await call(`${at.base}/session/tokens`, 'GET', { cookie })).body.data,
    );
    expect(listed.find((own) => own.id === issued.id)?.revokedAt).toBe(revoked.revokedAt);
  });

  it("when a person revokes the session's own token, then the session ends with it", async () => {
    const { token, cookie, csrf } = await signedIn('member');
    expect((await call(`${at.base}/session/tokens/${token.id}`, 'DELETE', { cookie, csrf })).status).toBe(
      200,
    );
    const after = await call(`${at.base}/session`, 'GET', { cookie });
    expect([after.status, codeOf(after)]).toEqual([401, 'UNAUTHORIZED']);
  });
});
