import { createInProcessBus, ManualClock, type SqlDatabase } from '@verdict/platform';
import { startHarness, type Harness, type HarnessNames } from '../testKit';
import { testDatabases } from '@verdict/platform/testing/databases';

const CREATE = {
  url: 'https://hooks.example.com/verdict',
  events: ['run.finished'],
  conditions: { outcome: 'failed' },
  description: 'CI alerts',
};

/** Every name resolves to a public address, except the ones the test names. */
const resolve = async (hostname: string) => {
  if (hostname === 'metadata.attacker.example') return [{ address: '169.254.169.254', family: 4 as const }];
  if (hostname === 'nowhere.example') throw new Error('ENOTFOUND');
  return [{ address: '93.184.216.34', family: 4 as const }];
};

describe.each(testDatabases())('webhook subscriptions on $name', (database) => {
  let db: SqlDatabase;
  let harness: Harness & { names: HarnessNames };
  const clock = new ManualClock('2026-03-01T00:00:00Z');

  beforeAll(async () => {
    db = await database.open();
    harness = await startHarness({
      db,
      bus: createInProcessBus(),
      clock,
      resolve,
      settings: { allowPrivateNetworks: false },
    });
  });
  afterAll(async () => {
    await harness.stop();
    await db.close();
  });
  beforeEach(() => clock.set('2026-03-01T00:00:00Z'));

  const project = () => `p-${Math.random().toString(36).slice(2, 10)}`;

  it('when an owner creates a subscription, then 200 (spec §4: §4.9 states no other status) with its fields and a whsec_ secret, active and no failures', async () => {
    const p = project();
    const { status, body } = await harness.call('post', `/${p}/webhooks`, { body: CREATE });
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({
      projectId: p,
      url: CREATE.url,
      events: ['RUN_FINISHED'],
      conditions: { outcome: 'failed' },
      description: 'CI alerts',
      active: true,
      failureCount: 0,
      disabledAt: null,
    });
    expect(body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(body.data.id).toMatch(/^wh_/);
  });

  it('when a subscription is read, listed or updated, then the secret is never in the answer', async () => {
    const p = project();
    const created = await harness.call('post', `/${p}/webhooks`, { body: CREATE });
    const id = created.body.data.id as string;
    const get = await harness.call('get', `/${p}/webhooks/${id}`);
    const list = await harness.call('get', `/${p}/webhooks`);
    const patch = await harness.call('patch', `/${p}/webhooks/${id}`, { body: { description: 'x' } });
    for (const answer of [get, list, patch]) {
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.body)).not.toContain(created.body.data.secret);
      expect(JSON.stringify(answer.body)).not.toContain('secret');
    }
  });

  it('when the secret is stored, then the database holds it encrypted, not in cleartext', async () => {
    const p = project();
    const created = await harness.call('post', `/${p}/webhooks`, { body: CREATE });
    const { rows } = await db.query<{ sealed_secret: string }>(
      `SELECT sealed_secret FROM ${harness.names.schema}.subscriptions WHERE id = $1`,
      [created.body.data.id],
    );
    expect(rows[0]?.sealed_secret).toMatch(/^v1:/);
    expect(rows[0]?.sealed_secret).not.toContain(created.body.data.secret.slice('whsec_'.length));
  });

  it('when create omits conditions and description, then outcome is any and description empty', async () => {
    const { status, body } = await harness.call('post', `/${project()}/webhooks`, {
      body: { url: CREATE.url, events: ['run.started', 'run.finished'] },
    });
    expect(status).toBe(200);
    expect(body.data.conditions).toEqual({ outcome: 'any' });
    expect(body.data.description).toBe('');
    expect(body.data.events).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
  });

  it.each([
    [{ ...CREATE, url: 'ftp://hooks.example.com/x' }, /url: must use http or https/],
    [{ ...CREATE, url: 'not a url' }, /url: must be an absolute http or https URL/],
    [{ ...CREATE, url: 'https://user:pw@hooks.example.com/' }, /url: must not carry a user name/],
    [{ ...CREATE, events: [] }, /events: must be at least 1 items/],
    [{ ...CREATE, events: ['run.deleted'] }, /events\[0\]: must be one of/],
    [
      { ...CREATE, conditions: { outcome: 'flaky' } },
      /conditions.outcome: must be one of "any", "failed", "passed"/,
    ],
    [{ ...CREATE, conditions: { outcome: 'any', branch: 'main' } }, /conditions.branch: is not allowed/],
    [{ ...CREATE, description: 'x'.repeat(501) }, /description: must be at most 500 characters/],
    [{ events: ['run.finished'] }, /url: is required/],
    [{ url: CREATE.url }, /events: is required/],
    [{ ...CREATE, secret: 'mine' }, /secret: is not allowed/],
  ])('when create sends %j, then 400 VALIDATION_ERROR naming the field', async (body, message) => {
    const { status, body: answer } = await harness.call('post', `/${project()}/webhooks`, { body });
    expect(status).toBe(400);
    expect(answer).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(message) },
    });
  });

  it.each([
    ['http://127.0.0.1:9000/hook', /url: resolves to 127.0.0.1/],
    ['http://[::1]/hook', /url: resolves to ::1/],
    ['http://10.1.2.3/hook', /url: resolves to 10.1.2.3/],
    ['http://169.254.169.254/latest/meta-data', /url: resolves to 169.254.169.254/],
    ['https://metadata.attacker.example/x', /url: resolves to 169.254.169.254/],
  ])(
    'when create points at %s with private networks not allowed, then 400 VALIDATION_ERROR',
    async (url, message) => {
      const { status, body } = await harness.call('post', `/${project()}/webhooks`, {
        body: { ...CREATE, url },
      });
      expect(status).toBe(400);
      expect(body.error.message).toMatch(message);
    },
  );

  it('when create points at a host that does not resolve now, then 200: each delivery checks the address again', async () => {
    const { status, body } = await harness.call('post', `/${project()}/webhooks`, {
      body: { ...CREATE, url: 'https://nowhere.example/x' },
    });
    expect(status).toBe(200);
    expect(body.data.url).toBe('https://nowhere.example/x');
  });

  it('when an update points the url at a private address, then 400 and the subscription keeps its url', async () => {
    const p = project();
    const created = await harness.call('post', `/${p}/webhooks`, { body: CREATE });
    const id = created.body.data.id as string;
    const { status } = await harness.call('patch', `/${p}/webhooks/${id}`, {
      body: { url: 'http://192.168.1.1/' },
    });
    expect(status).toBe(400);
    expect((await harness.call('get', `/${p}/webhooks/${id}`)).body.data.url).toBe(CREATE.url);
  });

  it.each(['member', 'viewer'] as const)(
    'when a %s writes, then 403 FORBIDDEN; reads still work',
    async (role) => {
      const p = project();
      const created = await harness.call('post', `/${p}/webhooks`, { body: CREATE });
      const id = created.body.data.id as string;
      for (const [method, path, body] of [
        ['post', `/${p}/webhooks`, CREATE],
        ['patch', `/${p}/webhooks/${id}`, { active: false }],
        ['delete', `/${p}/webhooks/${id}`, undefined],
      ] as const) {
        const answer = await harness.call(method, path, { body, role });
        expect(answer.status).toBe(403);
        expect(answer.body.error.code).toBe('FORBIDDEN');
      }
      expect((await harness.call('get', `/${p}/webhooks/${id}`, { role })).status).toBe(200);
      expect((await harness.call('get', `/${p}/webhooks/${id}/deliveries`, { role })).status).toBe(200);
    },
  );

  it('when a request has no internal identity, then 401 UNAUTHORIZED', async () => {
    const answer = await harness.call('get', `/${project()}/webhooks`, { identity: false });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('UNAUTHORIZED');
  });

  it('when the identity names another project than the path, then 403 FORBIDDEN', async () => {
    const answer = await harness.call('get', `/${project()}/webhooks`, { projectId: 'someone-else' });
    expect(answer.status).toBe(403);
  });

  it('when another project asks for a subscription, then 404 NOT_FOUND', async () => {
    const created = await harness.call('post', `/${project()}/webhooks`, { body: CREATE });
    const answer = await harness.call('get', `/${project()}/webhooks/${created.body.data.id}`);
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('NOT_FOUND');
  });

  it('when subscriptions are listed, then they come in creation order, paginated', async () => {
    const p = project();
    for (let i = 0; i < 3; i += 1) {
      await harness.call('post', `/${p}/webhooks`, { body: { ...CREATE, description: `hook ${i}` } });
      clock.advance(1_000);
    }
    const first = await harness.call('get', `/${p}/webhooks?limit=2`);
    expect(first.body.data.map((w: { description: string }) => w.description)).toEqual(['hook 0', 'hook 1']);
    expect(first.body.pagination).toEqual({ page: 1, limit: 2, total: 3, hasNext: true, hasPrev: false });
    const second = await harness.call('get', `/${p}/webhooks?limit=2&page=2`);
    expect(second.body.data).toHaveLength(1);
    expect((await harness.call('get', `/${p}/webhooks?limit=101`)).status).toBe(400);
  });

  it('when a subscription is updated, then only the fields sent change; an empty body is 400', async () => {
    const p = project();
    const created = await harness.call('post', `/${p}/webhooks`, { body: CREATE });
    const id = created.body.data.id as string;
    clock.advance(5_000);
    const { status, body } = await harness.call('patch', `/${p}/webhooks/${id}`, {
      body: { events: ['RUN_STARTED'], conditions: { outcome: 'passed' } },
    });
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      url: CREATE.url,
      events: ['RUN_STARTED'],
      conditions: { outcome: 'passed' },
      description: 'CI alerts',
      updatedAt: '2026-03-01T00:00:05.000Z',
    });
    const empty = await harness.call('patch', `/${p}/webhooks/${id}`, { body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/at least one of/);
  });

  it('when a subscription is deleted, then it answers 404 afterwards and leaves the list', async () => {
    const p = project();
    const created = await harness.call('post', `/${p}/webhooks`, { body: CREATE });
    const id = created.body.data.id as string;
    const deleted = await harness.call('delete', `/${p}/webhooks/${id}`);
    expect(deleted).toEqual({ status: 200, body: { success: true, data: { id, deleted: true } } });
    expect((await harness.call('get', `/${p}/webhooks/${id}`)).status).toBe(404);
    expect((await harness.call('delete', `/${p}/webhooks/${id}`)).status).toBe(404);
    expect((await harness.call('get', `/${p}/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await harness.call('get', `/${p}/webhooks`)).body.data).toEqual([]);
  });

  it('when deliveries are filtered by an unknown status, then 400 naming status', async () => {
    const p = project();
    const created = await harness.call('post', `/${p}/webhooks`, { body: CREATE });
    const answer = await harness.call(
      'get',
      `/${p}/webhooks/${created.body.data.id}/deliveries?status=exploded`,
    );
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/^status: must be one of/);
  });

  describe('event names around the cutover (spec §6)', () => {
    it('when a write uses the new names before the cutover, then they read back in the older spelling', async () => {
      clock.set('2026-12-10T23:59:59Z');
      const p = project();
      const created = await harness.call('post', `/${p}/webhooks`, {
        body: { ...CREATE, events: ['run.started', 'run.finished'] },
      });
      expect(created.body.data.events).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
      const read = await harness.call('get', `/${p}/webhooks/${created.body.data.id}`);
      expect(read.body.data.events).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    });

    it('when a write mixes both spellings of one event, then it is stored once', async () => {
      const created = await harness.call('post', `/${project()}/webhooks`, {
        body: { ...CREATE, events: ['RUN_FINISHED', 'run.finished'] },
      });
      expect(created.body.data.events).toEqual(['RUN_FINISHED']);
    });

    it('when the cutover has passed, then the same subscription reads back with the new names', async () => {
      clock.set('2026-12-10T12:00:00Z');
      const p = project();
      const created = await harness.call('post', `/${p}/webhooks`, {
        body: { ...CREATE, events: ['RUN_FINISHED'] },
      });
      clock.set('2026-12-11T00:00:00Z');
      const read = await harness.call('get', `/${p}/webhooks/${created.body.data.id}`);
      expect(read.body.data.events).toEqual(['run.finished']);
    });

    it('when a write uses an older spelling from the cutover on, then 400 VALIDATION_ERROR naming the entry', async () => {
      clock.set('2026-12-11T00:00:00Z');
      const p = project();
      const refused = await harness.call('post', `/${p}/webhooks`, {
        body: { ...CREATE, events: ['run.started', 'RUN_FINISHED'] },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(
        /^events\[1\]: RUN_FINISHED is no longer accepted .*use run\.finished/,
      );
      const created = await harness.call('post', `/${p}/webhooks`, {
        body: { ...CREATE, events: ['run.started'] },
      });
      expect(created.status).toBe(200);
      const patch = await harness.call('patch', `/${p}/webhooks/${created.body.data.id}`, {
        body: { events: ['RUN_STARTED'] },
      });
      expect(patch.status).toBe(400);
    });
  });
});
