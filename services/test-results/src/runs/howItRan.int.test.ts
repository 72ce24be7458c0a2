import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RunBundle, TestBundle, TestRunDetail, testCaseIdOf, type ResultItem } from '@verdict/contracts';
import { createInProcessBus, newSecret, type SqlDatabase } from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { testDatabases } from '@verdict/platform/testing/databases';
import type { TestResultsModule } from '../module';
import { memberIdentity, serveOverHttp, testModule } from '../testing';

// How each attempt ran (issue 31): a start's host and runner settings and each result's worker are kept
// and read back in the run detail and the debug bundle; a client that sends none of them reads nulls.

const secret = newSecret(32);
const PROJECT = 'project-1';
const FILE = 'tests/cart.spec.ts';

const host = {
  nameHash: '3f2a9c0d1e4b5a67',
  os: 'linux 6.8.0',
  cpus: 4,
  memoryMb: 15_986,
  loadAverage: [2.5, 1.25, 0.5],
};
const settings = { workers: 2, fullyParallel: true, shard: { current: 1, total: 1 }, seed: '7' };

function attempt(
  attemptIndex: number,
  status: ResultItem['status'],
  worker?: ResultItem['worker'],
): ResultItem {
  return {
    file: FILE,
    titlePath: ['Cart', 'pays'],
    project: 'chromium',
    attempt: attemptIndex,
    status,
    durationMs: 120,
    startedAt: `2026-03-02T10:00:0${attemptIndex}.000Z`,
    ...(status === 'failed' && { error: { message: 'Error: expected 3, got 2' } }),
    ...(worker && { worker }),
  };
}

describe.each(testDatabases())('how each attempt ran, on $name', (database) => {
  let db: SqlDatabase;
  let server: Server;
  let base: string;
  let blobDir: string;
  let module: TestResultsModule;
  const bus = createInProcessBus();
  const names = {
    storeSchema: uniqueName('tr'),
    topic: uniqueName('tr'),
    readModelSchema: uniqueName('trr'),
  };
  const headers = () => ({ 'content-type': 'application/json', ...memberIdentity(secret, PROJECT) });
  const caseId = testCaseIdOf({ file: FILE, titlePath: ['Cart', 'pays'] });

  const post = async (url: string, body: unknown) => {
    const answer = await fetch(`${base}/${PROJECT}${url}`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify(body),
    });
    expect(answer.status).toBeLessThan(300);
    return ((await answer.json()) as { data: { id: string } }).data;
  };
  const get = async (url: string) => {
    const answer = await fetch(`${base}/${PROJECT}${url}`, { headers: headers() });
    expect(answer.status).toBe(200);
    return answer;
  };
  const detailOf = async (runId: string) =>
    TestRunDetail.parse(((await (await get(`/test-runs/${runId}`)).json()) as { data: unknown }).data);
  const bundleOf = async (query: string) =>
    ((await (await get(`/debug-bundle?${query}`)).json()) as { data: unknown }).data;

  async function sendRun(start: object, results: ResultItem[]): Promise<string> {
    const { id } = await post('/test-runs', start);
    await post(`/test-runs/${id}/results`, { results });
    await post(`/test-runs/${id}/finish`, {});
    return id;
  }

  beforeAll(async () => {
    db = await database.open();
    blobDir = mkdtempSync(path.join(tmpdir(), 'verdict-blobs-'));
    module = testModule({ db, bus, blobDir }, { internalSecret: secret, names });
    await module.start();
    ({ server, base } = await serveOverHttp(module));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await module.stop();
    await bus.close();
    await db.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  it('when a run starts with its host and settings and its results name their workers, then the run detail and the debug bundle give them back', async () => {
    const runId = await sendRun(
      { ciRunId: uniqueName('ci'), host: { ...host, hostname: 'runner-7' }, settings },
      [
        attempt(0, 'failed', { index: 0, parallelIndex: 0, ordinal: 4 }),
        attempt(1, 'failed', { index: 2, parallelIndex: 1, ordinal: 0 }),
      ],
    );

    const detail = await detailOf(runId);
    expect(detail.host).toEqual(host);
    expect(detail.settings).toEqual(settings);

    const run = RunBundle.parse(await bundleOf(`runId=${runId}`));
    expect(run.environment.host).toEqual(host);
    expect(run.environment.settings).toEqual(settings);

    const test = TestBundle.parse(await bundleOf(`runId=${runId}&caseId=${caseId}`));
    expect(test.test.worker).toEqual({ index: 2, parallelIndex: 1, ordinal: 0 });
    expect(test.attemptHistory.map((entry) => entry.worker)).toEqual([
      { index: 0, parallelIndex: 0, ordinal: 4 },
    ]);

    const runMarkdown = await (await get(`/debug-bundle?runId=${runId}&as=markdown`)).text();
    expect(runMarkdown).toContain('## How it ran');
    expect(runMarkdown).toContain(
      'Host: linux 6.8.0, 4 CPUs, 15986 MB memory, load average 2.50 1.25 0.50 at start',
    );
    expect(runMarkdown).toContain('Settings: 2 workers, fullyParallel true, shard 1/1, seed `7`');
    const testMarkdown = await (
      await get(`/debug-bundle?runId=${runId}&caseId=${caseId}&as=markdown`)
    ).text();
    expect(testMarkdown).toContain(
      "Attempt 1 ran on worker 2, parallelIndex 1, ordinal 0 (0-based) among that worker's tests",
    );
    expect(testMarkdown).toContain(
      'attempt 0: failed, 120 ms on worker 0, parallelIndex 0, ordinal 4 (0-based)',
    );
  });

  it('when a client sends no host, settings or worker (as before), then the run detail and the bundle say null and the Markdown has no such section', async () => {
    const runId = await sendRun({}, [attempt(0, 'failed'), attempt(1, 'failed')]);

    const detail = await detailOf(runId);
    expect(detail.host).toBeNull();
    expect(detail.settings).toBeNull();

    const run = RunBundle.parse(await bundleOf(`runId=${runId}`));
    expect(run.environment.host).toBeNull();
    expect(run.environment.settings).toBeNull();
    const test = TestBundle.parse(await bundleOf(`runId=${runId}&caseId=${caseId}`));
    expect(test.test.worker).toBeNull();
    expect(test.attemptHistory.map((entry) => entry.worker)).toEqual([null]);

    const runMarkdown = await (await get(`/debug-bundle?runId=${runId}&as=markdown`)).text();
    expect(runMarkdown).not.toContain('How it ran');
  });
});
