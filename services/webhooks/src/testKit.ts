/* eslint-disable @typescript-eslint/no-explicit-any -- answers and payloads are checked by expect(), not by types */
/**
 * FOR TESTS ONLY: a webhooks module served over HTTP with minted internal identities, run events as the
 * test-results relay publishes them, and real loopback receivers that record what they get.
 */
import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  RunCreated,
  RunFinished,
  TestQuarantined,
  TestQuarantineExpired,
  TestQuarantineExtended,
  TestQuarantineLifted,
  TestQuarantineSignaturesChanged,
  TestResultRecorded,
  type ResultItem,
  type RunFinishedFailures,
  type RunStatus,
} from '@verdict/contracts';
import {
  createHttpApp,
  INTERNAL_IDENTITY_HEADER,
  listen,
  mintInternalToken,
  newId,
  newSecret,
  silentLogger,
  toMessage,
  type Clock,
  type EventBus,
  type SqlDatabase,
  type StoredEvent,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { createWebhooksModule, type WebhooksModule, type WebhooksSettings } from './module';
import type { Resolver } from './security/targets';

export interface Harness {
  module: WebhooksModule;
  base: string;
  topic: string;
  call(
    method: string,
    path: string,
    options?: {
      body?: unknown;
      role?: 'owner' | 'admin' | 'member' | 'viewer';
      projectId?: string;
      identity?: boolean;
    },
  ): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

export interface HarnessNames {
  schema: string;
  projection: string;
  topic: string;
  consumerGroup: string;
}

export const internalSecret = newSecret(32);
export const secretKey = newSecret(32);

/** Shares `names` with another harness to act as a second replica (or a restarted one) of the same service. */
export async function startHarness(options: {
  db: SqlDatabase;
  bus: EventBus;
  clock: Clock;
  resolve?: Resolver;
  settings?: Partial<WebhooksSettings>;
  names?: HarnessNames;
}): Promise<Harness & { names: HarnessNames }> {
  const names: HarnessNames = options.names ?? {
    schema: uniqueName('wh'),
    projection: uniqueName('whr'),
    topic: uniqueName('tr'),
    consumerGroup: uniqueName('whg'),
  };
  const module = createWebhooksModule(
    {
      db: options.db,
      bus: options.bus,
      clock: options.clock,
      logger: silentLogger(),
      ...(options.resolve ? { resolve: options.resolve } : {}),
    },
    {
      internalSecret,
      secretKey,
      publicUrl: 'https://verdict.example.com',
      eventNameCutover: new Date('2026-12-11T00:00:00Z'),
      retryDelaysMs: [60_000, 300_000, 1_800_000, 7_200_000],
      allowPrivateNetworks: true,
      timeoutMs: 2_000,
      pollIntervalMs: 25,
      ...options.settings,
      names,
    },
  );
  await module.start();
  const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'webhooks' });
  app.use(module.router);
  finish(app);
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    module,
    base,
    topic: names.topic,
    names,
    async call(method, path, callOptions = {}) {
      const projectId = callOptions.projectId ?? path.split('/')[1] ?? 'p';
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (callOptions.identity !== false) {
        headers[INTERNAL_IDENTITY_HEADER] = mintInternalToken(
          {
            organizationId: 'o1',
            projectId,
            userId: 'u1',
            role: callOptions.role ?? 'owner',
            scopes: ['public-api'],
            tokenId: 't1',
          },
          { secret: internalSecret, now: options.clock.now() },
        );
      }
      const response = await fetch(`${base}${path}`, {
        method: method.toUpperCase(),
        headers,
        ...(callOptions.body === undefined ? {} : { body: JSON.stringify(callOptions.body) }),
      });
      return { status: response.status, body: await response.json() };
    },
    async stop() {
      await module.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Received {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  json: any;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** How to answer the n-th request (0-based): a status code, and a delay before answering. */
  respond: (index: number) => { status: number; delayMs?: number; headers?: Record<string, string> };
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const receiver: Receiver = {
    url: '',
    received,
    respond: () => ({ status: 200 }),
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} deliveries, got ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const index = received.length;
      received.push({ headers: req.headers, rawBody, json: JSON.parse(rawBody.toString('utf8')) as unknown });
      const answer = receiver.respond(index);
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers ?? {});
        res.end('ignored body');
      }, answer.delayMs ?? 0);
      timers.add(timer);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}

let position = 0;

function envelope(
  streamId: string,
  streamPosition: number,
  projectId: string,
  event: { type: string; version: number; data: unknown },
  occurredAt: string,
): StoredEvent {
  position += 1;
  return {
    eventId: newId(),
    type: event.type,
    version: event.version,
    streamId,
    streamPosition,
    globalPosition: position,
    occurredAt,
    correlationId: null,
    causationId: null,
    projectId,
    data: event.data,
  };
}

export function result(title: string, status: ResultItem['status'], attempt = 0): ResultItem {
  return {
    file: 'tests/cart.spec.ts',
    titlePath: ['Cart', title],
    attempt,
    status,
    durationMs: 10,
    startedAt: '2026-03-01T10:00:01.000Z',
  };
}

/** The events of one run as test-results records them: created, results, finished. */
export function runEvents(
  projectId: string,
  options: {
    runId?: string;
    counter?: number;
    results?: ResultItem[];
    status?: RunStatus | null;
    /** The verdict summary test-results records on run.finished. */
    failures?: RunFinishedFailures;
  } = {},
) {
  const runId = options.runId ?? `run-${newId()}`;
  const created = envelope(
    `run-${runId}`,
    1,
    projectId,
    RunCreated.of({
      runId,
      projectId,
      counter: options.counter ?? 1,
      ciRunId: null,
      title: 'CI',
      branch: 'main',
      environment: 'staging',
      commit: { sha: 'abc123', message: 'Fix cart' },
      ci: null,
      framework: null,
      shardTotal: null,
      startedAt: '2026-03-01T10:00:00.000Z',
      tags: [],
    }),
    '2026-03-01T10:00:00.000Z',
  );
  const results = (options.results ?? []).map((item, index) =>
    envelope(
      `run-${runId}-results`,
      index + 1,
      projectId,
      TestResultRecorded.of({ runId, item }),
      '2026-03-01T10:00:02.000Z',
    ),
  );
  const finished = envelope(
    `run-${runId}`,
    2,
    projectId,
    RunFinished.of({
      runId,
      finishedAt: '2026-03-01T10:05:00.000Z',
      status: options.status ?? null,
      ...(options.failures ? { failures: options.failures } : {}),
    }),
    '2026-03-01T10:05:00.000Z',
  );
  return { runId, created, results, finished, all: [created, ...results, finished] };
}

/**
 * The events of one quarantine as test-results records them on its stream `quarantine-<id>`: made, then
 * whichever of the others a test asks for, in the order asked.
 */
export function quarantineEvents(projectId: string, quarantineId = `q-${newId()}`) {
  const streamId = `quarantine-${quarantineId}`;
  let streamPosition = 0;
  const next = (event: { type: string; version: number; data: unknown }, at: string) => {
    streamPosition += 1;
    return envelope(streamId, streamPosition, projectId, event, at);
  };
  return {
    quarantineId,
    quarantined: (at = '2026-03-01T09:00:00.000Z') =>
      next(
        TestQuarantined.of({
          quarantineId,
          projectId,
          target: {
            testCaseId: 'tc-cart-pays',
            file: 'tests/cart.spec.ts',
            titlePath: ['Cart', 'pays'],
            project: 'chromium',
          },
          reason: 'Flaky payment iframe',
          ownerId: 'u-owner',
          expiresAt: '2026-03-15T09:00:00.000Z',
          evidence: {
            signatures: [{ id: '0123456789ab', text: 'Timeout waiting for iframe', occurrences: 4 }],
            flakyRate: 0.25,
            failRate: 0.05,
            runsSeen: 40,
          },
          releaseRule: { cleanRuns: 10 },
          automatic: false,
          by: 'u-admin',
          at,
        }),
        at,
      ),
    extended: (expiresAt: string, at = '2026-03-02T09:00:00.000Z') =>
      next(TestQuarantineExtended.of({ quarantineId, expiresAt, by: 'u-owner', at }), at),
    signaturesChanged: (ids: string[], at = '2026-03-02T10:00:00.000Z') =>
      next(
        TestQuarantineSignaturesChanged.of({
          quarantineId,
          signatures: ids.map((id) => ({ id, text: `error ${id}`, occurrences: 1 })),
          by: 'u-owner',
          at,
        }),
        at,
      ),
    lifted: (at = '2026-03-03T09:00:00.000Z') =>
      next(
        TestQuarantineLifted.of({
          quarantineId,
          reason: 'Iframe wait fixed',
          automatic: false,
          by: 'u-owner',
          at,
        }),
        at,
      ),
    expired: (at = '2026-03-15T09:00:05.000Z') =>
      next(TestQuarantineExpired.of({ quarantineId, expiredAt: '2026-03-15T09:00:00.000Z', at }), at),
  };
}

export async function publish(bus: EventBus, topic: string, events: StoredEvent[]): Promise<void> {
  await bus.publish(
    topic,
    events.map((event) => toMessage(event, event.projectId ?? event.streamId)),
  );
}

/** Polls until `check` returns a value that is not undefined. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
