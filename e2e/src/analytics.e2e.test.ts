import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomPort, startVerdict } from './processes';

// Analytics in the embedded default (`npm start`): a run ingested through the public API reaches the
// explorer, the summary, usage, the dashboard and a PDF report, all through the gateway.
interface Body {
  data: Record<string, unknown> & {
    testCases?: { title: string; executions: number; status: string }[];
    metrics?: { totalRuns: number; flaky: { totalFlakyTestCases: number } };
  };
}

describe('analytics in the embedded default (npm start)', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-analytics-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when a run is ingested, then the explorer, summary, usage, dashboard and a PDF report show it', async () => {
    const port = randomPort();
    const verdict = startVerdict('start', {
      PORT: String(port),
      VERDICT_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    try {
      await verdict.waitFor(`http://localhost:${port}`);
      const projectId = /Project id:\s+(\S+)/.exec(verdict.output())?.[1];
      const token = /Token:\s+(svc_pat_\S+)/.exec(verdict.output())?.[1];
      const base = `http://127.0.0.1:${port}/api/public/v1/${projectId}`;
      const call = (urlPath: string, body?: unknown) =>
        fetch(`${base}${urlPath}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const json = async (urlPath: string) => (await (await call(urlPath)).json()) as Body;

      const run = (
        (await (await call('/test-runs', { branch: 'main', environment: 'ci' })).json()) as {
          data: { id: string };
        }
      ).data;
      const startedAt = new Date().toISOString();
      const result = (title: string, attempt: number, status: string) => ({
        file: 'tests/cart.spec.ts',
        titlePath: ['cart', title],
        project: 'chromium',
        attempt,
        status,
        durationMs: 100 + attempt,
        startedAt,
      });
      const results = [
        result('adds', 0, 'passed'),
        result('totals', 0, 'failed'),
        result('totals', 1, 'passed'),
      ];
      expect((await call(`/test-runs/${run.id}/results`, { results })).status).toBe(202);
      expect((await call(`/test-runs/${run.id}/finish`, {})).status).toBe(200);

      let cases: NonNullable<Body['data']['testCases']> = [];
      for (let i = 0; i < 100 && cases.length < 2; i += 1) {
        cases = (await json('/test-case-explorer')).data.testCases ?? [];
        if (cases.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(cases.map((c) => [c.title, c.executions]).sort()).toEqual([
        ['adds', 1],
        ['totals', 1],
      ]);

      const summary = await json('/analytics/summary?dateRange=7d');
      expect(summary.data.metrics).toMatchObject({ totalRuns: 1, flaky: { totalFlakyTestCases: 1 } });
      expect((await json('/usage')).data).toMatchObject({ planName: 'free', orgLimit: 5000, projectUsed: 2 });
      expect((await call('/dashboard?x=1')).status).toBe(400);
      expect((await json('/dashboard')).data).toMatchObject({
        totals: { runs: 1, testCases: 2, executions: 2 },
      });

      const report = await call('/reports', { runId: run.id });
      expect(report.status).toBe(200);
      expect(report.headers.get('content-type')).toContain('application/pdf');
      expect(
        Buffer.from(await report.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');
      // Spec §8: one PDF a minute per token.
      expect((await call('/reports', { dateRange: '7d' })).status).toBe(429);
    } finally {
      expect(await verdict.stop()).toBe(0);
    }
  });
});
