import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ErrorEnvelope } from '@verdict/contracts';
import { createSqlEventStore } from '@verdict/platform';
import { createPGliteDatabase } from '@verdict/platform/pglite';
import { randomPort, repoRoot, startProcess, startVerdict } from './processes';

describe('the embedded default (npm start)', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when started the first time, then it prints a working demo token, ingests a run that the reads and the debug bundle show, and 404s unknown routes with the envelope', async () => {
    const port = randomPort();
    const verdict = startVerdict('start', {
      PORT: String(port),
      VERDICT_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    try {
      await verdict.waitFor(`http://localhost:${port}`);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ success: true, data: { status: 'ok' } });

      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);

      // The first start seeded a demo project and printed a token for it: both must work.
      const projectId = /Project id:\s+(\S+)/.exec(verdict.output())?.[1];
      const token = /Token:\s+(svc_pat_\S+)/.exec(verdict.output())?.[1];
      expect(projectId).toBeDefined();
      expect(token).toBeDefined();
      const info = await fetch(`http://127.0.0.1:${port}/api/public/v1/${projectId}/token-info`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(info.status).toBe(200);
      expect(((await info.json()) as { data: { projectName: string } }).data.projectName).toBe(
        'Demo project',
      );
      expect(verdict.output()).toMatch(/Admin key:\s+\S{16,}/);

      // A run goes in through ingest and comes out of the reads and the debug bundle.
      const base = `http://127.0.0.1:${port}/api/public/v1/${projectId}`;
      const call = (path: string, body?: unknown) =>
        fetch(`${base}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const run = ((await (await call('/test-runs', { branch: 'main' })).json()) as { data: { id: string } })
        .data;
      const result = (title: string, attempt: number, status: string) => ({
        file: 'tests/cart.spec.ts',
        titlePath: ['cart', title],
        project: 'chromium',
        attempt,
        status,
        durationMs: 100,
        startedAt: new Date().toISOString(),
        ...(status === 'failed'
          ? { error: { message: `expected 2 items in ${title}`, stack: 'at tests/cart.spec.ts:12:5' } }
          : {}),
        steps: [{ title: 'open cart', durationMs: 10 }],
      });
      const results = [
        result('adds', 0, 'passed'),
        result('removes', 0, 'failed'),
        result('removes', 1, 'failed'),
        result('totals', 0, 'failed'),
        result('totals', 1, 'passed'),
      ];
      expect((await call(`/test-runs/${run.id}/results`, { results })).status).toBe(202);
      // The runs read model is written in the append's transaction: the read right after the 202 shows it.
      const current = (await (await call(`/test-runs/${run.id}`)).json()) as { data: { stats: unknown } };
      expect(current.data.stats).toMatchObject({ total: 3, passed: 1, failed: 1, flaky: 1, skipped: 0 });
      expect((await call(`/test-runs/${run.id}/finish`, {})).status).toBe(200);
      let stats: unknown = null;
      for (let i = 0; i < 100 && !(stats && (stats as { total: number }).total === 3); i += 1) {
        const detail = (await (await call(`/test-runs/${run.id}`)).json()) as { data?: { stats?: unknown } };
        stats = detail.data?.stats ?? null;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(stats).toMatchObject({ total: 3, passed: 1, failed: 1, flaky: 1, skipped: 0 });
      const bundle = await call(`/debug-bundle?runId=${run.id}`);
      expect(bundle.status).toBe(200);
      const bundleBody = (await bundle.json()) as { data: { scope: string }; pagination: unknown };
      expect(bundleBody.data.scope).toBe('run');
      expect(bundleBody.pagination).toBeDefined();
      const markdown = await call(`/debug-bundle?runId=${run.id}&as=markdown`);
      expect(markdown.headers.get('content-type')).toContain('text/markdown');
      expect(await markdown.text()).toContain('expected 2 items in removes');

      // The one process's /metrics carries the projections' metrics too (analytics lives in it).
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics).toMatch(/^verdict_projection_events_total\{[^}]*projection="analytics"[^}]*\} [1-9]/m);
      expect(metrics).toContain('http_request_duration_seconds');

      const unknown = await fetch(`http://127.0.0.1:${port}/api/public/v1/no-such-thing`);
      expect(unknown.status).toBe(404);
      const body = ErrorEnvelope.parse(await unknown.json());
      expect(body.error.code).toBe('NOT_FOUND');
    } finally {
      expect(await verdict.stop()).toBe(0);
    }
  });

  it('when restarted on the same data folder, then the data written by the first run (token usage too) is still there, and a second process on it is refused', async () => {
    let seeded: { projectId?: string; token?: string } = {};
    for (let run = 0; run < 2; run += 1) {
      const port = randomPort();
      const verdict = startVerdict('start', {
        PORT: String(port),
        VERDICT_DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
      });
      await verdict.waitFor(`http://localhost:${port}`);
      if (run === 0) {
        seeded = {
          projectId: /Project id:\s+(\S+)/.exec(verdict.output())?.[1],
          token: /Token:\s+(svc_pat_\S+)/.exec(verdict.output())?.[1],
        };
        // Two uses of the token, to be counted on after the restart.
        for (let use = 0; use < 2; use += 1) {
          await fetch(`http://127.0.0.1:${port}/api/public/v1/${seeded.projectId}/token-info`, {
            headers: { authorization: `Bearer ${seeded.token}` },
          });
        }
      } else {
        // Not seeded twice, and the token issued by the first run still opens its project.
        expect(verdict.output()).not.toContain('First start');
        const info = await fetch(`http://127.0.0.1:${port}/api/public/v1/${seeded.projectId}/token-info`, {
          headers: { authorization: `Bearer ${seeded.token}` },
        });
        expect(info.status).toBe(200);
        // Its usage went on counting from where the first run left it.
        expect(((await info.json()) as { data: { usageCount: number } }).data.usageCount).toBe(3);
        // A second process on the folder in use would overwrite the first one's writes: it refuses.
        const second = startVerdict('start', { PORT: String(randomPort()), VERDICT_DATA_DIR: dataDir });
        expect(await second.exited).toBe(2);
        expect(second.output()).toContain(
          `VERDICT_DATA_DIR: ${dataDir} is in use by another Verdict process`,
        );
      }
      expect(await verdict.stop()).toBe(0);
    }
    // Each start records an instance.started event in the store; both runs' events must be on disk.
    const db = await createPGliteDatabase({ dataDir: path.join(dataDir, 'pglite') });
    try {
      const events = await createSqlEventStore({ db, schema: 'verdict_system' }).readStream('instance');
      expect(events.map((e) => e.type)).toEqual(['instance.started', 'instance.started']);
    } finally {
      await db.close();
    }
  });

  it('when a variable is invalid, then it refuses to start and names the variable', async () => {
    const verdict = startVerdict('start', { PORT: 'not-a-port', VERDICT_DATA_DIR: dataDir });
    expect(await verdict.exited).toBe(2);
    expect(verdict.output()).toContain('PORT');
  });

  it('when the port of a first start is taken, then it refuses naming PORT, and the next start still shows the demo token', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const refused = startVerdict('start', { PORT: String(port), VERDICT_DATA_DIR: dataDir });
      expect(await refused.exited).toBe(2);
      expect(refused.output()).toContain(`PORT: 127.0.0.1:${port} is already in use`);
      expect(refused.output()).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    const free = randomPort();
    const verdict = startVerdict('start', {
      PORT: String(free),
      VERDICT_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    try {
      await verdict.waitFor(`http://localhost:${free}`);
      expect(verdict.output()).toContain('First start');
      expect(verdict.output()).toMatch(/Token:\s+svc_pat_\S+/);
      expect(verdict.output()).toMatch(/Admin key:\s+\S{16,}/);
    } finally {
      expect(await verdict.stop()).toBe(0);
    }
  });

  it('when the shell npm runs it under is killed (a supervisor stopping npm), then Verdict stops too and frees its data folder', async () => {
    const port = randomPort();
    // As `npm start` runs it: `sh -c "node scripts/run.cjs start"`; `; true` keeps the shell as the parent.
    const shell = startProcess(
      'sh',
      ['-c', `"${process.execPath}" "${path.join(repoRoot, 'scripts/run.cjs')}" start; true`],
      { PORT: String(port), VERDICT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    );
    await shell.waitFor(`http://localhost:${port}`);
    await shell.stop('SIGKILL');
    let answering = true;
    for (let i = 0; i < 100 && answering; i += 1) {
      answering = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => true,
        () => false,
      );
      if (answering) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(answering).toBe(false);
    // Its lock on the data folder went with it: the next start takes the folder.
    const next = startVerdict('start', {
      PORT: String(randomPort()),
      VERDICT_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    await next.waitFor('Verdict is running');
    expect(await next.stop()).toBe(0);
  });

  it('when started with --rebuild, then the analytics read models are replayed from the event stores and answer as before', async () => {
    const port = randomPort();
    const first = startVerdict('start', { PORT: String(port), VERDICT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    await first.waitFor(`http://localhost:${port}`);
    const projectId = /Project id:\s+(\S+)/.exec(first.output())?.[1] ?? '';
    const token = /Token:\s+(svc_pat_\S+)/.exec(first.output())?.[1] ?? '';
    const call = async (at: number, path: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${at}/api/public/v1/${projectId}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const run = ((await (await call(port, '/test-runs', {})).json()) as { data: { id: string } }).data;
    const item = {
      file: 'tests/a.spec.ts',
      titlePath: ['a'],
      attempt: 0,
      status: 'passed',
      durationMs: 5,
      startedAt: new Date().toISOString(),
    };
    expect((await call(port, `/test-runs/${run.id}/results`, { results: [item] })).status).toBe(202);
    expect((await call(port, `/test-runs/${run.id}/finish`, {})).status).toBe(200);
    const explorer = async (at: number) => {
      for (let i = 0; i < 100; i += 1) {
        const body = (await (await call(at, '/test-case-explorer')).json()) as {
          data: { testCases: { fullTitle: string; executions: number }[] };
        };
        if (body.data.testCases.length > 0) return body.data.testCases;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return [];
    };
    const before = await explorer(port);
    expect(before).toMatchObject([{ fullTitle: 'a', executions: 1 }]);
    expect(await first.stop()).toBe(0);

    const again = randomPort();
    const rebuilt = startVerdict(
      'start',
      { PORT: String(again), VERDICT_DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      ['--rebuild'],
    );
    try {
      await rebuilt.waitFor('analytics read models rebuilt');
      expect(rebuilt.output()).toMatch(/"analytics":[1-9]/);
      expect(await explorer(again)).toEqual(before);
    } finally {
      expect(await rebuilt.stop()).toBe(0);
    }
  });

  it('when a key file in the data folder was emptied, then it refuses to start naming the file, without a stack trace', async () => {
    const port = randomPort();
    const first = startVerdict('start', { PORT: String(port), VERDICT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    await first.waitFor(`http://localhost:${port}`);
    expect(await first.stop()).toBe(0);
    writeFileSync(path.join(dataDir, 'url-signing-key'), '\n');
    const refused = startVerdict('start', { PORT: String(randomPort()), VERDICT_DATA_DIR: dataDir });
    expect(await refused.exited).toBe(2);
    expect(refused.output()).toContain(`${path.join(dataDir, 'url-signing-key')}: must hold the key`);
    expect(refused.output()).not.toMatch(/\n\s+at /);
  });
});
