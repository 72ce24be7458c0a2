import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startVerdict, type EmbeddedVerdict } from '../../../../e2e/src/clients';
import { createVerdictClient } from '../client';
import { demoHistory } from './history';
import { loadDemoRuns } from './load';

// The demo data as a newcomer gets it: loaded through HTTP into a Verdict started with `npm start`, by the
// loader (a smaller history) and by `npm run demo` (the whole one, as the README says to run it).

const repoRoot = path.resolve(__dirname, '../../../..');
let verdict: EmbeddedVerdict;

beforeAll(async () => {
  verdict = await startVerdict();
});

afterAll(async () => {
  await verdict?.stop();
  if (verdict) rmSync(verdict.dataDir, { recursive: true, force: true });
});

/** The number of runs the runs list holds on `branch`, once it stops growing toward `expected`. */
async function runsOn(client: ReturnType<typeof createVerdictClient>, branch: string, expected: number) {
  let total = -1;
  for (let tries = 0; tries < 200; tries += 1) {
    total = (await client.listRuns({ branch, limit: 1 })).pagination.total;
    if (total >= expected) return total;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return total;
}

describe('demo data', () => {
  it('when a smaller history is loaded twice, then every run arrives on its branch, finished, and the second load adds nothing', async () => {
    const client = createVerdictClient({
      baseUrl: verdict.url,
      token: verdict.token,
      project: verdict.project,
    });
    const { runs, story } = demoHistory({ now: new Date(), days: 6, testsPerSpec: 2 });
    const progress: number[] = [];
    const first = await loadDemoRuns(client, runs, { onProgress: ({ done }) => progress.push(done) });
    expect(first).toEqual({
      created: runs.length,
      skipped: 0,
      accepted: runs.reduce((sum, run) => sum + run.results.length, 0),
    });
    expect(progress).toEqual(runs.map((_, index) => index + 1));

    const branches = ['main', ...story.branches];
    const expected = branches.map((branch) => runs.filter((run) => run.start.branch === branch).length);
    expect(expected.every((count) => count > 0)).toBe(true);
    const loaded = await Promise.all(branches.map((branch, i) => runsOn(client, branch, expected[i] ?? 0)));
    expect(loaded).toEqual(expected);
    const latest = (await client.listRuns({ limit: 100 })).data;
    expect(latest.every((run) => run.status === 'finished')).toBe(true);

    const second = await loadDemoRuns(client, runs);
    expect(second).toEqual({ created: 0, skipped: runs.length, accepted: 0 });
    expect((await client.listRuns({ limit: 1 })).pagination.total).toBe(runs.length);
  });

  it('when npm run demo runs against it, then it prints the Demo shop project, whose runs its printed token reads', async () => {
    const { VERDICT_ADMIN_KEY: _key, VERDICT_TOKEN: _token, JEST_WORKER_ID: _worker, ...env } = process.env;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(repoRoot, 'scripts/run.cjs'), 'demo'],
      {
        cwd: repoRoot,
        env: { ...env, VERDICT_URL: verdict.url, VERDICT_DATA_DIR: verdict.dataDir },
        maxBuffer: 10 * 1024 * 1024,
      },
    );
    const project = /Project:\s+\S+\/projects\/([\w-]+)\/runs/.exec(stdout)?.[1];
    const token = /Token:\s+(svc_pat_\S+)/.exec(stdout)?.[1];
    expect([project, token].every(Boolean)).toBe(true);
    const total = Number(/loading (\d+) demo runs into "Demo shop"/.exec(stdout)?.[1]);
    expect(total).toBeGreaterThan(60);
    expect(stdout).toContain(`done: ${total} runs created, 0 already there`);
    const client = createVerdictClient({ baseUrl: verdict.url, token, project });
    expect(await runsOn(client, 'main', 50)).toBeGreaterThanOrEqual(50);
    for (const branch of ['feature/checkout-v2', 'fix/login-timeout'])
      expect(await runsOn(client, branch, 1)).toBeGreaterThan(0);
  });
});
