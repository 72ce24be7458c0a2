import { createHmac } from 'node:crypto';
import { verifySignature, WebhookQuarantinePayload } from '@verdict/contracts';
import { createInProcessBus, ManualClock, type EventBus, type SqlDatabase } from '@verdict/platform';
import { testDatabases } from '@verdict/platform/testing/databases';
import {
  eventually,
  publish,
  quarantineEvents,
  runEvents,
  startHarness,
  startReceiver,
  type Harness,
  type Received,
  type Receiver,
} from '../testKit';

/** Issue 32: test.quarantined, test.quarantine-lifted and test.quarantine-expired, delivered like the run events. */
const QUARANTINE_EVENTS = ['test.quarantined', 'test.quarantine-lifted', 'test.quarantine-expired'];

describe.each(testDatabases())('quarantine webhook deliveries on $name', (database) => {
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
  beforeEach(() => clock.set('2026-03-01T10:00:00Z'));

  const project = () => `p-${Math.random().toString(36).slice(2, 10)}`;
  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };
  async function subscribe(projectId: string, body: Record<string, unknown>) {
    const { status, body: answer } = await harness.call('post', `/${projectId}/webhooks`, { body });
    expect(status).toBe(200);
    return { id: answer.data.id as string, secret: answer.data.secret as string };
  }
  /** The attempts made so far (not the pending one), newest first. */
  async function attempts(projectId: string, webhookId: string, count: number) {
    return eventually(async () => {
      const { body } = await harness.call('get', `/${projectId}/webhooks/${webhookId}/deliveries?limit=100`);
      const made = (body.data as { status: string }[]).filter((a) => a.status !== 'pending');
      return made.length >= count ? (body.data as Record<string, unknown>[]) : undefined;
    });
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
  /** Both signatures of a delivery, checked against the subscription's secret. */
  function expectSigned(delivery: Received, secret: string) {
    const signature = String(delivery.headers['x-service-signature']);
    expect(verifySignature(delivery.rawBody, signature, secret, { now: clock.now() }).valid).toBe(true);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const standard = createHmac('sha256', key)
      .update(
        `${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.${delivery.rawBody.toString('utf8')}`,
      )
      .digest('base64');
    expect(delivery.headers['webhook-signature']).toBe(`v1,${standard}`);
    expect(delivery.headers['webhook-id']).toBe(delivery.headers['x-service-delivery']);
  }
  const byEvent = (received: Received[], name: string) =>
    received.filter((d) => d.headers['x-service-event-name'] === name);

  it('when test-results records a quarantine made, lifted and expired, then a subscriber to the three receives each, signed and retried after a 500, and a run.finished subscriber none', async () => {
    const p = project();
    const r = await receiver();
    r.respond = (index) => ({ status: index === 0 ? 500 : 200 });
    // The outcome filter is about run.finished: it holds back no quarantine event.
    const { id, secret } = await subscribe(p, {
      url: r.url,
      events: QUARANTINE_EVENTS,
      conditions: { outcome: 'failed' },
    });
    const runsOnly = await receiver();
    await subscribe(p, { url: runsOnly.url, events: ['run.finished'] });

    // Made: the first attempt is answered 500, the retry a minute later carries the same delivery id.
    const a = quarantineEvents(p);
    await publish(bus, harness.topic, [a.quarantined()]);
    await r.waitFor(1);
    const failed = (await attempts(p, id, 1)).find((attempt) => attempt.status === 'failed');
    expect(failed).toMatchObject({
      eventName: 'test.quarantined',
      attempt: 1,
      status: 'failed',
      statusCode: 500,
      nextAttemptAt: '2026-03-01T10:01:00.000Z',
    });
    clock.advance(60_000);
    harness.module.dispatcher.notify();
    const [first, retry] = await r.waitFor(2);
    if (!first || !retry) throw new Error('no delivery');
    expect(retry.headers['x-service-delivery']).toBe(first.headers['x-service-delivery']);
    expect(retry.json).toEqual(first.json);
    expectSigned(retry, secret);
    // No older spelling exists: before the cutover the name is in both places, as eventName readers expect.
    expect(retry.headers['x-service-event']).toBe('test.quarantined');
    expect(retry.headers['x-service-event-name']).toBe('test.quarantined');
    expect(Object.keys(retry.json)).toEqual(['id', 'event', 'eventName', 'createdAt', 'projectId', 'data']);
    expect(retry.json).toEqual({
      id: retry.headers['x-service-delivery'],
      event: 'test.quarantined',
      eventName: 'test.quarantined',
      createdAt: '2026-03-01T09:00:00.000Z',
      projectId: p,
      data: {
        quarantine: {
          id: a.quarantineId,
          testCaseId: 'tc-cart-pays',
          file: 'tests/cart.spec.ts',
          titlePath: ['Cart', 'pays'],
          project: 'chromium',
          reason: 'Flaky payment iframe',
          ownerId: 'u-owner',
          expiresAt: '2026-03-15T09:00:00.000Z',
          status: 'active',
          automatic: false,
          signatures: ['0123456789ab'],
          createdBy: 'u-admin',
          endedAt: null,
          endedBy: null,
          endReason: null,
          url: `https://verdict.example.com/projects/${p}/quarantine`,
        },
      },
    });
    expect(WebhookQuarantinePayload.parse(retry.json)).toEqual(retry.json);
    const succeeded = await eventually(async () => {
      const { body } = await harness.call('get', `/${p}/webhooks/${id}/deliveries?status=succeeded`);
      return body.data.length > 0 ? (body.data as Record<string, unknown>[]) : undefined;
    });
    expect(succeeded[0]).toMatchObject({ eventName: 'test.quarantined', attempt: 2, statusCode: 200 });

    // Lifted: the event carries only the id; the record describes it, with the changes made meanwhile.
    await publish(bus, harness.topic, [
      a.extended('2026-03-29T09:00:00.000Z'),
      a.signaturesChanged(['0123456789ab', 'ba9876543210']),
      a.lifted(),
    ]);
    const [lifted] = byEvent(await r.waitFor(3), 'test.quarantine-lifted');
    if (!lifted) throw new Error('no lifted delivery');
    expectSigned(lifted, secret);
    expect(lifted.headers['x-service-event']).toBe('test.quarantine-lifted');
    expect(lifted.json).toMatchObject({
      event: 'test.quarantine-lifted',
      eventName: 'test.quarantine-lifted',
      createdAt: '2026-03-03T09:00:00.000Z',
      projectId: p,
      data: {
        quarantine: {
          id: a.quarantineId,
          status: 'lifted',
          expiresAt: '2026-03-29T09:00:00.000Z',
          signatures: ['0123456789ab', 'ba9876543210'],
          createdBy: 'u-admin',
          endedAt: '2026-03-03T09:00:00.000Z',
          endedBy: 'u-owner',
          endReason: 'Iframe wait fixed',
          url: `https://verdict.example.com/projects/${p}/quarantine?view=lifted`,
        },
      },
    });
    expect(lifted.headers['x-service-delivery']).not.toBe(first.headers['x-service-delivery']);

    // Made and expired in one batch: each delivery describes the quarantine as its own event left it.
    const b = quarantineEvents(p);
    await publish(bus, harness.topic, [b.quarantined('2026-03-01T09:30:00.000Z'), b.expired()]);
    const received = await r.waitFor(5);
    const made = byEvent(received, 'test.quarantined').find(
      (d) => d.json.data.quarantine.id === b.quarantineId,
    );
    const [expired] = byEvent(received, 'test.quarantine-expired');
    if (!made || !expired) throw new Error('missing deliveries');
    expectSigned(expired, secret);
    expect(made.json.data.quarantine).toMatchObject({ status: 'active', endedAt: null });
    expect(expired.json).toMatchObject({
      event: 'test.quarantine-expired',
      eventName: 'test.quarantine-expired',
      createdAt: '2026-03-15T09:00:05.000Z',
      data: {
        quarantine: {
          id: b.quarantineId,
          status: 'expired',
          expiresAt: '2026-03-15T09:00:00.000Z',
          endedAt: '2026-03-15T09:00:00.000Z',
          endedBy: null,
          endReason: null,
          url: `https://verdict.example.com/projects/${p}/quarantine?view=expired`,
        },
      },
    });
    await settle();
    expect(r.received).toHaveLength(5);
    expect(runsOnly.received).toEqual([]);

    // The run.finished subscriber is alive: a run reaches it, and the quarantine subscriber gets no run.
    const run = runEvents(p, { status: 'failed' });
    await publish(bus, harness.topic, run.all);
    const [finished] = await runsOnly.waitFor(1);
    expect(finished?.json.data.run.id).toBe(run.runId);
    await settle();
    expect(runsOnly.received).toHaveLength(1);
    expect(r.received).toHaveLength(5);
  });

  it('when the same quarantine events arrive twice, then each delivery is queued and sent once', async () => {
    const p = project();
    const r = await receiver();
    await subscribe(p, { url: r.url, events: QUARANTINE_EVENTS });
    const q = quarantineEvents(p);
    const events = [q.quarantined(), q.lifted()];
    await publish(bus, harness.topic, events);
    await publish(bus, harness.topic, events);
    await r.waitFor(2);
    await settle();
    expect(r.received.map((d) => d.headers['x-service-event-name']).sort()).toEqual([
      'test.quarantine-lifted',
      'test.quarantined',
    ]);
  });

  it('when a quarantine ends that the service never saw made, then nothing is sent for it', async () => {
    const p = project();
    const r = await receiver();
    await subscribe(p, { url: r.url, events: QUARANTINE_EVENTS });
    const unseen = quarantineEvents(p);
    unseen.quarantined();
    await publish(bus, harness.topic, [unseen.lifted()]);
    const seen = quarantineEvents(p);
    await publish(bus, harness.topic, [seen.quarantined()]);
    await r.waitFor(1);
    await settle();
    expect(r.received.map((d) => d.json.data.quarantine.id)).toEqual([seen.quarantineId]);
  });

  it('when a quarantine event is delivered from the cutover on, then event is its name and eventName and its header are gone', async () => {
    clock.set('2026-12-11T00:00:00Z');
    const p = project();
    const r = await receiver();
    await subscribe(p, { url: r.url, events: ['test.quarantine-expired'] });
    const q = quarantineEvents(p);
    await publish(bus, harness.topic, [q.quarantined(), q.expired()]);
    const [delivery] = await r.waitFor(1);
    expect(delivery?.json.event).toBe('test.quarantine-expired');
    expect('eventName' in (delivery?.json ?? {})).toBe(false);
    expect(delivery?.headers['x-service-event']).toBe('test.quarantine-expired');
    expect(delivery?.headers['x-service-event-name']).toBeUndefined();
    await settle();
    expect(r.received).toHaveLength(1);
  });

  it('when a subscription names the quarantine events, then they read back as written, beside the older run spellings before the cutover and alone after it', async () => {
    const p = project();
    const r = await receiver();
    const body = { url: r.url, events: ['run.finished', ...QUARANTINE_EVENTS] };
    const created = await harness.call('post', `/${p}/webhooks`, { body });
    expect(created.body.data.events).toEqual(['RUN_FINISHED', ...QUARANTINE_EVENTS]);
    clock.set('2026-12-11T00:00:00Z');
    const read = await harness.call('get', `/${p}/webhooks/${created.body.data.id}`);
    expect(read.body.data.events).toEqual(['run.finished', ...QUARANTINE_EVENTS]);
    const patched = await harness.call('patch', `/${p}/webhooks/${created.body.data.id}`, {
      body: { events: ['test.quarantine-lifted'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.events).toEqual(['test.quarantine-lifted']);
  });

  it.each([
    ['test.quarantine-extended'],
    ['TEST_QUARANTINED'],
    ['test.quarantine.lifted'],
    ['quarantine.expired'],
  ])('when a subscription names %s, then 400 VALIDATION_ERROR naming the entry', async (name) => {
    const p = project();
    const { status, body } = await harness.call('post', `/${p}/webhooks`, {
      body: { url: 'https://hooks.example.com/verdict', events: ['test.quarantined', name] },
    });
    expect(status).toBe(400);
    expect(body).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^events\[1\]: must be one of/) },
    });
  });
});
