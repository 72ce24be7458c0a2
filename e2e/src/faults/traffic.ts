/**
 * What runs against Verdict while a fault hits it: shards streaming results through @verdict/client (which
 * retries per spec §7), webhook receivers that keep every delivery, and a reader that polls. Every result
 * is keyed as the API keys it (file, titlePath, project, attempt), so what was acknowledged can be
 * compared with what reads back.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerdictClient, type ResultItem, type VerdictClient } from '@verdict/client';
import { callGateway } from '../gateway';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked by the suite
  body: any;
}

/** One request with a bearer; JSON in and out (callGateway, its body read field by field by the suite). */
export const call = (baseUrl: string, method: string, urlPath: string, bearer: string, body?: unknown) =>
  callGateway(baseUrl, method, urlPath, bearer, body) as Promise<Answer>;

export interface Tenant {
  /** One project per fault window, so that each window's counts stand alone. */
  projects: string[];
  /** One token per shard (spec §8's limits are per token), and the reader's. */
  shardTokens: string[];
  readerToken: string;
}

/**
 * An admin write. A 503 says the write was saved and is not readable yet: `readBack` finds what it made,
 * or, without one, the write is made again (a second organization or token is harmless here).
 */
async function adminWrite(
  send: () => Promise<Answer>,
  what: string,
  readBack?: () => Promise<string | undefined>,
): Promise<string> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const answer = await send();
    if (answer.status < 300) return (answer.body.data.token ?? answer.body.data.id) as string;
    if (answer.status !== 503 || Date.now() > deadline)
      throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
    while (readBack && Date.now() < deadline) {
      const found = await readBack();
      if (found !== undefined) return found;
      await sleep(500);
    }
    await sleep(500);
  }
}

/** An owner, one project per window (each in an organization of its own) and the tokens, through the admin API. */
export async function provisionTenant(
  baseUrl: string,
  adminKey: string,
  windows: number,
  shards: number,
): Promise<Tenant> {
  const admin = (method: string, urlPath: string, body?: unknown) => () =>
    call(baseUrl, method, `/admin/v1${urlPath}`, adminKey, body);
  const read = async (urlPath: string) => {
    const answer = await admin('GET', urlPath)();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- read back loosely
    return answer.status === 200 ? (answer.body.data as any) : undefined;
  };
  const unique = randomBytes(5).toString('hex');
  const email = `faults-${unique}@example.com`;
  const userId = await adminWrite(
    admin('POST', '/users', { email, firstName: 'Fay', lastName: 'Ults' }),
    'create the user',
    async () => (await read(`/users?email=${encodeURIComponent(email)}`))?.[0]?.id as string | undefined,
  );
  // An organization of the free plan holds one project: one organization per window.
  const projects: string[] = [];
  for (let index = 0; index < windows; index += 1) {
    const organizationId = await adminWrite(
      admin('POST', '/organizations', { name: `faults ${unique} ${index}` }),
      'create an organization',
    );
    projects.push(
      await adminWrite(
        admin('POST', `/organizations/${organizationId}/projects`, { name: `faults ${unique} ${index}` }),
        'create a project',
        async () => (await read(`/organizations/${organizationId}`))?.projects?.[0]?.id as string | undefined,
      ),
    );
    await adminWrite(
      admin('PUT', `/organizations/${organizationId}/members/${userId}`, { role: 'owner' }),
      'make the owner',
    );
  }
  const token = (name: string) =>
    adminWrite(
      admin('POST', '/tokens', { kind: 'personal', userId, name, projectIds: projects }),
      'issue a token',
    );
  const shardTokens: string[] = [];
  for (let shard = 0; shard < shards; shard += 1) shardTokens.push(await token(`shard ${shard}`));
  return { projects, shardTokens, readerToken: await token('reader') };
}

export interface Delivery {
  subscription: string;
  deliveryId: string;
  eventName: string;
  runId: string;
}

export interface Receivers {
  url(subscription: string): string;
  deliveries: Delivery[];
  close(): Promise<void>;
}

/** One loopback server; each subscription posts to its own path. Every request is kept and answered 204. */
export async function startReceivers(): Promise<Receivers> {
  const deliveries: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          data?: { run?: { id?: string } };
        };
        deliveries.push({
          subscription: (req.url ?? '').split('/').pop() ?? '',
          deliveryId: String(req.headers['x-service-delivery'] ?? ''),
          eventName: String(req.headers['x-service-event-name'] ?? req.headers['x-service-event'] ?? ''),
          runId: body.data?.run?.id ?? '',
        });
      } catch {
        // Not a delivery: nothing to keep.
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (subscription) => `http://127.0.0.1:${port}/hooks/${subscription}`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Two subscriptions of a project, both to run.started and run.finished (any outcome). */
export async function subscribe(
  baseUrl: string,
  project: string,
  token: string,
  receivers: Receivers,
): Promise<string[]> {
  const names = [`${project}-a`, `${project}-b`];
  for (const name of names) {
    // A token just issued may not be known to the gateway yet (401): asked again for a while.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await call(baseUrl, 'POST', `/api/public/v1/${project}/webhooks`, token, {
        url: receivers.url(name),
        events: ['run.started', 'run.finished'],
        conditions: { outcome: 'any' },
        description: `fault suite ${name}`,
      });
      if (answer.status < 300) break;
      if (Date.now() > deadline)
        throw new Error(`subscribe ${name}: ${answer.status} ${JSON.stringify(answer.body)}`);
      await sleep(500);
    }
  }
  return names;
}

export const resultKey = (item: Pick<ResultItem, 'file' | 'titlePath' | 'project' | 'attempt'>) =>
  JSON.stringify([item.file, item.titlePath, item.project ?? '', item.attempt]);

export interface ShardOutcome {
  shard: number;
  runId: string | undefined;
  /** Every result sent (at least once), by key. */
  sent: Map<string, ResultItem>;
  /** The keys of the results in a batch that got a 2xx. */
  acknowledged: Set<string>;
  /** The status the shard finished its run with; undefined when the finish never got a 2xx. */
  finishedWith: 'passed' | 'failed' | undefined;
  /** Calls that failed after the client's own retries (each was tried again). */
  failedCalls: number;
  errors: string[];
}

export interface ShardPlan {
  baseUrl: string;
  project: string;
  token: string;
  shard: number;
  label: string;
  results: number;
  batchSize: number;
  /** Shards with failures finish `failed`; the others pass every test. */
  withFailures: boolean;
  /** Resolves when the shard may send its batch number `batch` (pacing around the fault). */
  gate(batch: number): Promise<void>;
  /** After this instant the shard stops trying. */
  deadline: number;
  onAcknowledged(count: number): void;
}

function itemOf(plan: ShardPlan, index: number): ResultItem {
  const failed = plan.withFailures && index % 7 === 3;
  return {
    file: `tests/${plan.label}/shard-${plan.shard}/part-${Math.floor(index / 100)}.spec.ts`,
    titlePath: [`shard ${plan.shard}`, `test ${index}`],
    attempt: 0,
    status: failed ? 'failed' : 'passed',
    durationMs: 5 + (index % 40),
    startedAt: new Date().toISOString(),
    ...(failed ? { error: { message: `expected ${index % 5} to be 0` } } : {}),
  };
}

/** A client as a reporter configures one, with spec §7's retry rule (waits capped lower, for the suite's pace). */
function clientOf(plan: Pick<ShardPlan, 'baseUrl' | 'project' | 'token' | 'shard'>): VerdictClient {
  return createVerdictClient({
    baseUrl: plan.baseUrl,
    token: plan.token,
    project: plan.project,
    headers: { 'x-forwarded-for': `10.9.0.${plan.shard + 1}` },
    retry: { maxAttempts: 1_000, maxElapsedMs: 300_000, maxDelayMs: 5_000 },
    timeoutMs: 30_000,
  });
}

/** Calls `work` until it succeeds or the deadline passes; each failure is counted and noted. */
async function persist<T>(outcome: ShardOutcome, deadline: number, work: () => Promise<T>) {
  for (;;) {
    try {
      return await work();
    } catch (error) {
      outcome.failedCalls += 1;
      if (outcome.errors.length < 5) outcome.errors.push(String(error).slice(0, 300));
      if (Date.now() > deadline) return undefined;
      await sleep(1_000);
    }
  }
}

/** One shard: starts its run (by ciRunId), streams its results in batches, finishes the run. */
export async function streamShard(plan: ShardPlan): Promise<ShardOutcome> {
  const client = clientOf(plan);
  const outcome: ShardOutcome = {
    shard: plan.shard,
    runId: undefined,
    sent: new Map(),
    acknowledged: new Set(),
    finishedWith: undefined,
    failedCalls: 0,
    errors: [],
  };
  const ciRunId = `${plan.label}-${plan.shard}-${randomBytes(4).toString('hex')}`;
  const started = await persist(outcome, plan.deadline, () =>
    client.startRun({ ciRunId, branch: 'main', environment: 'faults' }),
  );
  if (!started) return outcome;
  outcome.runId = started.run.id;
  for (let first = 0, batch = 0; first < plan.results; first += plan.batchSize, batch += 1) {
    await plan.gate(batch);
    const items: ResultItem[] = [];
    for (let index = first; index < Math.min(plan.results, first + plan.batchSize); index += 1) {
      items.push(itemOf(plan, index));
    }
    for (const item of items) outcome.sent.set(resultKey(item), item);
    const recorded = await persist(outcome, plan.deadline, () => client.addResults(started.run.id, items));
    if (!recorded) continue;
    for (const item of items) outcome.acknowledged.add(resultKey(item));
    plan.onAcknowledged(items.length);
  }
  const status = plan.withFailures ? 'failed' : 'passed';
  const finished = await persist(outcome, plan.deadline, () => client.finishRun(started.run.id, { status }));
  if (finished) outcome.finishedWith = status;
  return outcome;
}

export interface Reader {
  /** Instants (ms) of the reader's answers: 2xx or not. */
  answers: { at: number; ok: boolean }[];
  stop(): Promise<void>;
}

/** Polls the project's run list every `everyMs`, as a dashboard would. */
export function startReader(baseUrl: string, project: string, token: string, everyMs = 1_000): Reader {
  const answers: { at: number; ok: boolean }[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const ok = await call(baseUrl, 'GET', `/api/public/v1/${project}/test-runs?limit=20`, token).then(
        (answer) => answer.status === 200,
        () => false,
      );
      answers.push({ at: Date.now(), ok });
      await sleep(everyMs);
    }
  })();
  return {
    answers,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
