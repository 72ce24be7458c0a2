import { verifySignature } from '@verdict/contracts';
import { createInProcessBus, ManualClock, type EventBus, type SqlDatabase } from '@verdict/platform';
import { eventually, startHarness, startReceiver, type Harness, type Receiver } from '../testKit';
import { testDatabases } from '@verdict/platform/testing/databases';

describe.each(testDatabases())('webhook test events on $name', (database) => {
  let db: SqlDatabase;
  let bus: EventBus;
  let harness: Harness;
  const receivers: Receiver[] = [];
  const clock = new ManualClock('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    db = await database.open();
    bus = createInProcessBus();
    harness = await startHarness({ db, bus, clock });
  });
  afterAll(async () => {
    await harness.stop();
    await Promise.all(receivers.map((r) => r.close()));
    await bus.close();
    await db.close();
  });

  const project = () => `p-${Math.random().toString(36).slice(2, 10)}`;
  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };
  async function subscribe(projectId: string, url: string): Promise<{ id: string; secret: string }> {
    const { status, body } = await harness.call('post', `/${projectId}/webhooks`, {
      body: { url, events: ['run.finished'] },
    });
    expect(status).toBe(200);
    return { id: body.data.id, secret: body.data.secret };
  }
  const sendTest = (projectId: string, webhookId: string, role?: 'owner' | 'admin' | 'member' | 'viewer') =>
    harness.call('post', `/${projectId}/webhooks/${webhookId}/test`, role === undefined ? {} : { role });
  /** The log once it holds `count` attempts made (not pending), newest first. */
  const madeAttempts = (projectId: string, webhookId: string, count: number) =>
    eventually(async () => {
      const { body } = await harness.call('get', `/${projectId}/webhooks/${webhookId}/deliveries?limit=100`);
      const all = body.data as Record<string, unknown>[];
      return all.filter((a) => a.status !== 'pending').length >= count ? all : undefined;
    });

  it('when an owner sends a test event, then 202 with the delivery id, the receiver gets a signed webhook.test, and the log lists it', async () => {
    const p = project();
    const r = await receiver();
    const { id, secret } = await subscribe(p, r.url);

    const answer = await sendTest(p, id);
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      success: true,
      data: { deliveryId: expect.stringMatching(/^dlv_[0-9a-f]{32}$/), webhookId: id, event: 'webhook.test' },
    });
    const deliveryId = answer.body.data.deliveryId as string;

    const [delivery] = await r.waitFor(1);
    if (!delivery) throw new Error('no delivery');
    const signature = String(delivery.headers['x-service-signature']);
    expect(verifySignature(delivery.rawBody, signature, secret, { now: clock.now() })).toMatchObject({
      valid: true,
    });
    expect(delivery.headers).toMatchObject({
      'x-service-event': 'webhook.test',
      'x-service-delivery': deliveryId,
      'webhook-id': deliveryId,
      'content-type': 'application/json',
    });
    expect(delivery.headers['webhook-signature']).toMatch(/^v1,/);
    expect(delivery.headers['x-service-event-name']).toBeUndefined();
    expect(delivery.json).toEqual({
      id: deliveryId,
      event: 'webhook.test',
      createdAt: '2026-03-01T10:00:00.000Z',
      projectId: p,
      data: { test: true, webhookId: id, projectId: p },
    });

    const [attempt] = await madeAttempts(p, id, 1);
    expect(attempt).toMatchObject({
      deliveryId,
      webhookId: id,
      eventName: 'webhook.test',
      attempt: 1,
      status: 'succeeded',
      statusCode: 200,
      nextAttemptAt: null,
    });
  });

  it('when test events fail, then each is tried once, listed as failed, and the subscription stays active with no failures counted', async () => {
    const p = project();
    const r = await receiver();
    r.respond = () => ({ status: 500 });
    const { id } = await subscribe(p, r.url);

    // More failed tests than the 5 failed deliveries that disable a subscription.
    for (let n = 1; n <= 6; n += 1) {
      expect((await sendTest(p, id)).status).toBe(202);
      await madeAttempts(p, id, n);
    }
    harness.module.dispatcher.notify();
    const log = await madeAttempts(p, id, 6);
    expect(log).toHaveLength(6);
    for (const attempt of log)
      expect(attempt).toMatchObject({
        eventName: 'webhook.test',
        attempt: 1,
        status: 'failed',
        statusCode: 500,
        nextAttemptAt: null,
      });
    expect(r.received).toHaveLength(6);
    const webhook = (await harness.call('get', `/${p}/webhooks/${id}`)).body.data;
    expect(webhook).toMatchObject({ active: true, failureCount: 0, disabledAt: null });
  });

  it('when the subscription is paused, then a test event is still sent and it stays paused', async () => {
    const p = project();
    const r = await receiver();
    const { id } = await subscribe(p, r.url);
    expect((await harness.call('patch', `/${p}/webhooks/${id}`, { body: { active: false } })).status).toBe(
      200,
    );

    expect((await sendTest(p, id)).status).toBe(202);
    const [delivery] = await r.waitFor(1);
    expect(delivery?.json.event).toBe('webhook.test');
    await madeAttempts(p, id, 1);
    expect((await harness.call('get', `/${p}/webhooks/${id}`)).body.data.active).toBe(false);
  });

  it.each(['member', 'viewer'] as const)(
    'when a %s sends a test event, then 403 FORBIDDEN and nothing is queued',
    async (role) => {
      const p = project();
      const r = await receiver();
      const { id } = await subscribe(p, r.url);
      const answer = await sendTest(p, id, role);
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('FORBIDDEN');
      expect((await harness.call('get', `/${p}/webhooks/${id}/deliveries`)).body.data).toEqual([]);
    },
  );

  it('when an admin sends a test event, then it is queued', async () => {
    const p = project();
    const { id } = await subscribe(p, (await receiver()).url);
    expect((await sendTest(p, id, 'admin')).status).toBe(202);
  });

  it('when the subscription is unknown, deleted or another project’s, then 404 NOT_FOUND', async () => {
    const p = project();
    const { id } = await subscribe(p, (await receiver()).url);
    const other = await subscribe(project(), (await receiver()).url);
    const deleted = await subscribe(p, (await receiver()).url);
    expect((await harness.call('delete', `/${p}/webhooks/${deleted.id}`)).status).toBe(200);

    for (const webhookId of ['wh_unknown', deleted.id, other.id]) {
      const answer = await sendTest(p, webhookId);
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
    }
    expect((await sendTest(p, id)).status).toBe(202);
  });
});
