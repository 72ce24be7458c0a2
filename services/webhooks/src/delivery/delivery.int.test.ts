import { createHmac } from 'node:crypto';
import { verifySignature, WebhookPayload } from '@verdict/contracts';
import { createInProcessBus, ManualClock, type EventBus, type SqlDatabase } from '@verdict/platform';
import {
  eventually,
  publish,
  result,
  runEvents,
  startHarness,
  startReceiver,
  type Harness,
  type Receiver,
} from '../testKit';
import { testDatabases } from '@verdict/platform/testing/databases';

const DELAYS = [60_000, 300_000, 1_800_000, 7_200_000];

describe.each(testDatabases())('webhook deliveries on $name', (database) => {
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
  async function subscribe(
    on: Harness,
    projectId: string,
    body: Record<string, unknown>,
  ): Promise<{ id: string; secret: string }> {
    const { status, body: answer } = await on.call('post', `/${projectId}/webhooks`, { body });
    expect(status).toBe(200);
    return { id: answer.data.id, secret: answer.data.secret };
  }
  /** The attempts made so far (not the pending one), newest first. */
  async function attempts(on: Harness, projectId: string, webhookId: string, count: number) {
    return eventually(async () => {
      const { body } = await on.call('get', `/${projectId}/webhooks/${webhookId}/deliveries?limit=100`);
      const made = (body.data as { status: string }[]).filter((a) => a.status !== 'pending');
      return made.length >= count ? (body.data as unknown[]) : undefined;
    });
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('when a run finishes, then the receiver gets the payload with stats and outcome, signed as spec §6 says', async () => {
    const p = project();
    const r = await receiver();
    const { secret } = await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    const run = runEvents(p, {
      counter: 7,
      status: 'passed',
      results: [
        result('passes', 'passed'),
        result('flakes', 'failed', 0),
        result('flakes', 'passed', 1),
        result('fails', 'failed'),
        result('skips', 'skipped'),
      ],
    });
    await publish(bus, harness.topic, run.all);
    const [delivery] = await r.waitFor(1);
    if (!delivery) throw new Error('no delivery');

    const signature = String(delivery.headers['x-service-signature']);
    expect(verifySignature(delivery.rawBody, signature, secret, { now: clock.now() })).toEqual({
      valid: true,
      timestamp: Math.floor(clock.now().getTime() / 1000),
    });
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature) ?? [];
    const independent = createHmac('sha256', secret)
      .update(`${t}.${delivery.rawBody.toString('utf8')}`)
      .digest('hex');
    expect(v1).toBe(independent);
    const standardKey = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const standard = createHmac('sha256', standardKey)
      .update(
        `${delivery.headers['webhook-id']}.${delivery.headers['webhook-timestamp']}.${delivery.rawBody.toString('utf8')}`,
      )
      .digest('base64');
    expect(delivery.headers['webhook-signature']).toBe(`v1,${standard}`);
    expect(delivery.headers['webhook-timestamp']).toBe(t);
    expect(delivery.headers['webhook-id']).toBe(delivery.headers['x-service-delivery']);
    expect(delivery.headers['x-service-event']).toBe('RUN_FINISHED');
    expect(delivery.headers['x-service-event-name']).toBe('run.finished');
    expect(delivery.headers['content-type']).toBe('application/json');

    expect(Object.keys(delivery.json)).toEqual([
      'id',
      'event',
      'eventName',
      'createdAt',
      'projectId',
      'data',
    ]);
    expect(delivery.json).toEqual({
      id: delivery.headers['x-service-delivery'],
      event: 'RUN_FINISHED',
      eventName: 'run.finished',
      createdAt: '2026-03-01T10:05:00.000Z',
      projectId: p,
      data: {
        run: {
          id: run.runId,
          counter: 7,
          status: 'finished',
          outcome: 'failed',
          branch: 'main',
          environment: 'staging',
          commit: { sha: 'abc123', message: 'Fix cart' },
          stats: { total: 4, passed: 1, failed: 1, flaky: 1, skipped: 1 },
          startedAt: '2026-03-01T10:00:00.000Z',
          finishedAt: '2026-03-01T10:05:00.000Z',
          url: `https://verdict.example.com/projects/${p}/runs/${run.runId}`,
        },
      },
    });
  });

  it("when a finished run carries its failures' verdicts, then run.finished adds them as new fields and stays a valid payload", async () => {
    const p = project();
    const r = await receiver();
    await subscribe(harness, p, { url: r.url, events: ['run.started', 'run.finished'] });
    const newFailure = {
      testCaseId: 'tc-1',
      title: 'pays',
      file: 'tests/cart.spec.ts',
      project: 'chromium',
      signatureId: '0123456789ab',
    };
    const failures = {
      baseBranch: 'main',
      baseRunId: 'run-base',
      counts: { new: 1, failingOnBase: 2, knownFlaky: 0, quarantined: 0 },
      newFailures: [newFailure],
    };
    const run = runEvents(p, { results: [result('pays', 'failed')], failures });
    await publish(bus, harness.topic, run.all);
    const received = await r.waitFor(2);
    const [started, finished] = [...received]
      .map((delivery) => WebhookPayload.parse(delivery.json))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    expect(started?.data.run).not.toHaveProperty('failures');
    expect(started?.data.run).not.toHaveProperty('newFailures');
    expect(finished?.data.run).toMatchObject({
      status: 'finished',
      outcome: 'failed',
      stats: { total: 1, failed: 1 },
      failures: { baseBranch: 'main', baseRunId: 'run-base', counts: failures.counts },
      newFailures: [newFailure],
    });
    // The spec's fields come first and unchanged; the new ones follow.
    expect(Object.keys(finished?.data.run ?? {})).toEqual([
      'id',
      'counter',
      'status',
      'outcome',
      'branch',
      'environment',
      'commit',
      'stats',
      'startedAt',
      'finishedAt',
      'url',
      'failures',
      'newFailures',
    ]);
  });

  it('when a run starts and a subscription wants run.started, then it gets a running run without outcome', async () => {
    const p = project();
    const r = await receiver();
    await subscribe(harness, p, { url: r.url, events: ['RUN_STARTED'], conditions: { outcome: 'failed' } });
    const run = runEvents(p);
    await publish(bus, harness.topic, [run.created]);
    const [delivery] = await r.waitFor(1);
    expect(delivery?.headers['x-service-event']).toBe('RUN_STARTED');
    expect(delivery?.json.data.run).toMatchObject({ status: 'running', outcome: null, finishedAt: null });
  });

  it('when conditions.outcome is failed or passed, then only finished runs of that outcome are sent', async () => {
    const p = project();
    const [any, failed, passed] = [await receiver(), await receiver(), await receiver()];
    await subscribe(harness, p, { url: any.url, events: ['run.finished'], conditions: { outcome: 'any' } });
    await subscribe(harness, p, {
      url: failed.url,
      events: ['run.finished'],
      conditions: { outcome: 'failed' },
    });
    await subscribe(harness, p, {
      url: passed.url,
      events: ['run.finished'],
      conditions: { outcome: 'passed' },
    });
    const green = runEvents(p, { results: [result('a', 'passed')], status: 'passed' });
    const red = runEvents(p, { results: [result('a', 'failed')], status: 'failed' });
    await publish(bus, harness.topic, [...green.all, ...red.all]);
    await any.waitFor(2);
    await failed.waitFor(1);
    await passed.waitFor(1);
    await settle();
    expect(failed.received.map((d) => d.json.data.run.id)).toEqual([red.runId]);
    expect(passed.received.map((d) => d.json.data.run.id)).toEqual([green.runId]);
    expect(any.received).toHaveLength(2);
  });

  it('when the same events arrive twice, then each delivery is queued and sent once', async () => {
    const p = project();
    const r = await receiver();
    await subscribe(harness, p, { url: r.url, events: ['run.started', 'run.finished'] });
    const run = runEvents(p, { results: [result('a', 'passed')] });
    await publish(bus, harness.topic, run.all);
    await publish(bus, harness.topic, run.all);
    await r.waitFor(2);
    await settle();
    // Deliveries due together go out in parallel: their order is not promised.
    expect(r.received.map((d) => d.headers['x-service-event-name']).sort()).toEqual([
      'run.finished',
      'run.started',
    ]);
  });

  it('when every attempt fails, then 5 attempts carry one delivery id on the retry schedule, and that one failed delivery leaves the subscription active', async () => {
    const p = project();
    const r = await receiver();
    r.respond = () => ({ status: 500 });
    const { id } = await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    await publish(bus, harness.topic, runEvents(p).all);
    const sentAt: string[] = [];
    for (let n = 1; n <= 5; n += 1) {
      await r.waitFor(n);
      sentAt.push(clock.now().toISOString());
      await attempts(harness, p, id, n);
      const pending = (await harness.call('get', `/${p}/webhooks/${id}/deliveries?status=pending`)).body.data;
      if (n < 5) {
        expect(pending).toHaveLength(1);
        expect(pending[0].nextAttemptAt).toBe(
          new Date(clock.now().getTime() + (DELAYS[n - 1] ?? 0)).toISOString(),
        );
        // A failed attempt that will be retried is not a failed delivery yet.
        expect((await harness.call('get', `/${p}/webhooks/${id}`)).body.data.failureCount).toBe(0);
        // Not a moment early: one millisecond before it is due, nothing is sent.
        clock.advance((DELAYS[n - 1] ?? 0) - 1);
        harness.module.dispatcher.notify();
        await settle();
        expect(r.received).toHaveLength(n);
        clock.advance(1);
      } else expect(pending).toEqual([]);
    }
    expect(new Set(r.received.map((d) => d.headers['x-service-delivery'])).size).toBe(1);
    expect(sentAt).toEqual([
      '2026-03-01T10:00:00.000Z',
      '2026-03-01T10:01:00.000Z',
      '2026-03-01T10:06:00.000Z',
      '2026-03-01T10:36:00.000Z',
      '2026-03-01T12:36:00.000Z',
    ]);
    const webhook = (await harness.call('get', `/${p}/webhooks/${id}`)).body.data;
    expect(webhook).toMatchObject({ active: true, failureCount: 1, disabledAt: null });
    const failed = (await harness.call('get', `/${p}/webhooks/${id}/deliveries?status=failed`)).body;
    expect(failed.pagination.total).toBe(5);
    expect(failed.data.map((a: { attempt: number }) => a.attempt)).toEqual([5, 4, 3, 2, 1]);
    expect(failed.data[0]).toMatchObject({ statusCode: 500, error: 'answered 500', nextAttemptAt: null });
    expect(typeof failed.data[0].responseTimeMs).toBe('number');
  });

  /** Sends `runs` finished runs to the project and lets each delivery make its 5 attempts, which fail. */
  async function failDeliveries(r: Receiver, p: string, id: string, runs: number) {
    const before = r.received.length;
    await publish(bus, harness.topic, Array.from({ length: runs }, () => runEvents(p).all).flat());
    for (let n = 1; n <= 5; n += 1) {
      await r.waitFor(before + runs * n);
      await attempts(harness, p, id, before + runs * n);
      if (n < 5) {
        clock.advance(DELAYS[n - 1] ?? 0);
        harness.module.dispatcher.notify();
      }
    }
  }

  it('when 5 deliveries in a row fail, then the subscription is disabled, sent nothing more, and active=true re-enables it', async () => {
    const p = project();
    const r = await receiver();
    r.respond = () => ({ status: 500 });
    const { id } = await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    await failDeliveries(r, p, id, 4);
    expect((await harness.call('get', `/${p}/webhooks/${id}`)).body.data).toMatchObject({
      active: true,
      failureCount: 4,
    });
    const fifthStarted = clock.now().getTime();
    await failDeliveries(r, p, id, 1);
    expect(r.received).toHaveLength(25);
    const lastAttempt = new Date(fifthStarted + DELAYS.reduce((a, b) => a + b, 0)).toISOString();
    const webhook = (await harness.call('get', `/${p}/webhooks/${id}`)).body.data;
    expect(webhook).toMatchObject({
      active: false,
      failureCount: 5,
      disabledAt: lastAttempt,
      updatedAt: lastAttempt,
    });

    // Disabled: a later run is not sent.
    r.respond = () => ({ status: 200 });
    await publish(bus, harness.topic, runEvents(p).all);
    await settle();
    expect(r.received).toHaveLength(25);

    // Spec §3: active=true re-enables and clears the count; the next run is delivered.
    const enabled = await harness.call('patch', `/${p}/webhooks/${id}`, { body: { active: true } });
    expect(enabled.body.data).toMatchObject({ active: true, failureCount: 0, disabledAt: null });
    const next = runEvents(p);
    await publish(bus, harness.topic, next.all);
    await r.waitFor(26);
    expect(r.received[25]?.json.data.run.id).toBe(next.runId);
    // The receiver answers before the attempt is recorded: wait for the record.
    const succeeded = await eventually(async () => {
      const { body } = await harness.call('get', `/${p}/webhooks/${id}/deliveries?status=succeeded`);
      return body.data.length > 0 ? (body.data as Record<string, unknown>[]) : undefined;
    });
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]).toMatchObject({ attempt: 1, statusCode: 200, error: null });
  });

  it('when a subscription is paused while an attempt is in flight, then that attempt is still recorded and no retry is announced', async () => {
    const p = project();
    const r = await receiver();
    // The first delivery fails at once and waits for its retry; the second is held by the receiver.
    r.respond = (index) => (index === 0 ? { status: 500 } : { status: 500, delayMs: 1_000 });
    const { id } = await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    await publish(bus, harness.topic, runEvents(p).all);
    await attempts(harness, p, id, 1);
    await publish(bus, harness.topic, runEvents(p).all);
    await r.waitFor(2);
    const paused = await harness.call('patch', `/${p}/webhooks/${id}`, { body: { active: false } });
    expect(paused.status).toBe(200);
    const made = (await attempts(harness, p, id, 2)) as {
      attempt: number;
      status: string;
      nextAttemptAt: unknown;
    }[];
    expect(made).toHaveLength(2);
    expect(made.map(({ attempt, status, nextAttemptAt }) => ({ attempt, status, nextAttemptAt }))).toEqual([
      { attempt: 1, status: 'failed', nextAttemptAt: null },
      { attempt: 1, status: 'failed', nextAttemptAt: null },
    ]);
    // Nothing is retried, not even once the first retry would have been due.
    clock.advance(DELAYS[0] ?? 0);
    harness.module.dispatcher.notify();
    await settle();
    expect(r.received).toHaveLength(2);
    expect((await harness.call('get', `/${p}/webhooks/${id}/deliveries?status=pending`)).body.data).toEqual(
      [],
    );
  });

  it('when a delivery succeeds after failed ones, then the count of failed deliveries goes back to 0', async () => {
    const p = project();
    const r = await receiver();
    r.respond = () => ({ status: 503 });
    const { id } = await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    await failDeliveries(r, p, id, 2);
    expect((await harness.call('get', `/${p}/webhooks/${id}`)).body.data.failureCount).toBe(2);
    r.respond = () => ({ status: 204 });
    await publish(bus, harness.topic, runEvents(p).all);
    await r.waitFor(11);
    await eventually(async () => {
      const { body } = await harness.call('get', `/${p}/webhooks/${id}/deliveries?status=succeeded`);
      return body.data.length > 0 ? true : undefined;
    });
    expect((await harness.call('get', `/${p}/webhooks/${id}`)).body.data.failureCount).toBe(0);
  });

  it('when the receiver redirects, then the redirect is not followed and the attempt fails', async () => {
    const p = project();
    const [r, elsewhere] = [await receiver(), await receiver()];
    r.respond = () => ({ status: 302, headers: { location: elsewhere.url } });
    const { id } = await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    await publish(bus, harness.topic, runEvents(p).all);
    const [latest] = await attempts(harness, p, id, 1);
    const made = (await harness.call('get', `/${p}/webhooks/${id}/deliveries?status=failed`)).body.data;
    expect(made[0]).toMatchObject({ statusCode: 302, error: 'redirect (302) not followed' });
    expect(latest).toBeDefined();
    await settle();
    expect(elsewhere.received).toEqual([]);
  });

  it('when the receiver does not answer within the timeout, then the attempt fails as timed out', async () => {
    const p = project();
    const r = await receiver();
    r.respond = () => ({ status: 200, delayMs: 4_000 });
    const { id } = await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    await publish(bus, harness.topic, runEvents(p).all);
    await attempts(harness, p, id, 1);
    const made = (await harness.call('get', `/${p}/webhooks/${id}/deliveries?status=failed`)).body.data;
    expect(made[0]).toMatchObject({ statusCode: null, error: 'timed out after 2000 ms' });
    expect(made[0].responseTimeMs).toBeGreaterThanOrEqual(2_000);
  });

  it('when an attempt takes a while, then attemptedAt is when it started and the retry is counted from its end', async () => {
    clock.set('2026-06-01T10:00:00.000Z');
    const p = project();
    const r = await receiver();
    // The shared clock moves only during this attempt: a retry sent in a later test must not move it.
    r.respond = (index) => {
      if (index === 0) clock.advance(5_000);
      return { status: 500 };
    };
    const { id } = await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    await publish(bus, harness.topic, runEvents(p).all);
    await attempts(harness, p, id, 1);
    const made = (await harness.call('get', `/${p}/webhooks/${id}/deliveries?status=failed`)).body.data;
    expect(made[0]).toMatchObject({
      attemptedAt: '2026-06-01T10:00:00.000Z',
      nextAttemptAt: '2026-06-01T10:01:05.000Z',
    });
    // Its retry is dropped with the subscription, before later tests move the clock past it.
    expect((await harness.call('delete', `/${p}/webhooks/${id}`)).status).toBe(200);
  });

  it('when a delivery is sent before the cutover, then event is RUN_FINISHED and eventName run.finished', async () => {
    clock.set('2026-12-10T23:59:59Z');
    const p = project();
    const r = await receiver();
    await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    await publish(bus, harness.topic, runEvents(p).all);
    const [delivery] = await r.waitFor(1);
    expect(delivery?.json).toMatchObject({ event: 'RUN_FINISHED', eventName: 'run.finished' });
    expect(delivery?.headers['x-service-event']).toBe('RUN_FINISHED');
    expect(delivery?.headers['x-service-event-name']).toBe('run.finished');
  });

  it('when a delivery is sent from the cutover on, then event is run.finished and eventName and its header are gone', async () => {
    clock.set('2026-12-11T00:00:00Z');
    const p = project();
    const r = await receiver();
    await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    await publish(bus, harness.topic, runEvents(p).all);
    const [delivery] = await r.waitFor(1);
    expect(delivery?.json.event).toBe('run.finished');
    expect('eventName' in (delivery?.json ?? {})).toBe(false);
    expect(delivery?.headers['x-service-event']).toBe('run.finished');
    expect(delivery?.headers['x-service-event-name']).toBeUndefined();
  });

  it('when a retry queued before the cutover is sent after it, then it carries the new names', async () => {
    clock.set('2026-12-10T23:59:30Z');
    const p = project();
    const r = await receiver();
    r.respond = (index) => ({ status: index === 0 ? 500 : 200 });
    const { id } = await subscribe(harness, p, { url: r.url, events: ['run.finished'] });
    await publish(bus, harness.topic, runEvents(p).all);
    await attempts(harness, p, id, 1);
    clock.advance(60_000);
    await r.waitFor(2);
    expect(r.received.map((d) => d.json.event)).toEqual(['RUN_FINISHED', 'run.finished']);
    expect(r.received[0]?.json.id).toBe(r.received[1]?.json.id);
  });

  it('when the dispatcher restarts between attempts, then the pending retry is sent once, with the same delivery id', async () => {
    const p = project();
    const r = await receiver();
    r.respond = (index) => ({ status: index === 0 ? 500 : 200 });
    const firstBus = createInProcessBus();
    const first = await startHarness({ db, bus: firstBus, clock });
    const { id } = await subscribe(first, p, { url: r.url, events: ['run.finished'] });
    const run = runEvents(p);
    await publish(firstBus, first.topic, run.all);
    await attempts(first, p, id, 1);
    await first.stop();
    await firstBus.close();

    // A new life: a new in-process bus, to which the relay republishes everything, as after a restart.
    const restartedBus = createInProcessBus();
    const second = await startHarness({ db, bus: restartedBus, clock, names: first.names });
    await publish(restartedBus, second.topic, run.all);
    clock.advance(60_000);
    await r.waitFor(2);
    await settle();
    await second.stop();
    await restartedBus.close();
    expect(r.received).toHaveLength(2);
    expect(r.received[1]?.headers['x-service-delivery']).toBe(r.received[0]?.headers['x-service-delivery']);
  });

  it('when two dispatchers share the queue, then every delivery is sent exactly once', async () => {
    const p = project();
    const r = await receiver();
    const sharedBus = createInProcessBus();
    const one = await startHarness({ db, bus: sharedBus, clock });
    const two = await startHarness({ db, bus: sharedBus, clock, names: one.names });
    await subscribe(one, p, { url: r.url, events: ['run.started', 'run.finished'] });
    const runs = Array.from({ length: 20 }, () => runEvents(p));
    await publish(
      sharedBus,
      one.topic,
      runs.flatMap((run) => run.all),
    );
    await r.waitFor(40);
    // Both loops keep polling; nothing more may come.
    two.module.dispatcher.notify();
    one.module.dispatcher.notify();
    await settle();
    await Promise.all([one.stop(), two.stop()]);
    await sharedBus.close();
    const ids = r.received.map((d) => String(d.headers['x-service-delivery']));
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });
});
