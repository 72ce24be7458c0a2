import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  errorSignature,
  MembershipSet,
  testCaseIdOf,
  type Quarantine,
  type ResultItem,
  type Role,
  type RunFailures,
  type RunGate,
} from '@verdict/contracts';
import {
  createInProcessBus,
  createSqlEventStore,
  ManualClock,
  newId,
  newSecret,
  toMessage,
  type EventBus,
  type SqlDatabase,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { testDatabases } from '@verdict/platform/testing/databases';
import type { TestResultsModule } from '../module';
import { memberIdentity, serveOverHttp, testModule } from '../testing';

// Quarantine and gates through the service's routes, over real ingest, on both databases. The member
// identity is user `u` of organization `o`; the identity topic makes `u` and `ada` its members.

const secret = newSecret(32);
const P1 = 'project-1';
const P2 = 'project-2';
const FILE = 'tests/checkout.spec.ts';
const DAY = 86_400_000;
const START = '2026-05-01T12:00:00.000Z';

const TIMEOUT = 'Timeout 5000ms exceeded waiting for the cart';
const NEW_ERROR = 'expected 3 items, received 2';
const sigOf = (message: string) => errorSignature({ message, location: { file: FILE }, testFile: FILE }).id;

type Outcome = 'passed' | ['failed', string];

function item(title: string, outcome: Outcome, startedAt: string, project = 'chromium'): ResultItem {
  return {
    file: FILE,
    titlePath: ['Checkout', title],
    project,
    attempt: 0,
    status: outcome === 'passed' ? 'passed' : 'failed',
    durationMs: 100,
    startedAt,
    ...(outcome === 'passed'
      ? {}
      : { error: { message: outcome[1], location: { file: FILE, line: 7, column: 3 } } }),
  };
}

const caseId = (title: string) => testCaseIdOf({ file: FILE, titlePath: ['Checkout', title] });

describe.each(testDatabases())('quarantine and quality gates on $name', (database) => {
  let db: SqlDatabase;
  let bus: EventBus;
  let blobDir: string;
  let module: TestResultsModule;
  let server: Server;
  let base: string;
  const clock = new ManualClock(START);
  const names = {
    storeSchema: uniqueName('trq'),
    topic: uniqueName('trq'),
    readModelSchema: uniqueName('trqr'),
    identityTopic: uniqueName('identity'),
  };

  async function call<T>(method: string, url: string, body?: unknown, projectId = P1, role: Role = 'admin') {
    const response = await fetch(`${base}/${projectId}${url}`, {
      method,
      headers: { 'content-type': 'application/json', ...memberIdentity(secret, projectId, role) },
      body: body === undefined ? null : JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as { data: T; error: { code: string; message: string } },
    };
  }

  /** A run on main with these results, finished (one shard unless told). */
  async function run(items: ResultItem[], projectId = P1): Promise<string> {
    const started = await call<{ id: string }>('POST', '/test-runs', { branch: 'main' }, projectId);
    const runId = started.body.data.id;
    await call('POST', `/test-runs/${runId}/results`, { results: items }, projectId);
    await call('POST', `/test-runs/${runId}/finish`, {}, projectId);
    return runId;
  }

  const quarantine = (body: Record<string, unknown>) =>
    call<Quarantine>('POST', '/quarantines', {
      testCaseId: caseId('pays'),
      reason: 'Payment sandbox times out under load',
      ownerId: 'ada',
      expiresAt: new Date(clock.now().getTime() + 14 * DAY).toISOString(),
      ...body,
    });

  const failuresOf = async (runId: string) =>
    (await call<{ failures: RunFailures }>('GET', `/test-runs/${runId}?include=failures`)).body.data.failures;
  const gateOf = async (runId: string) => (await call<RunGate>('GET', `/test-runs/${runId}/gate`)).body.data;

  let firstRun: string;
  let quarantineId: string;

  beforeAll(async () => {
    db = await database.open();
    bus = createInProcessBus();
    blobDir = mkdtempSync(path.join(tmpdir(), 'verdict-quarantine-'));
    module = testModule({ db, bus, blobDir, clock }, { internalSecret: secret, names });
    await module.start();
    ({ server, base } = await serveOverHttp(module));
    let position = 0;
    for (const userId of ['u', 'ada']) {
      position += 1;
      const event = MembershipSet.of({
        organizationId: 'o',
        userId,
        role: 'member',
        previousRole: null,
        setAt: START,
      });
      await bus.publish(names.identityTopic, [
        toMessage(
          {
            ...event,
            eventId: newId(),
            streamId: 'organization-o',
            streamPosition: position,
            globalPosition: position,
            occurredAt: START,
            correlationId: null,
            causationId: null,
            projectId: null,
          },
          'organization-o',
        ),
      ]);
    }
    for (let tries = 0; ; tries += 1) {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${names.readModelSchema}_members.members`,
      );
      if (rows[0]?.n === 2) break;
      if (tries > 1_000) throw new Error('the members never arrived');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // pays fails with the sandbox timeout; ships passes; P2 has a test of its own.
    firstRun = await run([item('pays', ['failed', TIMEOUT], START), item('ships', 'passed', START)]);
    await run([item('refunds', ['failed', TIMEOUT], START)], P2);
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await module.stop();
    await bus.close();
    await db.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  describe('making a quarantine', () => {
    it('when the expiry is in the past or more than 90 days ahead, then 400 names expiresAt', async () => {
      for (const expiresAt of [
        new Date(clock.now().getTime() - DAY).toISOString(),
        new Date(clock.now().getTime() + 91 * DAY).toISOString(),
      ]) {
        const answer = await quarantine({ expiresAt });
        expect(answer.status).toBe(400);
        expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
        expect(answer.body.error.message).toContain('expiresAt');
      }
    });

    it('when the owner is not a member of the organization, then 400 names ownerId', async () => {
      const answer = await quarantine({ ownerId: 'stranger' });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toContain('ownerId');
    });

    it("when the test is unknown or another project's, then 404 TEST_CASE_NOT_FOUND", async () => {
      for (const testCaseId of ['nope', caseId('refunds')]) {
        const answer = await quarantine({ testCaseId });
        expect(answer.status).toBe(404);
        expect(answer.body.error.code).toBe('TEST_CASE_NOT_FOUND');
      }
    });

    it('when the test is named both by id and by title, then 400', async () => {
      const answer = await quarantine({ file: FILE, titlePath: ['Checkout', 'pays'] });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('when a test without failures is quarantined without signatures, then 400 asks for them', async () => {
      const answer = await quarantine({ testCaseId: caseId('ships') });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toContain('signatures');
    });

    it("when a member quarantines a failing test, then 201 keeps the evidence: its failures' signatures and its record", async () => {
      const answer = await quarantine({ testCaseId: undefined, file: FILE, titlePath: ['Checkout', 'pays'] });
      expect(answer.status).toBe(201);
      quarantineId = answer.body.data.id;
      expect(answer.body.data).toMatchObject({
        testCaseId: caseId('pays'),
        title: 'pays',
        reason: 'Payment sandbox times out under load',
        project: null,
        ownerId: 'ada',
        status: 'active',
        automatic: false,
        createdBy: 'u',
        evidence: {
          signatures: [{ id: sigOf(TIMEOUT), occurrences: 1 }],
          failRate: 1,
          flakyRate: 0,
          runsSeen: 1,
        },
      });
    });

    it('when a viewer writes, then 403; when a member sets gate rules, then 403 (owners and admins only)', async () => {
      const asViewer = await call('POST', '/quarantines', {}, P1, 'viewer');
      expect(asViewer.status).toBe(403);
      expect((await call('POST', `/quarantines/${quarantineId}/lift`, {}, P1, 'viewer')).status).toBe(403);
      expect((await call('GET', '/quarantines', undefined, P1, 'viewer')).status).toBe(200);
      expect((await call('PUT', '/gate-rules', { maxFailedTests: 1 }, P1, 'member')).status).toBe(403);
    });

    it('when the test is quarantined already, then 409', async () => {
      const answer = await quarantine({ project: 'chromium' });
      expect(answer.status).toBe(409);
      expect(answer.body.error.code).toBe('CONFLICT');
    });

    it('when the list is asked for, then it shows the active quarantine, by owner and expiring within days', async () => {
      const all = await call<Quarantine[]>('GET', '/quarantines');
      expect(all.body.data.map((q) => q.id)).toEqual([quarantineId]);
      expect((await call<Quarantine[]>('GET', '/quarantines?ownerId=u')).body.data).toEqual([]);
      expect((await call<Quarantine[]>('GET', '/quarantines?expiringWithinDays=7')).body.data).toEqual([]);
      const soon = await call<Quarantine[]>('GET', '/quarantines?expiringWithinDays=14');
      expect(soon.body.data.map((q) => q.id)).toEqual([quarantineId]);
      expect((await call('GET', `/quarantines/${quarantineId}`, undefined, P2)).status).toBe(404);
    });

    it('when a page past the last is asked for, whatever the status, then it is empty with the total (never a 500)', async () => {
      for (const status of ['active', 'expired', 'lifted', 'all']) {
        const page = await fetch(
          `${base}/${P1}/quarantines?status=${status}&page=99&limit=362&testCaseId=G%5B5`,
          {
            headers: memberIdentity(secret, P1),
          },
        );
        expect(page.status).toBe(200);
        const body = (await page.json()) as { data: unknown[]; pagination: { total: number; page: number } };
        expect(body.data).toEqual([]);
        expect(body.pagination).toMatchObject({ total: 0, page: 99 });
      }
      const all = await fetch(`${base}/${P1}/quarantines?status=all&page=2&limit=1`, {
        headers: memberIdentity(secret, P1),
      });
      expect(((await all.json()) as { pagination: { total: number } }).pagination.total).toBe(1);
    });

    it('when the reporters ask for the quarantined tests, then each active quarantine comes with the signatures it forgives', async () => {
      const listed = await call<{ at: string; items: unknown[] }>(
        'GET',
        '/quarantined-tests',
        undefined,
        P1,
        'viewer',
      );
      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual({
        at: clock.now().toISOString(),
        items: [
          {
            quarantineId,
            testCaseId: caseId('pays'),
            project: null,
            ownerId: 'ada',
            expiresAt: new Date(Date.parse(START) + 14 * DAY).toISOString(),
            signatureIds: [sigOf(TIMEOUT)],
          },
        ],
      });
      expect(
        (await call<{ items: unknown[] }>('GET', '/quarantined-tests', undefined, P2)).body.data.items,
      ).toEqual([]);
    });
  });

  describe('what a quarantine does to verdicts and the gate', () => {
    let forgiven: string;

    beforeAll(async () => {
      clock.advance(60_000);
      const rules = await call('PUT', '/gate-rules', { maxFailedTests: 0, noNewFailures: true });
      expect(rules.status).toBe(200);
      clock.advance(60_000);
      forgiven = await run([item('pays', ['failed', TIMEOUT], clock.now().toISOString())]);
    });

    it('when a quarantined test fails with a forgiven signature, then its verdict is quarantined and the gate passes', async () => {
      const failures = await failuresOf(forgiven);
      expect(failures.items).toEqual([
        expect.objectContaining({
          testCaseId: caseId('pays'),
          verdict: 'quarantined',
          quarantine: expect.objectContaining({ id: quarantineId, ownerId: 'ada', forgives: true }),
        }),
      ]);
      expect(failures.counts.quarantined).toBe(1);
      const gate = await gateOf(forgiven);
      expect(gate.status).toBe('passed');
      expect(gate.rules).toEqual([
        { rule: 'maxFailedTests', passed: true, threshold: 0, observed: 0, failures: [] },
        { rule: 'noNewFailures', passed: true, threshold: true, observed: true, failures: [] },
      ]);
      const detail = await call<{ gate: RunGate }>('GET', `/test-runs/${forgiven}?include=gate`);
      expect(detail.body.data.gate).toEqual(gate);
    });

    it('when a quarantined test fails with a new signature, then it is new, the run says the quarantine would mask it, and the gate fails naming it', async () => {
      // A passing run first, so that the base's latest run does not fail it (failing-on-base).
      await run([item('pays', 'passed', clock.now().toISOString())]);
      clock.advance(60_000);
      const runId = await run([item('pays', ['failed', NEW_ERROR], clock.now().toISOString())]);
      const [failure] = (await failuresOf(runId)).items;
      expect(failure).toMatchObject({
        verdict: 'new',
        signature: { id: sigOf(NEW_ERROR) },
        quarantine: { id: quarantineId, forgives: false },
      });
      const gate = await gateOf(runId);
      expect(gate.status).toBe('failed');
      const named = {
        testCaseId: caseId('pays'),
        project: 'chromium',
        verdict: 'new',
        signatureId: sigOf(NEW_ERROR),
      };
      expect(gate.rules.map(({ rule, passed, failures }) => ({ rule, passed, failures }))).toEqual([
        { rule: 'maxFailedTests', passed: false, failures: [named] },
        { rule: 'noNewFailures', passed: false, failures: [named] },
      ]);
      const bundle = await call<{ gate: RunGate; items: { quarantine: unknown }[] }>(
        'GET',
        `/debug-bundle?runId=${runId}`,
      );
      expect(bundle.body.data.gate).toEqual(gate);
      expect(bundle.body.data.items[0]?.quarantine).toMatchObject({ id: quarantineId, forgives: false });
      const markdown = await fetch(`${base}/${P1}/debug-bundle?runId=${runId}&as=markdown`, {
        headers: memberIdentity(secret, P1),
      });
      const text = await markdown.text();
      expect(text).toContain('## Quality gate');
      expect(text).toContain('a quarantine would mask this');
      expect(text).toContain(`signature \`${sigOf(NEW_ERROR)}\``);
    });

    it('when the rules change, then a run finished before keeps its result', async () => {
      const before = await gateOf(firstRun);
      expect(before.status).toBe('none');
      const failing = await run([item('ships', ['failed', NEW_ERROR], clock.now().toISOString())]);
      expect((await gateOf(failing)).status).toBe('failed');
      await call('PUT', '/gate-rules', { maxFailedTests: 5 });
      expect((await gateOf(failing)).status).toBe('failed');
      expect((await gateOf(firstRun)).status).toBe('none');
      expect((await call('GET', '/gate-rules')).body.data).toMatchObject({
        rules: { maxFailedTests: 5 },
        updatedBy: 'u',
      });
    });

    it('when a run of 8 shards finishes, then its gate is pending until the last shard and judged once', async () => {
      await call('PUT', '/gate-rules', { maxFailedTests: 0 });
      let runId = '';
      for (let current = 1; current <= 8; current += 1) {
        const started = await call<{ id: string }>('POST', '/test-runs', {
          branch: 'main',
          ciRunId: 'ci-8',
          shard: { current, total: 8 },
        });
        runId = started.body.data.id;
        const outcome: Outcome = current === 5 ? ['failed', NEW_ERROR] : 'passed';
        await call('POST', `/test-runs/${runId}/results`, {
          results: [item(`shard ${current}`, outcome, clock.now().toISOString())],
        });
      }
      for (let current = 1; current <= 8; current += 1) {
        expect((await gateOf(runId)).status).toBe('pending');
        await call('POST', `/test-runs/${runId}/finish`, { shard: { current, total: 8 } });
      }
      const gate = await gateOf(runId);
      expect(gate).toMatchObject({ status: 'failed', rules: [{ rule: 'maxFailedTests', observed: 1 }] });
      const store = createSqlEventStore({ db, schema: names.storeSchema });
      const finished = (await store.readStream(`run-${runId}`)).filter((e) => e.type === 'run.finished');
      expect(finished).toHaveLength(1);
      expect(finished[0]?.data).toMatchObject({ gate: { status: 'failed' } });
    });

    it('when the run is unknown or running, then 404 or pending', async () => {
      expect((await call('GET', '/test-runs/nope/gate')).status).toBe(404);
      const started = await call<{ id: string }>('POST', '/test-runs', { branch: 'main' });
      expect((await gateOf(started.body.data.id)).status).toBe('pending');
    });
  });

  describe('extending, lifting and expiring', () => {
    it('when an expiry is moved earlier, then 400; later, then 200 with the new expiry', async () => {
      const earlier = await call('POST', `/quarantines/${quarantineId}/extend`, {
        expiresAt: new Date(clock.now().getTime() + DAY).toISOString(),
      });
      expect(earlier.status).toBe(400);
      const expiresAt = new Date(clock.now().getTime() + 30 * DAY).toISOString();
      const later = await call<Quarantine>('POST', `/quarantines/${quarantineId}/extend`, { expiresAt });
      expect(later.status).toBe(200);
      expect(later.body.data.expiresAt).toBe(expiresAt);
    });

    it('when it is lifted, then its failures count again and it cannot be lifted or extended again (409)', async () => {
      const lifted = await call<Quarantine>('POST', `/quarantines/${quarantineId}/lift`, { reason: 'fixed' });
      expect(lifted.body.data).toMatchObject({ status: 'lifted', endedBy: 'u', endReason: 'fixed' });
      clock.advance(60_000);
      const runId = await run([item('pays', ['failed', TIMEOUT], clock.now().toISOString())]);
      expect((await failuresOf(runId)).items[0]).toMatchObject({ quarantine: null });
      expect((await call('POST', `/quarantines/${quarantineId}/lift`, {})).status).toBe(409);
      const extend = await call('POST', `/quarantines/${quarantineId}/extend`, {
        expiresAt: new Date(clock.now().getTime() + 40 * DAY).toISOString(),
      });
      expect(extend.status).toBe(409);
      expect((await call<Quarantine[]>('GET', '/quarantines?status=lifted')).body.data).toHaveLength(1);
    });

    it('when its expiry passes, then it stops forgiving at once and the sweep records it expired, once', async () => {
      const made = await quarantine({
        signatures: [sigOf(TIMEOUT)],
        expiresAt: new Date(clock.now().getTime() + DAY).toISOString(),
      });
      expect(made.status).toBe(201);
      clock.advance(2 * DAY);
      const shown = await call<Quarantine>('GET', `/quarantines/${made.body.data.id}`);
      expect(shown.body.data.status).toBe('expired');
      const runId = await run([item('pays', ['failed', TIMEOUT], clock.now().toISOString())]);
      expect((await failuresOf(runId)).items[0]?.verdict).not.toBe('quarantined');
      expect(await module.sweepQuarantines()).toBe(1);
      expect(await module.sweepQuarantines()).toBe(0);
      const store = createSqlEventStore({ db, schema: names.storeSchema });
      const events = await store.readStream(`quarantine-${made.body.data.id}`);
      expect(events.map((e) => e.type)).toEqual(['test.quarantined', 'test.quarantine-expired']);
      const expired = await call<Quarantine[]>('GET', '/quarantines?status=expired');
      expect(expired.body.data.map((q) => q.id)).toEqual([made.body.data.id]);
    });
  });

  describe('the release rule', () => {
    it('when the test passes N runs in a row on main since the quarantine, then it is lifted by itself; a failure between starts the count again', async () => {
      const made = await quarantine({
        signatures: [sigOf(TIMEOUT)],
        releaseRule: { cleanRuns: 2 },
        expiresAt: new Date(clock.now().getTime() + 20 * DAY).toISOString(),
      });
      expect(made.status).toBe(201);
      const id = made.body.data.id;
      const at = () => {
        clock.advance(60_000);
        return clock.now().toISOString();
      };
      const statusOf = async () => (await call<Quarantine>('GET', `/quarantines/${id}`)).body.data;
      await run([item('pays', 'passed', at())]);
      await run([item('pays', ['failed', TIMEOUT], at())]);
      await run([item('pays', 'passed', at())]);
      expect((await statusOf()).status).toBe('active');
      // A run on another branch does not count.
      const elsewhere = await call<{ id: string }>('POST', '/test-runs', { branch: 'feature/x' });
      await call('POST', `/test-runs/${elsewhere.body.data.id}/results`, {
        results: [item('pays', 'passed', at())],
      });
      await call('POST', `/test-runs/${elsewhere.body.data.id}/finish`, {});
      expect((await statusOf()).status).toBe('active');
      await run([item('pays', 'passed', at())]);
      expect(await statusOf()).toMatchObject({
        status: 'lifted',
        endedBy: 'verdict',
        endReason: 'released: 2 clean runs in a row on main',
      });
      const store = createSqlEventStore({ db, schema: names.storeSchema });
      const lifted = (await store.readStream(`quarantine-${id}`)).at(-1);
      expect(lifted).toMatchObject({ type: 'test.quarantine-lifted', data: { automatic: true } });
    });
  });

  describe('the auto-quarantine policy', () => {
    const flaky = (title: string, at: string): ResultItem[] => [
      item(title, ['failed', TIMEOUT], at),
      { ...item(title, 'passed', at), attempt: 1 },
    ];
    const at = () => {
      clock.advance(60_000);
      return clock.now().toISOString();
    };
    const policy = { enabled: true, minFlakyRate: 0.5, minExecutions: 3, days: 7, ownerId: 'ada' };
    const wobbles = () =>
      call<Quarantine[]>('GET', `/quarantines?status=all&testCaseId=${caseId('wobbles')}`);

    it('when the policy is set by a viewer, or names an owner who is not a member, then 403 or 400; off until set', async () => {
      expect((await call('GET', '/quarantine-policy')).body.data).toEqual({
        policy: null,
        updatedAt: null,
        updatedBy: null,
      });
      expect((await call('PUT', '/quarantine-policy', policy, P1, 'viewer')).status).toBe(403);
      const stranger = await call(
        'PUT',
        '/quarantine-policy',
        { ...policy, ownerId: 'stranger' },
        P1,
        'member',
      );
      expect(stranger.status).toBe(400);
      expect(stranger.body.error.message).toContain('ownerId');
      const bad = await call('PUT', '/quarantine-policy', { ...policy, days: 91 }, P1, 'member');
      expect(bad.status).toBe(400);
      const set = await call('PUT', '/quarantine-policy', policy, P1, 'member');
      expect(set.status).toBe(200);
      expect(set.body.data).toMatchObject({ policy, updatedBy: 'u' });
    });

    it('when a test is flaky in more than the threshold across enough runs on main, then it is quarantined by itself for its errors', async () => {
      await run([item('wobbles', 'passed', at())]);
      await run(flaky('wobbles', at()));
      expect((await wobbles()).body.data).toEqual([]);
      await run(flaky('wobbles', at()));
      const [made] = (await wobbles()).body.data;
      expect(made).toMatchObject({
        status: 'active',
        automatic: true,
        createdBy: 'verdict',
        ownerId: 'ada',
        project: 'chromium',
        reason: 'auto-quarantined: flaky in 67% of 3 executions on main',
        expiresAt: new Date(clock.now().getTime() + 7 * DAY).toISOString(),
        evidence: { signatures: [{ id: sigOf(TIMEOUT), occurrences: 2 }] },
      });
    });

    it('when a person lifts an automatic quarantine, then the policy leaves that test alone (30 days)', async () => {
      const [made] = (await wobbles()).body.data;
      await call('POST', `/quarantines/${made?.id ?? ''}/lift`, { reason: 'we fix it this week' });
      await run(flaky('wobbles', at()));
      const all = (await wobbles()).body.data;
      expect(all.map((q) => q.status)).toEqual(['lifted']);
    });
  });
});
