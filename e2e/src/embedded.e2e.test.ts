import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ErrorEnvelope } from '@verdict/contracts';
import { createSqlEventStore } from '@verdict/platform';
import { createPGliteDatabase } from '@verdict/platform/pglite';
import { randomPort, repoRoot, startProcess } from './processes';

// `npm start` is `node scripts/run.cjs start`; the test runs that script exactly, as a user's npm would.
const startEmbedded = (env: NodeJS.ProcessEnv) =>
  startProcess(process.execPath, [path.join(repoRoot, 'scripts/run.cjs'), 'start'], env);

describe('the embedded default (npm start)', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when started the first time, then it prints its URL, a demo project, token and admin key, answers /healthz and /readyz, and 404s unknown routes with the envelope', async () => {
    const port = randomPort();
    const verdict = startEmbedded({ PORT: String(port), VERDICT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
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

      const unknown = await fetch(`http://127.0.0.1:${port}/api/public/v1/no-such-thing`);
      expect(unknown.status).toBe(404);
      const body = ErrorEnvelope.parse(await unknown.json());
      expect(body.error.code).toBe('NOT_FOUND');
    } finally {
      expect(await verdict.stop()).toBe(0);
    }
  });

  it('when restarted on the same data folder, then the data written by the first run is still there', async () => {
    let seeded: { projectId?: string; token?: string } = {};
    for (let run = 0; run < 2; run += 1) {
      const port = randomPort();
      const verdict = startEmbedded({ PORT: String(port), VERDICT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
      await verdict.waitFor(`http://localhost:${port}`);
      if (run === 0) {
        seeded = {
          projectId: /Project id:\s+(\S+)/.exec(verdict.output())?.[1],
          token: /Token:\s+(svc_pat_\S+)/.exec(verdict.output())?.[1],
        };
      } else {
        // Not seeded twice, and the token issued by the first run still opens its project.
        expect(verdict.output()).not.toContain('First start');
        const info = await fetch(`http://127.0.0.1:${port}/api/public/v1/${seeded.projectId}/token-info`, {
          headers: { authorization: `Bearer ${seeded.token}` },
        });
        expect(info.status).toBe(200);
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
    const verdict = startEmbedded({ PORT: 'not-a-port', VERDICT_DATA_DIR: dataDir });
    expect(await verdict.exited).toBe(2);
    expect(verdict.output()).toContain('PORT');
  });
});
