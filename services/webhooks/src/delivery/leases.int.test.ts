import {
  createInProcessBus,
  createProjector,
  ManualClock,
  silentLogger,
  type EventBus,
  type SqlDatabase,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { webhookRunsProjection } from '../projections/runsProjection';
import { createWebhookTables } from '../schema';
import { createSecretBox } from '../security/secrets';
import type { ResolvedAddress } from '../security/targets';
import { createSubscriptionStore } from '../subscriptions/subscriptionStore';
import {
  eventually,
  publish,
  runEvents,
  secretKey,
  startHarness,
  startReceiver,
  type Harness,
  type Receiver,
} from '../testKit';
import { testDatabases } from '@verdict/platform/testing/databases';
import { claimDue } from './attempts';
import { createDispatcher } from './dispatcher';

describe.each(testDatabases())('delivery-time checks and leases on $name', (database) => {
  let db: SqlDatabase;
  const clock = new ManualClock('2026-03-01T10:00:00Z');
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    db = await database.open();
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await db.close();
  });
  beforeEach(() => clock.set('2026-03-01T10:00:00Z'));

  const project = () => `p-${Math.random().toString(36).slice(2, 10)}`;
  const receiver = async () => {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  };

  describe('DNS rebinding', () => {
    let bus: EventBus;
    let harness: Harness;
    // What the name answers now: a public address when the subscription is written, then the test flips it.
    let answer: ResolvedAddress = { address: '93.184.216.34', family: 4 };

    beforeAll(async () => {
      bus = createInProcessBus();
      harness = await startHarness({
        db,
        bus,
        clock,
        resolve: async (hostname) => (hostname === 'hooks.rebind.example' ? [answer] : []),
        settings: { allowPrivateNetworks: false },
      });
    });
    afterAll(async () => {
      await harness.stop();
      await bus.close();
    });

    it.each([
      ['loopback', '127.0.0.1'],
      ['private', '10.0.0.7'],
      ['metadata', '169.254.169.254'],
    ])(
      'when a name that was public at subscription time resolves to a %s address at delivery time, then nothing is sent and the attempt fails as refused',
      async (_kind, address) => {
        const p = project();
        // Were the address checked only at subscription time, this loopback receiver would get the POST.
        const r = await receiver();
        const port = new URL(r.url).port;
        answer = { address: '93.184.216.34', family: 4 };
        const created = await harness.call('post', `/${p}/webhooks`, {
          body: { url: `http://hooks.rebind.example:${port}/hook`, events: ['run.finished'] },
        });
        expect(created.status).toBe(200);
        answer = { address, family: 4 };
        await publish(bus, harness.topic, runEvents(p).all);
        const attempts = await eventually(async () => {
          const { body } = await harness.call('get', `/${p}/webhooks/${created.body.data.id}/deliveries`);
          const made = (body.data as { status: string; error: string | null }[]).filter(
            (a) => a.status === 'failed',
          );
          return made.length > 0 ? made : undefined;
        });
        expect(attempts[0]?.error).toContain(`resolves to ${address}`);
        expect(r.received).toHaveLength(0);
      },
    );
  });

  it('when deliveries were claimed by a replica that died before sending them, then another replica sends each once after the lease runs out', async () => {
    const schema = uniqueName('wh');
    const secrets = createSecretBox(secretKey);
    await createWebhookTables(db, schema);
    const subscriptions = createSubscriptionStore(db, schema, clock);
    await subscriptions.init();
    const r = await receiver();
    const p = project();
    await db.query(
      `INSERT INTO ${schema}.subscriptions (id, project_id, url, events, outcome, description, active,
         sealed_secret, created_at, updated_at)
       VALUES ('sub_1', $1, $2, ARRAY['run.started', 'run.finished'], 'any', '', true, $3, $4, $4)`,
      [p, r.url, secrets.seal('whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ='), clock.now()],
    );
    const options = {
      db,
      schema,
      clock,
      logger: silentLogger(),
      subscriptions,
      cutover: new Date('2026-12-11T00:00:00Z'),
      retryDelaysMs: [60_000],
      timeoutMs: 2_000,
      targets: { allowPrivateNetworks: true, resolve: async () => [] },
      secrets,
    };
    const projector = createProjector({
      db,
      projection: webhookRunsProjection({
        name: uniqueName('whr'),
        queueSchema: schema,
        clock,
        publicUrl: 'https://verdict.example.com',
      }),
      logger: silentLogger(),
    });
    await projector.init();
    const run = runEvents(p);
    await projector.applyEvents(run.all);
    // The replica that dies: it claims both deliveries (the lease of a 2 s timeout) and sends nothing.
    const now = clock.now();
    const until = new Date(now.getTime() + 2_000 + 30_000);
    expect(await claimDue(db, schema, { now, until, lease: 'dying', limit: 64 })).toHaveLength(2);
    const { rows } = await db.query<{ lease: string | null }>(`SELECT lease FROM ${schema}.deliveries`);
    expect(rows).toHaveLength(2);
    expect(rows.every((row) => row.lease !== null)).toBe(true);

    const survivor = createDispatcher(options);
    // Leased to the dead replica: not due yet.
    expect(await survivor.drain()).toBe(0);
    clock.advance(2_000 + 30_000 + 1);
    expect(await survivor.drain()).toBe(2);
    expect(await survivor.drain()).toBe(0);
    await r.waitFor(2);
    expect(new Set(r.received.map((d) => d.headers['x-service-delivery'])).size).toBe(2);
    await survivor.stop();
  });
});
