import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createVerdictClient, type ResultItem } from '@verdict/client';
import {
  closedPort,
  envelopeError,
  reply,
  startScriptedServer,
  type ReceivedRequest,
  type ScriptedServer,
} from '../testing';
import { replaySpool } from './replaySpool';
import { createRunSender, type RunSenderOptions } from './sender';
import { readSpool } from './spool';

// The sender on the wire: a real HTTP server answers as Verdict would (or refuses, or never answers), and
// the client's retry waits are skipped. What it could not send must be in the spool, told once.

const PROJECT = 'p1';
const RUN = { id: 'r1', counter: 7, status: 'running', projectId: PROJECT };
const ok = (data: unknown) => ({ success: true, data });

let servers: ScriptedServer[] = [];
let spoolDir: string;
beforeEach(() => {
  spoolDir = mkdtempSync(path.join(tmpdir(), 'verdict-spool-'));
});
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
  rmSync(spoolDir, { recursive: true, force: true });
});

/** A Verdict that records what it is sent and answers each route as the API does. */
async function fakeVerdict(answer?: (request: ReceivedRequest) => [number, unknown] | 'silent' | undefined) {
  let artifacts = 0;
  const server = await startScriptedServer((request, _n, res) => {
    const special = answer?.(request);
    if (special === 'silent') return;
    if (special) return reply(res, special[0], special[1]);
    const route = request.url.replace(`/api/public/v1/${PROJECT}`, '');
    if (route === '/test-runs') return reply(res, 201, ok(RUN));
    if (route.endsWith('/artifacts')) {
      artifacts += 1;
      return reply(
        res,
        201,
        ok({ id: `artifact-${artifacts}`, name: 'x', contentType: 'image/png', size: 3 }),
      );
    }
    if (route.endsWith('/results')) {
      const { results } = JSON.parse(request.body.toString()) as { results: unknown[] };
      return reply(res, 202, ok({ accepted: results.length, duplicates: 0 }));
    }
    return reply(res, 200, ok({ ...RUN, status: 'finished' }));
  });
  servers.push(server);
  return server;
}

const resultsSent = (server: ScriptedServer) =>
  server.received
    .filter((request) => request.url.endsWith('/results'))
    .map((request) => (JSON.parse(request.body.toString()) as { results: ResultItem[] }).results);

function item(n: number): ResultItem {
  return {
    file: 'cart.spec.ts',
    titlePath: ['cart', `test ${n}`],
    project: 'chromium',
    attempt: 0,
    status: 'passed',
    durationMs: 5,
    startedAt: '2026-03-01T10:00:00.000Z',
  };
}

function senderFor(url: string, options: Partial<RunSenderOptions> = {}) {
  const lines: string[] = [];
  const client = createVerdictClient({
    baseUrl: url,
    token: 'svc_pat_test',
    project: PROJECT,
    retry: { maxAttempts: 2, sleep: async () => undefined },
  });
  const sender = createRunSender({
    client,
    baseUrl: url,
    project: PROJECT,
    start: { ciRunId: 'gh-1', shard: { current: 1, total: 2 } },
    batchSize: 2,
    flushIntervalMs: 60_000,
    spoolDir,
    spoolLabel: 'shard1',
    log: (line) => lines.push(line),
    ...options,
  });
  return { sender, lines };
}

describe('the run sender', () => {
  it('when results come, then they go in batches of batchSize, each result after its files, which it names', async () => {
    const server = await fakeVerdict();
    const { sender, lines } = senderFor(server.url);
    sender.add(item(1));
    sender.add(item(2), [{ name: 'screenshot', contentType: 'image/png', body: new Uint8Array([1, 2, 3]) }]);
    sender.add(item(3));
    sender.add(item(4));
    sender.add(item(5));
    const outcome = await sender.finish({ shard: { current: 1, total: 2 }, status: 'passed' }, 10_000);
    expect(resultsSent(server).map((batch) => batch.length)).toEqual([2, 2, 1]);
    expect(resultsSent(server)[0]?.[1]?.attachments).toEqual([
      { name: 'screenshot', contentType: 'image/png', artifactId: 'artifact-1' },
    ]);
    const upload = server.received.find((request) => request.url.endsWith('/artifacts'));
    expect(upload?.body.toString()).toContain('[chromium] cart.spec.ts › cart › test 2 #0');
    expect(server.received.at(-1)?.url).toBe(`/api/public/v1/${PROJECT}/test-runs/r1/finish`);
    expect(outcome).toMatchObject({
      runId: 'r1',
      runUrl: `${server.url}/projects/${PROJECT}/runs/r1`,
      accepted: 5,
      uploaded: 1,
      spooled: 0,
      finished: true,
      failure: undefined,
    });
    expect(lines).toEqual([]);
  });

  it('when fewer results than a batch wait longer than flushIntervalMs, then they are sent without waiting for more', async () => {
    const server = await fakeVerdict();
    const { sender } = senderFor(server.url, { batchSize: 100, flushIntervalMs: 20 });
    sender.add(item(1));
    for (let tries = 0; tries < 200 && resultsSent(server).length === 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(resultsSent(server)).toHaveLength(1);
    await sender.finish({}, 10_000);
  });

  it('when Verdict refuses the token, then it is told once with the reason, and every result and the finish go to the spool', async () => {
    const server = await fakeVerdict(() => [401, envelopeError('UNAUTHORIZED', 'Invalid token')]);
    const { sender, lines } = senderFor(server.url);
    for (const n of [1, 2, 3]) sender.add(item(n));
    const outcome = await sender.finish({ shard: { current: 1, total: 2 } }, 10_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`Verdict at ${server.url} refused the token (401): Invalid token`);
    expect(lines[0]).toContain(`npx @verdict/cli replay ${outcome.spoolFile}`);
    expect(outcome).toMatchObject({ spooled: 3, finished: false });
    const spool = await readSpool(outcome.spoolFile ?? '');
    expect(spool.header).toEqual({
      verdictSpool: 1,
      baseUrl: server.url,
      project: PROJECT,
      start: { ciRunId: 'gh-1', shard: { current: 1, total: 2 } },
    });
    expect(spool.entries).toEqual([
      { result: item(1), files: [] },
      { result: item(2), files: [] },
      { result: item(3), files: [] },
      { finish: { shard: { current: 1, total: 2 } } },
    ]);
    expect(path.basename(outcome.spoolFile ?? '')).toMatch(/^gh-1-shard1-.*\.ndjson$/);
    // The token is never written down.
    expect(readFileSync(outcome.spoolFile ?? '', 'utf8')).not.toContain('svc_pat_test');
  });

  it('when Verdict is down, then the run goes on into the spool, its files copied beside it', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { sender, lines } = senderFor(url);
    sender.add(item(1), [{ name: 'trace', contentType: 'application/zip', body: new Uint8Array([80, 75]) }]);
    const outcome = await sender.finish({}, 10_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^Verdict at ${url} is unreachable \\(ECONNREFUSED\\)`));
    const { entries } = await readSpool(outcome.spoolFile ?? '');
    const [first] = entries;
    const files = first && 'result' in first ? first.files : [];
    expect(files).toHaveLength(1);
    expect(readFileSync(files[0]?.path ?? '')).toEqual(Buffer.from([80, 75]));
  });

  it('when Verdict never answers, then finish gives up after its bound and spools what was not confirmed', async () => {
    const server = await fakeVerdict((request) => (request.url.endsWith('/results') ? 'silent' : undefined));
    const { sender, lines } = senderFor(server.url);
    sender.add(item(1));
    sender.add(item(2));
    const outcome = await sender.finish({ status: 'failed' }, 300);
    expect(outcome).toMatchObject({ spooled: 2, finished: false });
    expect(lines[0]).toContain('did not take everything within 300 ms of the end of the tests');
    const { entries } = await readSpool(outcome.spoolFile ?? '');
    expect(entries.at(-1)).toEqual({ finish: { status: 'failed' } });
  });
});

describe('replaySpool', () => {
  it('when a spool is replayed, then the run is joined by its ciRunId and its files, results and finish are sent', async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const { sender } = senderFor(down);
    sender.add(item(1), [{ name: 'trace', contentType: 'application/zip', body: new Uint8Array([80, 75]) }]);
    sender.add(item(2));
    sender.addCoverage({ lines: { total: 10, covered: 7 } });
    const { spoolFile } = await sender.finish({ shard: { current: 1, total: 2 } }, 10_000);

    const server = await fakeVerdict();
    const client = createVerdictClient({ baseUrl: server.url, token: 't', retry: false });
    const replayed = await replaySpool(client, spoolFile ?? '');
    expect(replayed).toMatchObject({ runId: 'r1', accepted: 2, duplicates: 0, files: 1, missingFiles: [] });
    const routes = server.received.map(
      (request) => `${request.method} ${request.url.split('/').slice(5).join('/')}`,
    );
    expect(routes).toEqual([
      'POST test-runs',
      'POST test-runs/r1/artifacts',
      'POST test-runs/r1/results',
      'POST test-runs/r1/coverage',
      'POST test-runs/r1/finish',
    ]);
    expect(JSON.parse(server.received[0]?.body.toString() ?? '')).toEqual({
      ciRunId: 'gh-1',
      shard: { current: 1, total: 2 },
    });
    expect(resultsSent(server)[0]?.[0]?.attachments).toEqual([
      { name: 'trace', contentType: 'application/zip', artifactId: 'artifact-1' },
    ]);
  });
});
