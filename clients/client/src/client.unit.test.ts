import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getEventListeners } from 'node:events';
import { Readable } from 'node:stream';
import Busboy from 'busboy';
import { createVerdictClient, type VerdictClientOptions } from './client';
import { VerdictApiError, VerdictConfigError, VerdictNetworkError } from './errors';
import { retryPolicy, type RetryEvent } from './retry';
import { createTransport } from './transport';
import {
  closedPort,
  envelopeError,
  reply,
  startScriptedServer,
  type Answer,
  type ReceivedRequest,
  type ScriptedServer,
} from './testing';

// The retry rule on the wire: a real HTTP server answers scripted sequences (429, 503, 400…), and the
// client's waits go to an injected sleep that records them instead of waiting.

const PROJECT = 'p1';
const run = { id: 'r1', counter: 1, status: 'running', projectId: PROJECT };
const ok = (data: unknown) => ({ success: true, data });

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server answering the n-th request with `answers[n]` (the last one again after the end). */
async function serve(...answers: Answer[]): Promise<ScriptedServer> {
  const server = await startScriptedServer((request, n, res) => {
    const answer = answers[Math.min(n, answers.length - 1)];
    answer?.(request, n, res);
  });
  servers.push(server);
  return server;
}

const status =
  (code: number, body: unknown = ok(run), headers: Record<string, string> = {}): Answer =>
  (_request, _n, res) =>
    reply(res, code, body, headers);
const failWith = (code: number, errorCode: string, headers: Record<string, string> = {}) =>
  status(code, envelopeError(errorCode, `${errorCode} from the test server`), headers);
/** Ends the connection without any answer (a crash or a reset between client and server). */
const hangUp: Answer = (_request, _n, res) => res.socket?.destroy();

function clientOf(target: ScriptedServer | string, options: Partial<VerdictClientOptions> = {}) {
  const sleeps: number[] = [];
  const retries: RetryEvent[] = [];
  const client = createVerdictClient({
    baseUrl: typeof target === 'string' ? target : target.url,
    token: 'svc_pat_test',
    project: PROJECT,
    ...options,
    retry: {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      random: () => 0.5,
      onRetry: (event) => retries.push(event),
      ...(options.retry || {}),
    },
  });
  return { client, sleeps, retries };
}

const paths = (requests: ReceivedRequest[]) => requests.map((r) => `${r.method} ${r.url}`);

describe('the client on the wire', () => {
  it('when the server answers 503 twice then 200, then a read succeeds on the third attempt after growing waits', async () => {
    const s = await serve(
      failWith(503, 'SERVICE_UNAVAILABLE'),
      failWith(503, 'SERVICE_UNAVAILABLE'),
      status(200, ok({ id: 'r1', stats: {} })),
    );
    const { client, sleeps, retries } = clientOf(s);
    expect(await client.getRun('r1')).toEqual({ id: 'r1', stats: {} });
    expect(paths(s.received)).toEqual(Array(3).fill('GET /api/public/v1/p1/test-runs/r1'));
    // Equal jitter with random 0.5: three quarters of 1 s, then of 2 s.
    expect(sleeps).toEqual([750, 1_500]);
    expect(retries.map((r) => [r.attempt, r.status])).toEqual([
      [1, 503],
      [2, 503],
    ]);
  });

  it('when the server answers 429 with Retry-After, then the client waits exactly that long, beyond the 30 s cap', async () => {
    const s = await serve(
      failWith(429, 'RATE_LIMIT_EXCEEDED', { 'retry-after': '42' }),
      status(202, ok({ accepted: 1, duplicates: 0 })),
    );
    const { client, sleeps } = clientOf(s);
    expect(await client.addResults('r1', [{ file: 'a.spec.ts' } as never])).toEqual({
      accepted: 1,
      duplicates: 0,
    });
    expect(sleeps).toEqual([42_000]);
    expect(s.received).toHaveLength(2);
    // The same batch both times.
    expect(s.received[1]?.body.toString()).toBe(s.received[0]?.body.toString());
  });

  it('when Retry-After is an HTTP date, then the wait runs until that date', async () => {
    const now = Date.parse('2026-11-20T10:00:00Z');
    const s = await serve(
      failWith(503, 'SERVICE_UNAVAILABLE', { 'retry-after': 'Fri, 20 Nov 2026 10:00:05 GMT' }),
      status(200, ok({ id: 'r1' })),
    );
    const { client, sleeps } = clientOf(s, { retry: { now: () => now } });
    await client.getRun('r1');
    expect(sleeps).toEqual([5_000]);
  });

  it.each([
    [400, 'VALIDATION_ERROR'],
    [401, 'UNAUTHORIZED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'RUN_FINISHED'],
  ])(
    'when the server answers %i, then the request is sent once and fails with the envelope’s code',
    async (code, errorCode) => {
      const s = await serve(failWith(code, errorCode, { 'x-request-id': 'req-7' }));
      const { client, sleeps } = clientOf(s);
      const error = await client.finishRun('r1').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(VerdictApiError);
      expect(error).toMatchObject({
        status: code,
        code: errorCode,
        message: `${errorCode} from the test server`,
        requestId: 'req-7',
        attempts: 1,
        method: 'POST',
      });
      expect(s.received).toHaveLength(1);
      expect(sleeps).toEqual([]);
    },
  );

  it('when 5xx answers go on, then the client stops after maxAttempts with the last answer as a VerdictApiError', async () => {
    const s = await serve(failWith(500, 'INTERNAL_ERROR'));
    const { client, sleeps } = clientOf(s, { retry: { maxAttempts: 3 } });
    const error = (await client.getRun('r1').catch((e: unknown) => e)) as VerdictApiError;
    expect(error).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', attempts: 3 });
    expect(s.received).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('when the next wait would pass maxElapsedMs, then no retry starts and the last answer is returned', async () => {
    let clock = 0;
    const s = await serve(failWith(503, 'SERVICE_UNAVAILABLE'));
    const { client, sleeps } = clientOf(s, {
      retry: {
        maxAttempts: 50,
        maxElapsedMs: 10_000,
        now: () => clock,
        sleep: async (ms) => {
          clock += ms;
          sleeps.push(ms);
        },
      },
    });
    const error = (await client.getRun('r1').catch((e: unknown) => e)) as VerdictApiError;
    expect(error.status).toBe(503);
    // 750 + 1500 + 3000 = 5250 ms; the next wait (6000) would end at 11250 ms, past the 10 s budget.
    expect(sleeps).toEqual([750, 1_500, 3_000]);
    expect(s.received).toHaveLength(4);
  });

  it('when a 429 asks for a wait longer than the time left, then the client gives up at once, telling the wait', async () => {
    const s = await serve(failWith(429, 'RATE_LIMIT_EXCEEDED', { 'retry-after': '600' }));
    const { client, sleeps } = clientOf(s, { retry: { maxElapsedMs: 60_000 } });
    const error = (await client.tokenInfo().catch((e: unknown) => e)) as VerdictApiError;
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', retryAfterMs: 600_000 });
    expect(sleeps).toEqual([]);
  });

  it('when an answer is not an envelope (a proxy’s 502 page), then the error carries HTTP_502 and its text', async () => {
    const s = await serve(status(502, '<html>Bad gateway</html>', { 'content-type': 'text/html' }));
    const { client } = clientOf(s, { retry: { maxAttempts: 2 } });
    const error = (await client.getRun('r1').catch((e: unknown) => e)) as VerdictApiError;
    expect(error).toMatchObject({
      status: 502,
      code: 'HTTP_502',
      message: '<html>Bad gateway</html>',
      attempts: 2,
    });
  });
});

describe('replays only what is safe to replay', () => {
  it('when a start without ciRunId gets a 503, then it is not sent again (it could make a second run)', async () => {
    const s = await serve(failWith(503, 'SERVICE_UNAVAILABLE'), status(201, ok(run)));
    const { client } = clientOf(s);
    await expect(client.startRun({ branch: 'main' })).rejects.toMatchObject({ status: 503 });
    expect(s.received).toHaveLength(1);
  });

  it('when a start with a ciRunId gets a 503, then it is sent again and joins the one run', async () => {
    const s = await serve(failWith(503, 'SERVICE_UNAVAILABLE'), status(200, ok(run)));
    const { client } = clientOf(s);
    expect(await client.startRun({ ciRunId: 'gh-42' })).toEqual({ run, created: false });
    expect(s.received).toHaveLength(2);
  });

  it('when a start without ciRunId gets a 429, then it is sent again: the rate limit refused it before anything ran', async () => {
    const s = await serve(failWith(429, 'RATE_LIMIT_EXCEEDED', { 'retry-after': '1' }), status(201, ok(run)));
    const { client } = clientOf(s);
    expect(await client.startRun({ branch: 'main' })).toEqual({ run, created: true });
    expect(s.received).toHaveLength(2);
  });

  it('when the connection drops before an answer, then results are sent again, but a manual case creation is not', async () => {
    const s = await serve(hangUp, status(202, ok({ accepted: 1, duplicates: 0 })));
    const { client } = clientOf(s);
    expect(await client.addResults('r1', [{ file: 'a' } as never])).toEqual({ accepted: 1, duplicates: 0 });
    expect(s.received).toHaveLength(2);

    const again = await serve(hangUp, status(201, ok({ caseId: 'TC-1' })));
    const { client: other } = clientOf(again);
    const error = await other.api
      .POST('/{projectId}/manual-test-cases', {
        params: { path: { projectId: PROJECT } },
        body: { title: 'Log in' },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerdictNetworkError);
    expect(error).toMatchObject({ reason: 'network', attempts: 1, method: 'POST' });
    expect(again.received).toHaveLength(1);
  });

  it('when the connection is refused, then even a creation is retried (nothing was sent), and lands once the server is up', async () => {
    const port = await closedPort();
    let started: ScriptedServer | undefined;
    const { client, sleeps } = clientOf(`http://127.0.0.1:${port}`, {
      retry: {
        // The server comes up during the first wait.
        sleep: async (ms) => {
          sleeps.push(ms);
          started ??= await startScriptedServer(
            (_r, _n, res) => reply(res, 201, ok({ caseId: 'TC-1' })),
            port,
          );
        },
      },
    });
    try {
      const created = await client.api.POST('/{projectId}/manual-test-cases', {
        params: { path: { projectId: PROJECT } },
        body: { title: 'Log in' },
      });
      expect(created.response.status).toBe(201);
      expect(sleeps).toHaveLength(1);
      expect(started?.received).toHaveLength(1);
    } finally {
      await started?.close();
    }
  });

  it('when nothing listens and attempts run out, then a VerdictNetworkError names the request and the attempts', async () => {
    const port = await closedPort();
    const { client } = clientOf(`http://127.0.0.1:${port}`, { retry: { maxAttempts: 3 } });
    const error = (await client.getRun('r1').catch((e: unknown) => e)) as VerdictNetworkError;
    expect(error).toBeInstanceOf(VerdictNetworkError);
    expect(error.attempts).toBe(3);
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.url).toBe(`http://127.0.0.1:${port}/api/public/v1/p1/test-runs/r1`);
  });

  it('when an attempt gets no answer within timeoutMs, then a read is retried and a non-replayable write fails as a timeout', async () => {
    const silent: Answer = () => undefined;
    const s = await serve(silent, status(200, ok({ id: 'r1' })));
    const { client } = clientOf(s, { timeoutMs: 200 });
    expect(await client.getRun('r1')).toEqual({ id: 'r1' });
    expect(s.received).toHaveLength(2);

    const again = await serve(silent);
    const { client: other } = clientOf(again, { timeoutMs: 200 });
    const error = await other.startRun({ branch: 'main' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'VerdictNetworkError', reason: 'timeout', attempts: 1 });
  });

  it('when the caller aborts during a wait, then the call rejects with the abort and nothing more is sent', async () => {
    const s = await serve(failWith(503, 'SERVICE_UNAVAILABLE'));
    const controller = new AbortController();
    const { client } = clientOf(s, {
      retry: {
        sleep: (_ms, signal) => {
          controller.abort(new Error('the reporter is shutting down'));
          return Promise.reject(signal?.reason);
        },
      },
    });
    await expect(client.getRun('r1', undefined, { signal: controller.signal })).rejects.toThrow(
      'the reporter is shutting down',
    );
    expect(s.received).toHaveLength(1);
  });
});

describe('artifact uploads', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'verdict-client-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The parts of a multipart body, read by busboy (the parser the server uses). */
  async function partsOf(request: ReceivedRequest) {
    const fields: Record<string, string> = {};
    const files: { field: string; filename: string | undefined; mimeType: string; bytes: Buffer }[] = [];
    await new Promise<void>((resolve, reject) => {
      const busboy = Busboy({ headers: request.headers, defParamCharset: 'utf8' });
      busboy.on('field', (name, value) => {
        fields[name] = value;
      });
      busboy.on('file', (field, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () =>
          files.push({
            field,
            filename: info.filename,
            mimeType: info.mimeType,
            bytes: Buffer.concat(chunks),
          }),
        );
      });
      busboy.on('close', resolve);
      busboy.on('error', reject);
      Readable.from([request.body]).pipe(busboy);
    });
    return { fields, files };
  }

  it('when a file is uploaded from its path and the first attempt gets a 503, then the file is read again and sent whole', async () => {
    const file = path.join(dir, 'trace "1".zip');
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
    writeFileSync(file, bytes);
    const s = await serve(
      failWith(503, 'SERVICE_UNAVAILABLE'),
      status(
        201,
        ok({ id: 'a1', name: 'trace "1".zip', contentType: 'application/zip', size: bytes.length }),
      ),
    );
    const { client } = clientOf(s);
    const artifact = await client.uploadArtifact('r1', {
      path: file,
      contentType: 'application/zip',
      resultRef: 'res-1',
    });
    expect(artifact.id).toBe('a1');
    expect(s.received).toHaveLength(2);
    for (const request of s.received) {
      expect(request.url).toBe('/api/public/v1/p1/test-runs/r1/artifacts');
      expect(request.headers.authorization).toBe('Bearer svc_pat_test');
      const { fields, files } = await partsOf(request);
      expect(fields).toEqual({ name: 'trace "1".zip', contentType: 'application/zip', resultRef: 'res-1' });
      expect(files).toHaveLength(1);
      // The file part's name is escaped as browsers escape it; the `name` field carries it exactly.
      expect(files[0]).toMatchObject({
        field: 'file',
        filename: 'trace %221%22.zip',
        mimeType: 'application/zip',
      });
      expect(files[0]?.bytes.equals(bytes)).toBe(true);
    }
  });

  it('when the file does not exist, then the upload fails with the file system’s error and sends nothing', async () => {
    const s = await serve(status(201, ok({ id: 'a1' })));
    const { client } = clientOf(s);
    await expect(
      client.uploadArtifact('r1', { path: path.join(dir, 'missing.png'), contentType: 'image/png' }),
    ).rejects.toMatchObject({ code: 'ENOENT' });
    expect(s.received).toHaveLength(0);
  });

  it('when bytes in memory are uploaded, then they go as a multipart file with the UTF-8 name given', async () => {
    const s = await serve(status(201, ok({ id: 'a2' })));
    const { client } = clientOf(s);
    await client.uploadArtifact('r1', { data: 'données', name: 'résumé.txt', contentType: 'text/plain' });
    const { fields, files } = await partsOf(s.received[0] as ReceivedRequest);
    expect(fields).toEqual({ name: 'résumé.txt', contentType: 'text/plain' });
    expect(files[0]).toMatchObject({ filename: 'résumé.txt' });
    expect(files[0]?.bytes.toString()).toBe('données');
  });
});

describe('headers, credentials and projects', () => {
  it('when used as a browser would (no token, a cookie session, a CSRF header), then each request carries them and no Authorization', async () => {
    const seen: Request[] = [];
    let csrf = 0;
    const client = createVerdictClient({
      baseUrl: 'http://verdict.test',
      project: PROJECT,
      credentials: 'include',
      headers: () => ({ 'x-csrf-token': `t${(csrf += 1)}` }),
      fetch: async (input, init) => {
        const request = new Request(input, init);
        seen.push(request);
        return new Response(JSON.stringify(ok({ id: 'r1' })), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    await client.getRun('r1');
    await client.getRun('r1');
    expect(seen.map((r) => r.headers.get('x-csrf-token'))).toEqual(['t1', 't2']);
    expect(seen.every((r) => r.credentials === 'include' && !r.headers.has('authorization'))).toBe(true);
    expect(seen[0]?.url).toBe('http://verdict.test/api/public/v1/p1/test-runs/r1');
  });

  it('when a call names a project, then it is used instead of the client’s; with neither, the call fails before sending', async () => {
    const s = await serve(status(200, ok({ id: 'r1' })));
    const { client } = clientOf(s);
    await client.getRun('r1', undefined, { project: 'other' });
    expect(s.received[0]?.url).toBe('/api/public/v1/other/test-runs/r1');
    expect(s.received[0]?.headers['user-agent']).toMatch(/^@verdict\/client\//);

    const bare = createVerdictClient({ baseUrl: s.url });
    await expect(bare.getRun('r1')).rejects.toBeInstanceOf(VerdictConfigError);
    expect(s.received).toHaveLength(1);
  });
});

describe('the transport', () => {
  it('when one signal is passed to many calls, then no call leaves a listener on it', async () => {
    const transport = createTransport({
      fetch: async () => new Response('{}', { status: 200 }),
      retry: retryPolicy(undefined),
      timeoutMs: 1_000,
      apiBase: new URL('http://verdict.test/api/public/v1'),
    });
    const shutdown = new AbortController();
    for (let i = 0; i < 20; i += 1) {
      await transport.send(
        () => ({ url: 'http://verdict.test/api/public/v1/p1/test-runs/r1', init: {} }),
        'safe',
        shutdown.signal,
      );
    }
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });
});
