import { createHttpApp, ManualClock, silentLogger } from '@verdict/platform';
import type { Express } from 'express';
import request from 'supertest';
import type { IdentityDirectory } from './directory';
import { createSqlIdentityDirectory } from './projections/identityReadModel';
import { DEMO_EMAIL } from './seed';
import { ADAPTERS, startIdentity, type Adapters, type StartedIdentity } from './testing/setups';
import { hashSecret, parseToken } from './tokenFormat';

const ADMIN_KEY = 'test-admin-key-0123456789abcdef';
const auth = { Authorization: `Bearer ${ADMIN_KEY}` };
const START = '2026-03-01T10:00:00.000Z';

function appOf(started: StartedIdentity): Express {
  const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'gateway' });
  app.use('/admin/v1', started.identity.adminRouter(ADMIN_KEY));
  finish(app);
  return app;
}

describe.each(ADAPTERS)('admin API on %s', (_name, makeAdapters) => {
  let adapters: Adapters;
  let started: StartedIdentity;
  let app: Express;
  let clock: ManualClock;
  /** The directory as another gateway replica sees it: its own connection to the read model. */
  let replica: IdentityDirectory;

  beforeAll(async () => {
    adapters = await makeAdapters();
    clock = new ManualClock(START);
    started = await startIdentity(adapters, clock);
    app = appOf(started);
    replica = createSqlIdentityDirectory(adapters.replicaDb, started.schema);
  });
  beforeEach(() => clock.set(START));
  afterAll(async () => {
    await started.identity.stop();
    await adapters.close();
  });

  const post = (path: string, body: object) => request(app).post(`/admin/v1${path}`).set(auth).send(body);
  const put = (path: string, body: object) => request(app).put(`/admin/v1${path}`).set(auth).send(body);
  const del = (path: string) => request(app).delete(`/admin/v1${path}`).set(auth);

  async function organization(body: object = { name: 'Acme' }): Promise<string> {
    const response = await post('/organizations', body);
    expect(response.status).toBe(201);
    return response.body.data.id;
  }
  async function project(organizationId: string, name = 'Web'): Promise<string> {
    const response = await post(`/organizations/${organizationId}/projects`, { name });
    expect(response.status).toBe(201);
    return response.body.data.id;
  }
  let emails = 0;
  async function user(): Promise<string> {
    emails += 1;
    const response = await post('/users', {
      email: `user${emails}@example.org`,
      firstName: 'U',
      lastName: `${emails}`,
    });
    expect(response.status).toBe(201);
    return response.body.data.id;
  }
  async function member(organizationId: string, userId: string, role = 'member'): Promise<void> {
    expect((await put(`/organizations/${organizationId}/members/${userId}`, { role })).status).toBe(200);
  }
  /** An organization on a 5-project plan with one project and one member. */
  async function workspace(role = 'member') {
    const organizationId = await organization({
      name: 'Team',
      plan: { name: 'team', testCaseLimit: 50_000, projectLimit: 5 },
    });
    const projectId = await project(organizationId);
    const userId = await user();
    await member(organizationId, userId, role);
    return { organizationId, projectId, userId };
  }

  describe('authentication', () => {
    const endpoints: [string, (r: ReturnType<typeof request>) => request.Test][] = [
      ['POST /organizations', (r) => r.post('/admin/v1/organizations').send({ name: 'X' })],
      [
        'POST /organizations/o/projects',
        (r) => r.post('/admin/v1/organizations/o/projects').send({ name: 'X' }),
      ],
      [
        'POST /users',
        (r) => r.post('/admin/v1/users').send({ email: 'x@example.org', firstName: 'X', lastName: 'Y' }),
      ],
      [
        'PUT /organizations/o/members/u',
        (r) => r.put('/admin/v1/organizations/o/members/u').send({ role: 'owner' }),
      ],
      [
        'POST /tokens',
        (r) => r.post('/admin/v1/tokens').send({ kind: 'personal', userId: 'u', projectIds: ['p'] }),
      ],
      ['DELETE /tokens/t', (r) => r.delete('/admin/v1/tokens/t')],
    ];

    it.each(endpoints)(
      'when %s comes without the admin key or with a wrong one, then it answers 401 UNAUTHORIZED',
      async (_e, call) => {
        for (const authorization of [
          undefined,
          `Bearer ${ADMIN_KEY}x`,
          `Bearer ${ADMIN_KEY.slice(1)}`,
          ADMIN_KEY,
          'Basic abc',
        ]) {
          const req = call(request(app));
          const response = await (authorization === undefined
            ? req
            : req.set('Authorization', authorization));
          expect(response.status).toBe(401);
          expect(response.body).toEqual({
            success: false,
            error: { code: 'UNAUTHORIZED', message: expect.any(String) },
          });
        }
      },
    );

    it('when a valid user token is offered instead of the admin key, then it answers 401', async () => {
      const { projectId, userId } = await workspace('owner');
      const issued = await post('/tokens', { kind: 'personal', userId, projectIds: [projectId] });
      const response = await request(app)
        .post('/admin/v1/organizations')
        .set('Authorization', `Bearer ${issued.body.data.token}`)
        .send({ name: 'Takeover' });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
    });
  });

  describe('organizations and projects', () => {
    it('when an organization is created without a plan, then it answers 201 with the free tier', async () => {
      const response = await post('/organizations', { name: '  Acme  ' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        success: true,
        data: {
          id: expect.any(String),
          name: 'Acme',
          plan: { name: 'free', testCaseLimit: 5000, projectLimit: 1, periodStart: null, periodEnd: null },
          createdAt: START,
        },
      });
    });

    it('when an organization is created with a plan, then the plan is kept as given', async () => {
      const plan = {
        name: 'business',
        testCaseLimit: 250_000,
        projectLimit: 20,
        periodStart: '2026-03-01T00:00:00.000Z',
        periodEnd: '2026-04-01T00:00:00.000Z',
      };
      const response = await post('/organizations', { name: 'Big', plan });
      expect(response.status).toBe(201);
      expect(response.body.data.plan).toEqual(plan);
    });

    it('when a project is created, then it answers 201 with its organization and the directory finds it at once', async () => {
      const organizationId = await organization();
      const response = await post(`/organizations/${organizationId}/projects`, {
        name: 'Web',
        allocation: 1000,
      });
      expect(response.status).toBe(201);
      expect(response.body.data).toEqual({
        id: expect.any(String),
        name: 'Web',
        organizationId,
        allocation: 1000,
        createdAt: START,
      });
      expect(await replica.findProject(response.body.data.id)).toEqual({
        id: response.body.data.id,
        name: 'Web',
        organizationId,
      });
    });

    it('when the free tier has its project, then a second answers 409 PROJECT_LIMIT_REACHED', async () => {
      const organizationId = await organization();
      await project(organizationId, 'First');
      const response = await post(`/organizations/${organizationId}/projects`, { name: 'Second' });
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('PROJECT_LIMIT_REACHED');
    });

    it('when the organization does not exist, then creating a project answers 404 NOT_FOUND', async () => {
      const response = await post('/organizations/no-such-org/projects', { name: 'Web' });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    });
  });

  describe('users and memberships', () => {
    it('when a user is created, then it answers 201 with the user', async () => {
      const response = await post('/users', {
        email: 'grace@example.org',
        firstName: 'Grace',
        lastName: 'Hopper',
      });
      expect(response.status).toBe(201);
      expect(response.body.data).toEqual({
        id: expect.any(String),
        email: 'grace@example.org',
        firstName: 'Grace',
        lastName: 'Hopper',
        createdAt: START,
      });
    });

    it('when an e-mail address is taken in any letter case, then creating the user answers 409 CONFLICT', async () => {
      expect(
        (await post('/users', { email: 'Alan@Example.org', firstName: 'Alan', lastName: 'Turing' })).status,
      ).toBe(201);
      const response = await post('/users', {
        email: 'alan@EXAMPLE.org',
        firstName: 'Other',
        lastName: 'Alan',
      });
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('CONFLICT');
    });

    it('when the same address is created concurrently, then exactly one request wins and the others get 409', async () => {
      const responses = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          post('/users', { email: 'race@example.org', firstName: 'R', lastName: `${i}` }),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    });

    it('when a role is set, then it answers 200 with the membership and the directory returns the role at once', async () => {
      const organizationId = await organization();
      const userId = await user();
      clock.advance(60_000);
      const response = await put(`/organizations/${organizationId}/members/${userId}`, { role: 'admin' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        data: { organizationId, userId, role: 'admin', updatedAt: '2026-03-01T10:01:00.000Z' },
      });
      expect(await replica.roleOf(userId, organizationId)).toBe('admin');
      expect(
        (await put(`/organizations/${organizationId}/members/${userId}`, { role: 'viewer' })).status,
      ).toBe(200);
      expect(await replica.roleOf(userId, organizationId)).toBe('viewer');
    });

    it('when the user or the organization does not exist, then setting a role answers 404 NOT_FOUND', async () => {
      const organizationId = await organization();
      const userId = await user();
      for (const path of [
        `/organizations/${organizationId}/members/nobody`,
        `/organizations/nowhere/members/${userId}`,
      ]) {
        const response = await put(path, { role: 'member' });
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('NOT_FOUND');
      }
    });
  });

  describe('validation', () => {
    const cases: [string, () => Promise<request.Response>, RegExp][] = [
      ['an organization without name', () => post('/organizations', {}), /^name: is required/],
      [
        'a plan with projectLimit 0',
        () => post('/organizations', { name: 'A', plan: { name: 'p', testCaseLimit: 1, projectLimit: 0 } }),
        /^plan\.projectLimit: must be at least 1/,
      ],
      [
        'a plan with periodStart alone',
        () =>
          post('/organizations', {
            name: 'A',
            plan: { name: 'p', testCaseLimit: 1, projectLimit: 1, periodStart: START },
          }),
        /plan\.periodEnd: must be sent together with periodStart/,
      ],
      [
        'an unknown field',
        () => post('/organizations', { name: 'A', owner: 'me' }),
        /^owner: is not allowed/,
      ],
      [
        'a negative allocation',
        () => post('/organizations/o/projects', { name: 'P', allocation: -1 }),
        /^allocation: must be at least 0/,
      ],
      [
        'a malformed e-mail',
        () => post('/users', { email: 'not-an-address', firstName: 'A', lastName: 'B' }),
        /^email: must be a valid email/,
      ],
      [
        'a user without lastName',
        () => post('/users', { email: 'a@example.org', firstName: 'A' }),
        /^lastName: is required/,
      ],
      [
        'an unknown role',
        () => put('/organizations/o/members/u', { role: 'superuser' }),
        /^role: must be one of "owner", "admin", "member", "viewer"/,
      ],
      [
        'a token without kind',
        () => post('/tokens', { userId: 'u', projectIds: ['p'] }),
        /^kind: must be "personal" or "project"/,
      ],
      [
        'a personal token without projects',
        () => post('/tokens', { kind: 'personal', userId: 'u', projectIds: [] }),
        /^projectIds: must be at least 1 items/,
      ],
      [
        'a personal token naming a project twice',
        () => post('/tokens', { kind: 'personal', userId: 'u', projectIds: ['p', 'p'] }),
        /^projectIds: must not name a project twice/,
      ],
      [
        'a project token with an unknown scope',
        () => post('/tokens', { kind: 'project', projectId: 'p', createdByUserId: 'u', scopes: ['admin'] }),
        /^scopes\[0\]: must be "public-api"/,
      ],
      [
        'an expiry that is not a date-time',
        () => post('/tokens', { kind: 'personal', userId: 'u', projectIds: ['p'], expiresAt: 'tomorrow' }),
        /^expiresAt: must be an RFC 3339 date-time/,
      ],
      ['a path id with a space', () => del('/tokens/a%20b'), /^tokenId: must be an id/],
    ];

    it.each(cases)(
      'when the request has %s, then it answers 400 VALIDATION_ERROR naming the field',
      async (_c, send, message) => {
        const response = await send();
        expect(response.status).toBe(400);
        expect(response.body.success).toBe(false);
        expect(response.body.error.code).toBe('VALIDATION_ERROR');
        expect(response.body.error.message).toMatch(message);
      },
    );
  });

  describe('tokens', () => {
    it('when a personal token is issued, then the cleartext is returned once, its scopes as token-info shows them, and only its hash is stored', async () => {
      const { organizationId, projectId, userId } = await workspace();
      const response = await post('/tokens', {
        kind: 'personal',
        userId,
        name: 'CI',
        projectIds: [projectId],
        expiresAt: '2026-06-01T00:00:00Z',
      });
      expect(response.status).toBe(201);
      expect(response.headers['cache-control']).toBe('no-store');
      const data = response.body.data;
      expect(data).toEqual({
        id: expect.any(String),
        token: expect.stringMatching(/^svc_pat_[0-9a-f]{32}[0-9A-Za-z]{40}$/),
        kind: 'personal',
        name: 'CI',
        scopes: [`organizations/${organizationId}/projects/${projectId}`, 'public-api'],
        projectIds: [projectId],
        expiresAt: '2026-06-01T00:00:00.000Z',
        createdAt: START,
      });
      const parsed = parseToken(data.token);
      expect(parsed?.tokenId).toBe(data.id);

      const { rows } = await adapters.db.query(`SELECT * FROM ${started.schema}.tokens WHERE id = $1`, [
        data.id,
      ]);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.secret_hash).toBe(hashSecret(parsed?.secret ?? ''));
      expect(JSON.stringify(rows)).not.toContain(parsed?.secret);
      const { rows: events } = await adapters.db.query(
        `SELECT data::text AS data FROM ${started.storeSchema}.events WHERE stream_id = $1`,
        [`token-${data.id}`],
      );
      expect(events).toHaveLength(1);
      expect(String(events[0]?.data)).not.toContain(parsed?.secret);

      expect(await replica.findToken(data.id)).toEqual({
        id: data.id,
        kind: 'personal',
        name: 'CI',
        ownerUserId: userId,
        projectIds: [projectId],
        scopes: ['public-api'],
        secretHash: hashSecret(parsed?.secret ?? ''),
        createdAt: START,
        expiresAt: '2026-06-01T00:00:00.000Z',
        revokedAt: null,
        ownerRoles: { [organizationId]: 'member' },
      });
    });

    it('when a project token is issued without scopes, then it gets public-api; with [] it gets none', async () => {
      const { organizationId, projectId, userId } = await workspace('viewer');
      const defaulted = await post('/tokens', { kind: 'project', projectId, createdByUserId: userId });
      expect(defaulted.status).toBe(201);
      expect(defaulted.body.data).toMatchObject({
        kind: 'project',
        name: null,
        scopes: [`organizations/${organizationId}/projects/${projectId}`, 'public-api'],
        projectIds: [projectId],
        expiresAt: '2027-03-01T10:00:00.000Z',
      });
      expect(defaulted.body.data.token).toMatch(/^svcp_/);
      const bare = await post('/tokens', { kind: 'project', projectId, createdByUserId: userId, scopes: [] });
      expect(bare.status).toBe(201);
      expect((await replica.findToken(bare.body.data.id))?.scopes).toEqual([]);
      expect((await replica.findToken(defaulted.body.data.id))?.ownerUserId).toBe(userId);
    });

    it('when a token is issued without expiresAt, then it expires 365 days later', async () => {
      const { projectId, userId } = await workspace();
      const defaulted = await post('/tokens', { kind: 'personal', userId, projectIds: [projectId] });
      expect(defaulted.status).toBe(201);
      expect(defaulted.body.data.expiresAt).toBe('2027-03-01T10:00:00.000Z');
      expect((await replica.findToken(defaulted.body.data.id))?.expiresAt).toBe('2027-03-01T10:00:00.000Z');
    });

    it('when a token is asked to never expire (expiresAt null), then 400 names expiresAt: token-info must show a date-time (spec §2)', async () => {
      const { projectId, userId } = await workspace();
      const lasting = await post('/tokens', {
        kind: 'personal',
        userId,
        projectIds: [projectId],
        expiresAt: null,
      });
      expect(lasting.status).toBe(400);
      expect(lasting.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'expiresAt: must be a date-time: every token expires (leave it out for 365 days from now)',
      });
    });

    it('when the expiry is in the past, then issuing answers 400 naming expiresAt', async () => {
      const { projectId, userId } = await workspace();
      const response = await post('/tokens', {
        kind: 'personal',
        userId,
        projectIds: [projectId],
        expiresAt: '2026-02-28T00:00:00Z',
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'expiresAt: must be in the future',
      });
    });

    it('when a project or user does not exist, then issuing answers 404 naming it', async () => {
      const { projectId, userId } = await workspace();
      const cases = [
        { kind: 'personal', userId: 'nobody', projectIds: [projectId] },
        { kind: 'personal', userId, projectIds: [projectId, 'nowhere'] },
        { kind: 'project', projectId: 'nowhere', createdByUserId: userId },
        { kind: 'project', projectId, createdByUserId: 'nobody' },
      ];
      const messages = [
        /^userId: /,
        /^projectIds\[1\]: project nowhere/,
        /^projectId: /,
        /^createdByUserId: /,
      ];
      for (const [i, body] of cases.entries()) {
        const response = await post('/tokens', body);
        expect(response.status).toBe(404);
        expect(response.body.error.code).toBe('NOT_FOUND');
        expect(response.body.error.message).toMatch(messages[i] ?? /never/);
      }
    });

    it("when the user is not a member of a project's organization, then issuing answers 400 naming the project", async () => {
      const mine = await workspace();
      const other = await workspace();
      const response = await post('/tokens', {
        kind: 'personal',
        userId: mine.userId,
        projectIds: [mine.projectId, other.projectId],
      });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.message).toMatch(/^projectIds\[1\]: user .* is not a member/);
      const projectToken = await post('/tokens', {
        kind: 'project',
        projectId: other.projectId,
        createdByUserId: mine.userId,
      });
      expect(projectToken.status).toBe(400);
      expect(projectToken.body.error.message).toMatch(/^createdByUserId: /);
    });

    it('when a token is revoked, then the directory shows it revoked as soon as DELETE answers, and a second DELETE answers the same revokedAt', async () => {
      const { projectId, userId } = await workspace();
      const issued = await post('/tokens', { kind: 'personal', userId, projectIds: [projectId] });
      const tokenId: string = issued.body.data.id;
      clock.advance(5 * 60_000);
      const revoked = await del(`/tokens/${tokenId}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({
        success: true,
        data: { id: tokenId, revokedAt: '2026-03-01T10:05:00.000Z' },
      });
      expect((await replica.findToken(tokenId))?.revokedAt).toBe('2026-03-01T10:05:00.000Z');

      clock.advance(60_000);
      const again = await del(`/tokens/${tokenId}`);
      expect(again.status).toBe(200);
      expect(again.body.data).toEqual({ id: tokenId, revokedAt: '2026-03-01T10:05:00.000Z' });
      expect((await replica.findToken(tokenId))?.revokedAt).toBe('2026-03-01T10:05:00.000Z');
    });

    it('when an unknown token is revoked, then it answers 404 NOT_FOUND', async () => {
      const response = await del('/tokens/0190f3c2-a1b2-7c3e-8d4f-5a6b7c8d9e0f');
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    });
  });

  describe('reads', () => {
    const get = (path: string) => request(app).get(`/admin/v1${path}`).set(auth);

    it('when an organization is read, then its plan, projects and members come with it', async () => {
      const { organizationId, projectId, userId } = await workspace('admin');
      const response = await get(`/organizations/${organizationId}`);
      expect(response.status).toBe(200);
      expect(response.body.data).toMatchObject({
        id: organizationId,
        name: 'Team',
        plan: { name: 'team', testCaseLimit: 50_000, projectLimit: 5 },
        projects: [{ id: projectId, name: 'Web', organizationId, allocation: null }],
        members: [{ userId, role: 'admin' }],
      });
      expect((await get('/organizations/nope')).status).toBe(404);
    });

    it('when organizations are listed, then they come oldest first, paginated, with the total', async () => {
      const first = await organization({ name: 'Listed 1' });
      clock.advance(1_000);
      const second = await organization({ name: 'Listed 2' });
      const all = await get('/organizations?limit=100');
      expect(all.status).toBe(200);
      const ids = (all.body.data as { id: string }[]).map((o) => o.id);
      expect(ids.indexOf(first)).toBeLessThan(ids.indexOf(second));
      const total = all.body.pagination.total as number;
      expect(total).toBeGreaterThanOrEqual(2);
      const past = await get(`/organizations?page=${total + 1}&limit=1`);
      expect(past.body).toMatchObject({ data: [], pagination: { total, hasNext: false, hasPrev: true } });
    });

    it('when a user is looked up by e-mail in another letter case, then that user comes', async () => {
      const userId = await user();
      const response = await get(`/users?email=USER${emails}@EXAMPLE.ORG`);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual([
        expect.objectContaining({ id: userId, email: `user${emails}@example.org` }),
      ]);
      expect(response.body.pagination.total).toBe(1);
    });

    it('when tokens are listed by owner or by project, then their metadata comes, and never a secret', async () => {
      const { projectId, userId } = await workspace();
      const issued = await post('/tokens', { kind: 'personal', userId, projectIds: [projectId], name: 'ci' });
      expect((await del(`/tokens/${issued.body.data.id}`)).status).toBe(200);
      for (const filter of [`userId=${userId}`, `projectId=${projectId}`]) {
        const response = await get(`/tokens?${filter}`);
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual([
          {
            id: issued.body.data.id,
            kind: 'personal',
            name: 'ci',
            ownerUserId: userId,
            projectIds: [projectId],
            scopes: ['public-api'],
            createdAt: issued.body.data.createdAt,
            expiresAt: issued.body.data.expiresAt,
            revokedAt: expect.any(String),
          },
        ]);
        expect(JSON.stringify(response.body)).not.toContain(issued.body.data.token.slice(-20));
      }
    });

    it('when a read gets a parameter it does not take, then 400 VALIDATION_ERROR names it', async () => {
      const response = await get('/tokens?owner=u1');
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({ code: 'VALIDATION_ERROR', message: 'owner: is not allowed' });
    });
  });

  describe('demo seeding', () => {
    it('when the installation is fresh, then seedDemo creates an owner, a project and a working token once, and null afterwards', async () => {
      const fresh = await startIdentity(adapters, clock);
      try {
        const seed = await fresh.identity.seedDemo();
        expect(seed).toEqual({
          organizationId: expect.any(String),
          projectId: expect.any(String),
          userId: expect.any(String),
          tokenId: expect.any(String),
          token: expect.stringMatching(/^svc_pat_/),
        });
        const directory = fresh.identity.directory;
        const parsed = parseToken(seed?.token ?? '');
        expect(parsed?.tokenId).toBe(seed?.tokenId);
        const token = await directory.findToken(parsed?.tokenId ?? '');
        expect(token).toMatchObject({
          kind: 'personal',
          ownerUserId: seed?.userId,
          projectIds: [seed?.projectId],
          revokedAt: null,
        });
        expect(token?.secretHash).toBe(hashSecret(parsed?.secret ?? ''));
        expect(await directory.findProject(seed?.projectId ?? '')).toMatchObject({
          name: 'Demo project',
          organizationId: seed?.organizationId,
        });
        expect(await directory.roleOf(seed?.userId ?? '', seed?.organizationId ?? '')).toBe('owner');
        const { rows } = await adapters.db.query(`SELECT email FROM ${fresh.schema}.users`);
        expect(rows).toEqual([{ email: DEMO_EMAIL }]);

        expect(await fresh.identity.seedDemo()).toBeNull();
        const { rows: organizations } = await adapters.db.query(
          `SELECT name, plan_name FROM ${fresh.schema}.organizations`,
        );
        expect(organizations).toEqual([{ name: 'Demo', plan_name: 'free' }]);
      } finally {
        await fresh.identity.stop();
      }
    });

    it('when two processes seed the same fresh installation at once, then only one seed happens', async () => {
      const fresh = await startIdentity(adapters, clock);
      try {
        const seeds = await Promise.all([fresh.identity.seedDemo(), fresh.identity.seedDemo()]);
        expect(seeds.filter((seed) => seed !== null)).toHaveLength(1);
        const { rows } = await adapters.db.query(
          `SELECT count(*)::int AS n FROM ${fresh.schema}.organizations`,
        );
        expect(rows).toEqual([{ n: 1 }]);
      } finally {
        await fresh.identity.stop();
      }
    });
  });
});
