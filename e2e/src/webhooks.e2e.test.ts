import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { verifySignature } from '@verdict/contracts';
import { randomPort, type RunningProcess, startVerdict } from './processes';

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked by expect()
  body: any;
}

interface Received {
  raw: Buffer;
  headers: IncomingHttpHeaders;
}

/** A receiver on loopback that keeps every request's raw bytes and headers; `status` answers the n-th (0-based). */
async function startReceiver(
  status: (index: number) => number = () => 204,
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = received.length;
      received.push({ raw: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(status(index)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/verdict`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function eventually<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('webhooks through the gateway (npm start)', () => {
  let dataDir: string;
  let verdict: RunningProcess | null = null;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-webhooks-'));
  });
  afterEach(async () => {
    await verdict?.stop();
    verdict = null;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('when an owner subscribes a loopback receiver and a run starts and finishes through ingest, then both deliveries arrive signed, and a member or viewer token is refused the subscription with 403', async () => {
    const receiver = await startReceiver();
    try {
      const port = randomPort();
      verdict = startVerdict('start', {
        PORT: String(port),
        VERDICT_DATA_DIR: dataDir,
        VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        LOG_LEVEL: 'warn',
      });
      await verdict.waitFor(`http://localhost:${port}`);
      const projectId = /Project id:\s+(\S+)/.exec(verdict.output())?.[1] ?? '';
      const ownerToken = /Token:\s+(svc_pat_\S+)/.exec(verdict.output())?.[1] ?? '';
      const adminKey = /Admin key:\s+(\S+)/.exec(verdict.output())?.[1] ?? '';
      expect([projectId, ownerToken, adminKey].every((value) => value !== '')).toBe(true);

      const call = async (
        method: string,
        urlPath: string,
        bearer: string,
        body?: unknown,
      ): Promise<Answer> => {
        const response = await fetch(`http://127.0.0.1:${port}${urlPath}`, {
          method,
          headers: {
            authorization: `Bearer ${bearer}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text === '' ? null : JSON.parse(text) };
      };
      const api = `/api/public/v1/${projectId}`;

      // The seeded token belongs to the demo organization's owner.
      const created = await call('POST', `${api}/webhooks`, ownerToken, {
        url: receiver.url,
        events: ['run.started', 'run.finished'],
        description: 'e2e receiver',
      });
      expect(created.status).toBe(200);
      const secret = created.body.data.secret as string;
      expect(secret).toMatch(/^whsec_/);
      const listed = await call('GET', `${api}/webhooks`, ownerToken);
      expect(listed.status).toBe(200);
      expect(JSON.stringify(listed.body)).not.toContain(secret);

      // Members and viewers of the same organization may read subscriptions but not create them.
      const info = await call('GET', `${api}/token-info`, ownerToken);
      const scope = (info.body.data.scopes as string[]).find((s) => s.startsWith('organizations/')) ?? '';
      const organizationId = scope.split('/')[1] ?? '';
      for (const role of ['member', 'viewer'] as const) {
        const unique = randomBytes(6).toString('hex');
        const user = await call('POST', '/admin/v1/users', adminKey, {
          email: `e2e-webhooks-${role}-${unique}@example.com`,
          firstName: 'Wes',
          lastName: role,
        });
        expect(user.status).toBe(201);
        const membership = await call(
          'PUT',
          `/admin/v1/organizations/${organizationId}/members/${user.body.data.id}`,
          adminKey,
          { role },
        );
        expect(membership.status).toBe(200);
        const token = await call('POST', '/admin/v1/tokens', adminKey, {
          kind: 'personal',
          userId: user.body.data.id,
          projectIds: [projectId],
        });
        expect(token.status).toBe(201);
        const refused = await call('POST', `${api}/webhooks`, token.body.data.token, {
          url: receiver.url,
          events: ['run.finished'],
        });
        expect({ role, status: refused.status, code: refused.body?.error?.code }).toEqual({
          role,
          status: 403,
          code: 'FORBIDDEN',
        });
        expect((await call('GET', `${api}/webhooks`, token.body.data.token)).status).toBe(200);
      }

      const run = await call('POST', `${api}/test-runs`, ownerToken, { branch: 'main' });
      expect(run.status).toBe(201);
      const runId = run.body.data.id as string;
      const results = await call('POST', `${api}/test-runs/${runId}/results`, ownerToken, {
        results: [
          {
            file: 'tests/hooks.spec.ts',
            titlePath: ['hooks', 'fire'],
            attempt: 0,
            status: 'failed',
            durationMs: 12,
            startedAt: new Date().toISOString(),
            error: { message: 'expected a hook' },
          },
        ],
      });
      expect(results.status).toBe(202);
      expect((await call('POST', `${api}/test-runs/${runId}/finish`, ownerToken, {})).status).toBe(200);

      const received = await eventually(
        () => receiver.received,
        (list) => list.length >= 2,
      );
      expect(received).toHaveLength(2);
      const byName = new Map(
        received.map((delivery) => [delivery.headers['x-service-event-name'], delivery] as const),
      );
      for (const [name, event] of [
        ['run.started', 'RUN_STARTED'],
        ['run.finished', 'RUN_FINISHED'],
      ] as const) {
        const delivery = byName.get(name);
        expect(delivery).toBeDefined();
        if (!delivery) continue;
        const header = delivery.headers['x-service-signature'] as string;
        expect(verifySignature(delivery.raw, header, secret)).toMatchObject({ valid: true });
        // The Standard Webhooks signature too, computed here independently of the dispatcher's code.
        const id = delivery.headers['webhook-id'] as string;
        const timestamp = delivery.headers['webhook-timestamp'] as string;
        const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
        const expected = createHmac('sha256', key)
          .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`), delivery.raw]))
          .digest('base64');
        expect((delivery.headers['webhook-signature'] as string).split(' ')).toContain(`v1,${expected}`);
        const payload = JSON.parse(delivery.raw.toString('utf8'));
        expect(delivery.headers['x-service-event']).toBe(event);
        expect(delivery.headers['x-service-delivery']).toBe(payload.id);
        expect(payload).toMatchObject({ event, eventName: name, projectId, data: { run: { id: runId } } });
      }
      expect(JSON.parse(byName.get('run.finished')?.raw.toString('utf8') ?? '{}').data.run).toMatchObject({
        status: 'finished',
        outcome: 'failed',
        stats: { total: 1, failed: 1 },
      });
    } finally {
      await receiver.close();
    }
  });
  it('when a quarantine is made and lifted through the gateway, then a subscriber to the quarantine events receives both signed, the first after a 500 and its retry, and a run.finished subscriber only its run', async () => {
    const quarantines = await startReceiver((index) => (index === 0 ? 500 : 204));
    const runs = await startReceiver();
    try {
      const port = randomPort();
      verdict = startVerdict('start', {
        PORT: String(port),
        VERDICT_DATA_DIR: dataDir,
        VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        VERDICT_WEBHOOK_RETRY_DELAYS: '500,500,500,500',
        LOG_LEVEL: 'warn',
      });
      await verdict.waitFor(`http://localhost:${port}`);
      const projectId = /Project id:\s+(\S+)/.exec(verdict.output())?.[1] ?? '';
      const token = /Token:\s+(svc_pat_\S+)/.exec(verdict.output())?.[1] ?? '';
      expect([projectId, token].every((value) => value !== '')).toBe(true);
      const call = async (method: string, urlPath: string, body?: unknown): Promise<Answer> => {
        const response = await fetch(`http://127.0.0.1:${port}/api/public/v1/${projectId}${urlPath}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text === '' ? null : JSON.parse(text) };
      };

      const subscribed = await call('POST', '/webhooks', {
        url: quarantines.url,
        events: ['test.quarantined', 'test.quarantine-lifted', 'test.quarantine-expired'],
        conditions: { outcome: 'failed' },
      });
      expect(subscribed.status).toBe(200);
      expect(subscribed.body.data.events).toEqual([
        'test.quarantined',
        'test.quarantine-lifted',
        'test.quarantine-expired',
      ]);
      const secret = subscribed.body.data.secret as string;
      expect((await call('POST', '/webhooks', { url: runs.url, events: ['run.finished'] })).status).toBe(200);
      const refused = await call('POST', '/webhooks', {
        url: runs.url,
        events: ['test.quarantine-extended'],
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });

      // A failing test, so the quarantine has a failure (and its error signature) to forgive.
      const run = await call('POST', '/test-runs', { branch: 'main' });
      expect(run.status).toBe(201);
      const runId = run.body.data.id as string;
      const results = await call('POST', `/test-runs/${runId}/results`, {
        results: [
          {
            file: 'tests/cart.spec.ts',
            titlePath: ['Cart', 'pays'],
            attempt: 0,
            status: 'failed',
            durationMs: 12,
            startedAt: new Date().toISOString(),
            error: { message: 'Timeout waiting for the payment iframe' },
          },
        ],
      });
      expect(results.status).toBe(202);
      expect((await call('POST', `/test-runs/${runId}/finish`, {})).status).toBe(200);
      await eventually(
        () => runs.received,
        (list) => list.length >= 1,
      );

      const members = await call('GET', '/members');
      const ownerId = (members.body.data as { userId: string; role: string }[]).find(
        (member) => member.role === 'owner',
      )?.userId;
      expect(ownerId).toBeDefined();
      const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
      const made = await call('POST', '/quarantines', {
        file: 'tests/cart.spec.ts',
        titlePath: ['Cart', 'pays'],
        reason: 'Flaky payment iframe',
        ownerId,
        expiresAt,
      });
      expect([200, 201]).toContain(made.status);
      const quarantineId = made.body.data.id as string;
      // Its retry (after the 500) first, so the lift's delivery comes after both of the first's attempts.
      await eventually(
        () => quarantines.received,
        (list) => list.length >= 2,
      );
      const lifted = await call('POST', `/quarantines/${quarantineId}/lift`, { reason: 'fixed in #123' });
      expect(lifted.status).toBe(200);

      const received = await eventually(
        () => quarantines.received,
        (list) => list.length >= 3,
      );
      expect(received).toHaveLength(3);
      for (const delivery of received) {
        const header = delivery.headers['x-service-signature'] as string;
        expect(verifySignature(delivery.raw, header, secret)).toMatchObject({ valid: true });
        const id = delivery.headers['webhook-id'] as string;
        const timestamp = delivery.headers['webhook-timestamp'] as string;
        const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
        const expected = createHmac('sha256', key)
          .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`), delivery.raw]))
          .digest('base64');
        expect((delivery.headers['webhook-signature'] as string).split(' ')).toContain(`v1,${expected}`);
      }
      const [first, retry, end] = received.map((delivery) => ({
        headers: delivery.headers,
        payload: JSON.parse(delivery.raw.toString('utf8')),
      }));
      expect(retry?.headers['x-service-delivery']).toBe(first?.headers['x-service-delivery']);
      expect(retry?.payload).toMatchObject({
        event: 'test.quarantined',
        eventName: 'test.quarantined',
        projectId,
        data: {
          quarantine: {
            id: quarantineId,
            file: 'tests/cart.spec.ts',
            titlePath: ['Cart', 'pays'],
            reason: 'Flaky payment iframe',
            ownerId,
            expiresAt,
            status: 'active',
            automatic: false,
            endedAt: null,
            url: `http://localhost:${port}/projects/${projectId}/quarantine`,
          },
        },
      });
      expect(retry?.payload.data.quarantine.signatures).toHaveLength(1);
      expect(end?.headers['x-service-event-name']).toBe('test.quarantine-lifted');
      expect(end?.payload).toMatchObject({
        event: 'test.quarantine-lifted',
        data: {
          quarantine: {
            id: quarantineId,
            status: 'lifted',
            endedBy: ownerId,
            endReason: 'fixed in #123',
            url: `http://localhost:${port}/projects/${projectId}/quarantine?view=lifted`,
          },
        },
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(runs.received.map((d) => d.headers['x-service-event-name'])).toEqual(['run.finished']);
    } finally {
      await quarantines.close();
      await runs.close();
    }
  });
});
