import { standardWebhookSignature } from '@verdict/contracts';
import { createInProcessBus, ManualClock, type EventBus, type SqlDatabase } from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { testDatabases } from '@verdict/platform/testing/databases';
import { createWebhookTables } from '../schema';
import { createSecretBox } from '../security/secrets';
import {
  eventually,
  secretKey,
  startHarness,
  startReceiver,
  type HarnessNames,
  type Receiver,
} from '../testKit';

const SECRET = 'whsec_bWlncmF0ZWQtc2VjcmV0LW1pZ3JhdGVkLXM=';

describe.each(testDatabases())('subscriptions kept as rows before event sourcing, on $name', (database) => {
  let db: SqlDatabase;
  let bus: EventBus;
  let receiver: Receiver;
  const clock = new ManualClock('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    db = await database.open();
    bus = createInProcessBus();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await bus.close();
    await db.close();
  });

  /** The tables as the service left them before this change, with three subscriptions and a queued delivery. */
  async function rowsOfTheOldService(names: HarnessNames, p: string): Promise<void> {
    const secrets = createSecretBox(secretKey);
    await createWebhookTables(db, names.schema);
    const insert = `INSERT INTO ${names.schema}.subscriptions (id, project_id, url, events, outcome, description,
        active, failure_count, disabled_at, sealed_secret, created_at, updated_at, deleted_at)
      VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $9, $10, $11, $12, $13)`;
    const created = new Date('2026-02-01T08:00:00Z');
    const updated = new Date('2026-02-20T08:00:00Z');
    await db.query(insert, [
      'wh_failing',
      p,
      receiver.url,
      ['run.finished'],
      'failed',
      'CI alerts',
      true,
      4,
      null,
      secrets.seal(SECRET),
      created,
      updated,
      null,
    ]);
    await db.query(insert, [
      'wh_disabled',
      p,
      'https://hooks.example.com/old',
      ['run.started', 'run.finished'],
      'any',
      'Old',
      false,
      5,
      updated,
      secrets.seal(SECRET),
      created,
      updated,
      null,
    ]);
    await db.query(insert, [
      'wh_deleted',
      p,
      'https://hooks.example.com/gone',
      ['run.started'],
      'any',
      '',
      false,
      0,
      null,
      secrets.seal(SECRET),
      created,
      updated,
      updated,
    ]);
    await db.query(
      `INSERT INTO ${names.schema}.deliveries (id, subscription_id, project_id, source_event_id, event_name, run_json,
         occurred_at, status, attempts, next_attempt_at, created_at)
       VALUES ('dlv_queued', 'wh_failing', $1, 'evt-1', 'run.finished', $2, $3, 'pending', 0, $4, $3)`,
      // Due a minute after the replicas start: no attempt is recorded while they create their tables.
      [
        p,
        JSON.stringify({ id: 'run-1', outcome: 'failed' }),
        new Date('2026-03-01T09:59:00Z'),
        new Date('2026-03-01T10:01:00Z'),
      ],
    );
  }

  it('when the service starts on them, then each row becomes its stream once, and nothing is lost: secret, filters, state, failure count, queued delivery', async () => {
    const p = `p-${Math.random().toString(36).slice(2, 10)}`;
    const names = {
      schema: uniqueName('wh'),
      projection: uniqueName('whr'),
      topic: uniqueName('tr'),
      consumerGroup: uniqueName('whg'),
    };
    await rowsOfTheOldService(names, p);
    // The queued delivery's receiver fails it: the fifth failure in a row of a subscription that had four.
    receiver.respond = () => ({ status: 500 });
    const settings = { retryDelaysMs: [] };
    // Two replicas starting at once: still one import per row.
    const [first, second] = await Promise.all([
      startHarness({ db, bus, clock, names, settings }),
      startHarness({ db, bus, clock, names, settings }),
    ]);

    const listed = await first.call('get', `/${p}/webhooks`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        id: 'wh_disabled',
        active: false,
        failureCount: 5,
        disabledAt: '2026-02-20T08:00:00.000Z',
      }),
      expect.objectContaining({
        id: 'wh_failing',
        url: receiver.url,
        events: ['RUN_FINISHED'],
        conditions: { outcome: 'failed' },
        description: 'CI alerts',
        createdAt: '2026-02-01T08:00:00.000Z',
      }),
    ]);
    expect((await first.call('get', `/${p}/webhooks/wh_deleted`)).status).toBe(404);

    clock.advance(60_000);
    first.module.dispatcher.notify();
    // The queued delivery goes out signed with the secret the row kept, and its failure disables the subscription.
    const [request] = await receiver.waitFor(1);
    const headers = request?.headers ?? {};
    const timestamp = Number(headers['webhook-timestamp']);
    const body = request?.rawBody.toString('utf8') ?? '';
    expect(headers['webhook-signature']).toBe(
      standardWebhookSignature('dlv_queued', timestamp, body, SECRET),
    );
    const disabled = await eventually(async () => {
      const { body: answer } = await first.call('get', `/${p}/webhooks/wh_failing`);
      return answer.data.active === false ? answer.data : undefined;
    });
    expect(disabled).toMatchObject({ failureCount: 5, disabledAt: clock.now().toISOString() });

    // Spec §3 on an imported disabled subscription: active = true re-enables it and clears its count.
    const enabled = await first.call('patch', `/${p}/webhooks/wh_disabled`, { body: { active: true } });
    expect(enabled.body.data).toMatchObject({ active: true, failureCount: 0, disabledAt: null });

    await first.stop();
    await second.stop();
    const restarted = await startHarness({ db, bus, clock, names, settings });
    await restarted.stop();
    const { rows } = await db.query<{ stream_id: string; type: string }>(
      `SELECT stream_id, type FROM ${names.schema}.events WHERE type = 'webhook.imported' ORDER BY stream_id`,
    );
    expect(rows).toEqual([
      { stream_id: 'webhook-wh_deleted', type: 'webhook.imported' },
      { stream_id: 'webhook-wh_disabled', type: 'webhook.imported' },
      { stream_id: 'webhook-wh_failing', type: 'webhook.imported' },
    ]);
  });
});
