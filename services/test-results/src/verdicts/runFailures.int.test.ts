import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  RunFinished,
  TestRunDetailResponse,
  errorSignature,
  testCaseIdOf,
  type ResultItem,
  type RunFailures,
} from '@verdict/contracts';
import {
  START,
  createInProcessBus,
  createSqlEventStore,
  INTERNAL_IDENTITY_HEADER,
  mintInternalToken,
  newSecret,
  type SqlDatabase,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { testDatabases } from '@verdict/platform/testing/databases';
import type { TestResultsModule } from '../module';
import { serveOverHttp, testModule } from '../testing';

// A crafted history of project-1 (base branch main, a 14-day window), run R on feature/cart on 20 March:
// - M0, main, 20 February (outside the window): "fresh" fails with the signature it fails with in R;
// - M1, main, 10 March: "drifts" fails with R's signature, "flickers" fails then passes (flaky);
// - F1, feature/other, 12 March: "pays" fails with R's signature (another branch: does not count);
// - M2, main, 18 March, the base run: "breaks" fails; "drifts" and "pays" pass.
// R fails pays (new), breaks (failing-on-base), flickers and drifts (known-flaky), fresh (new).

const secret = newSecret(32);
const PROJECT = 'project-1';
const FILE = 'tests/cart.spec.ts';

function identity(defaultBranch?: string): Record<string, string> {
  const claims = {
    organizationId: 'o',
    projectId: PROJECT,
    userId: 'u',
    role: 'member' as const,
    scopes: ['public-api'],
    tokenId: 't',
    ...(defaultBranch ? { defaultBranch } : {}),
  };
  return { [INTERNAL_IDENTITY_HEADER]: mintInternalToken(claims, { secret }) };
}

const attempt = (title: string, status: 'passed' | 'failed', n = 0, file = FILE): ResultItem => ({
  file,
  titlePath: ['Cart', title],
  project: 'chromium',
  attempt: n,
  status,
  durationMs: 10,
  startedAt: '2026-03-01T10:00:00.000Z',
  ...(status === 'failed' && {
    error: { message: `Error: ${title} broke`, location: { file, line: 12, column: 3 } },
  }),
});
const failed = (title: string) => attempt(title, 'failed');
const passed = (title: string) => attempt(title, 'passed');
const flaky = (title: string) => [attempt(title, 'failed'), attempt(title, 'passed', 1)];

describe.each(testDatabases())('a verdict per failure on $name', (database) => {
  let db: SqlDatabase;
  let server: Server;
  let base: string;
  let blobDir: string;
  let module: TestResultsModule;
  const names = {
    storeSchema: uniqueName('trv'),
    topic: uniqueName('trv'),
    readModelSchema: uniqueName('trvr'),
  };
  const bus = createInProcessBus();
  const runs: Record<string, string> = {};

  async function call(method: string, url: string, body?: unknown, headers = identity()) {
    const answer = await fetch(`${base}/${PROJECT}${url}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(answer.status).toBeLessThan(300);
    return (await answer.json()) as { data: { id: string } };
  }

  /** Starts a run, records its results and finishes it. */
  async function run(start: Record<string, unknown>, results: ResultItem[], headers = identity()) {
    const { data } = await call('POST', '/test-runs', start, headers);
    await call('POST', `/test-runs/${data.id}/results`, { results });
    await call('POST', `/test-runs/${data.id}/finish`, {});
    return data.id;
  }

  async function failuresOf(runId: string): Promise<RunFailures> {
    const answer = await fetch(`${base}/${PROJECT}/test-runs/${runId}?include=failures`, {
      headers: identity(),
    });
    expect(answer.status).toBe(200);
    const { data } = TestRunDetailResponse.parse(await answer.json());
    if (!data.failures) throw new Error('no failures section');
    return data.failures;
  }

  const verdicts = (failures: RunFailures) =>
    Object.fromEntries(failures.items.map((item) => [item.title, item.verdict]));

  async function runFinishedOf(runId: string) {
    const store = createSqlEventStore({ db, schema: names.storeSchema });
    const { events } = await store.readAll({ after: START, limit: 10_000 });
    return events
      .filter((event) => event.type === 'run.finished' && event.streamId === `run-${runId}`)
      .map((event) => RunFinished.parse(event));
  }

  beforeAll(async () => {
    db = await database.open();
    blobDir = mkdtempSync(path.join(tmpdir(), 'verdict-blobs-'));
    module = testModule({ db, bus, blobDir }, { internalSecret: secret, names });
    await module.start();
    ({ server, base } = await serveOverHttp(module));
    runs.M0 = await run({ branch: 'main', startedAt: '2026-02-20T10:00:00.000Z' }, [failed('fresh')]);
    runs.M1 = await run({ branch: 'main', startedAt: '2026-03-10T10:00:00.000Z' }, [
      failed('drifts'),
      ...flaky('flickers'),
    ]);
    runs.F1 = await run({ branch: 'feature/other', startedAt: '2026-03-12T10:00:00.000Z' }, [failed('pays')]);
    runs.M2 = await run({ branch: 'main', startedAt: '2026-03-18T10:00:00.000Z' }, [
      failed('breaks'),
      passed('drifts'),
      passed('pays'),
    ]);
    runs.R = await run({ branch: 'feature/cart', startedAt: '2026-03-20T10:00:00.000Z' }, [
      failed('pays'),
      failed('breaks'),
      failed('flickers'),
      failed('drifts'),
      failed('fresh'),
      passed('passes'),
    ]);
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await module.stop();
    await bus.close();
    await db.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  it('when a run fails a test its base branch never failed with that signature in the window, then it is new', async () => {
    const failures = await failuresOf(runs.R!);
    expect(verdicts(failures)).toMatchObject({ pays: 'new', fresh: 'new' });
    const pays = failures.items.find((item) => item.title === 'pays');
    const signature = errorSignature({
      message: 'Error: pays broke',
      location: { file: FILE },
      testFile: FILE,
    });
    expect(pays).toMatchObject({
      testCaseId: testCaseIdOf({ file: FILE, titlePath: ['Cart', 'pays'] }),
      titlePath: ['Cart', 'pays'],
      file: FILE,
      project: 'chromium',
      signature: { id: signature.id },
      errorMessage: 'Error: pays broke',
    });
  });

  it("when the base branch's latest finished run fails the test too, then it is failing-on-base", async () => {
    const failures = await failuresOf(runs.R!);
    expect(failures).toMatchObject({ baseBranch: 'main', baseRunId: runs.M2, windowDays: 14 });
    expect(verdicts(failures).breaks).toBe('failing-on-base');
  });

  it('when the test was flaky in the window, or failed on the base with this signature but not in its latest run, then it is known-flaky', async () => {
    const failures = await failuresOf(runs.R!);
    expect(verdicts(failures)).toMatchObject({ flickers: 'known-flaky', drifts: 'known-flaky' });
  });

  it('when quarantine does not exist yet, then no failure is quarantined and the count says 0', async () => {
    const failures = await failuresOf(runs.R!);
    expect(failures.items.map((item) => item.verdict)).not.toContain('quarantined');
    expect(failures.counts).toEqual({ new: 2, failingOnBase: 1, knownFlaky: 2, quarantined: 0 });
    expect(failures.items.map((item) => item.title)).toEqual([
      'breaks',
      'drifts',
      'flickers',
      'fresh',
      'pays',
    ]);
  });

  it('when the run finishes, then run.finished carries the same counts and its new failures', async () => {
    const [finished] = await runFinishedOf(runs.R!);
    expect(finished?.failures).toEqual({
      baseBranch: 'main',
      baseRunId: runs.M2,
      counts: { new: 2, failingOnBase: 1, knownFlaky: 2, quarantined: 0 },
      newFailures: [
        expect.objectContaining({ title: 'fresh', file: FILE, project: 'chromium' }),
        expect.objectContaining({ title: 'pays', signatureId: expect.stringMatching(/^[0-9a-f]{12}$/) }),
      ],
    });
  });

  it('when a run on the base branch itself fails, then it is judged against the branch’s earlier runs', async () => {
    const onMain = await run({ branch: 'main', startedAt: '2026-03-20T12:00:00.000Z' }, [failed('breaks')]);
    const failures = await failuresOf(onMain);
    expect(failures.baseRunId).toBe(runs.M2);
    expect(verdicts(failures)).toEqual({ breaks: 'failing-on-base' });
  });

  it('when the run names a base branch with no run before it, then there is no base run and verdicts still come', async () => {
    const runId = await run(
      { branch: 'feature/cart', baseBranch: 'release', startedAt: '2026-03-21T10:00:00.000Z' },
      [failed('breaks'), failed('flickers')],
    );
    const failures = await failuresOf(runId);
    expect(failures).toMatchObject({ baseBranch: 'release', baseRunId: null });
    expect(verdicts(failures)).toEqual({ breaks: 'new', flickers: 'known-flaky' });
  });

  it("when the run names no base, then the project's default branch from the gateway's identity is its base", async () => {
    const runId = await run(
      { branch: 'feature/cart', startedAt: '2026-03-22T10:00:00.000Z' },
      [failed('breaks')],
      identity('develop'),
    );
    expect(await failuresOf(runId)).toMatchObject({ baseBranch: 'develop', baseRunId: null });
  });

  it('when a sharded run finishes, then the verdicts are decided once, after the last shard, over every shard', async () => {
    const start = { ciRunId: 'ci-7', branch: 'feature/cart', startedAt: '2026-03-23T10:00:00.000Z' };
    const shard = (current: number) => ({ ...start, shard: { current, total: 2 } });
    const { data } = await call('POST', '/test-runs', shard(1));
    await call('POST', '/test-runs', shard(2));
    await call('POST', `/test-runs/${data.id}/results`, { results: [failed('breaks')] });
    await call('POST', `/test-runs/${data.id}/finish`, { shard: { current: 1, total: 2 } });
    expect(await runFinishedOf(data.id)).toEqual([]);
    await call('POST', `/test-runs/${data.id}/results`, { results: [failed('pays')] });
    await call('POST', `/test-runs/${data.id}/finish`, { shard: { current: 2, total: 2 } });
    const finished = await runFinishedOf(data.id);
    expect(finished).toHaveLength(1);
    expect(finished[0]?.failures?.counts).toEqual({
      new: 1,
      failingOnBase: 1,
      knownFlaky: 0,
      quarantined: 0,
    });
    expect((await failuresOf(data.id)).counts).toEqual(finished[0]?.failures?.counts);
  });
});
