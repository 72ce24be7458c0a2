import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createVerdictClient, type RunDetail, type VerdictClient } from '@verdict/client';
import {
  chromiumPath,
  installedVersion,
  scratchProject,
  startVerdict,
  type EmbeddedVerdict,
} from '../../../e2e/src/clients';

// A real Playwright suite (passes, a failure, a flaky test, a skip, a screenshot, a trace) in Debian's
// Chromium, run as two shards of one CI build with @verdict/playwright-reporter installed from its npm
// tarball into a scratch project, against `npm start`; then the same suite against a Verdict stopped
// while the second shard runs, its spool sent afterwards with the `verdict` bin of @verdict/cli.

const suiteDir = path.join(__dirname, '..', 'fixtures', 'suite');

interface PlaywrightReport {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  suites: ReportSuite[];
}
interface ReportSuite {
  specs: { title: string; file: string; line: number; tests: { projectName: string }[] }[];
  suites?: ReportSuite[];
}

interface ShardRun {
  code: number | null;
  output: string;
  report: PlaywrightReport;
}

let verdict: EmbeddedVerdict;
let scratch: string;
let client: VerdictClient;

/** The environment of a GitHub Actions job, as the reporter reads it (nothing of the real CI leaks in). */
function githubEnv(runId: string): NodeJS.ProcessEnv {
  const { JEST_WORKER_ID: _worker, CI: _ci, GITHUB_ACTIONS: _gha, ...env } = process.env;
  const clean = Object.fromEntries(
    Object.entries(env).filter(
      ([name]) => !/^(GITHUB_|GITLAB_|CI_|CIRCLE|BUILDKITE|TF_BUILD|JENKINS_|VERDICT_)/.test(name),
    ),
  );
  return {
    ...clean,
    GITHUB_ACTIONS: 'true',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_JOB: 'e2e',
    GITHUB_REF_NAME: 'main',
    GITHUB_SHA: '4f2c8a1e9b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a',
    VERDICT_URL: verdict.url,
    VERDICT_TOKEN: verdict.token,
    VERDICT_PROJECT: verdict.project,
    CHROMIUM_PATH: chromiumPath(),
  };
}

function runShard(shard: number, env: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv = {}): Promise<ShardRun> {
  const reportFile = path.join(scratch, `report-${env.GITHUB_RUN_ID}-${shard}.json`);
  const cli = path.join(scratch, 'node_modules', '@playwright', 'test', 'cli.js');
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [cli, 'test', `--shard=${shard}/2`, `--output=test-results-${env.GITHUB_RUN_ID}-${shard}`],
      { cwd: scratch, env: { ...env, ...extra, PLAYWRIGHT_JSON_OUTPUT_FILE: reportFile }, stdio: 'pipe' },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, output, report: JSON.parse(readFileSync(reportFile, 'utf8')) as PlaywrightReport }),
    );
  });
}

/** Runs the `verdict` bin installed in the scratch project. */
function verdictBin(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(scratch, 'node_modules', '.bin', 'verdict'), ...args], {
      cwd: scratch,
      env,
      stdio: 'pipe',
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Playwright's own count of both shards, as Verdict counts tests. */
function expectedStats(reports: PlaywrightReport[]) {
  const sum = (pick: (stats: PlaywrightReport['stats']) => number) =>
    reports.reduce((total, report) => total + pick(report.stats), 0);
  const passed = sum((s) => s.expected);
  const failed = sum((s) => s.unexpected);
  const flaky = sum((s) => s.flaky);
  const skipped = sum((s) => s.skipped);
  return { total: passed + failed + flaky + skipped, passed, failed, flaky, skipped };
}

function specOf(reports: PlaywrightReport[], title: string) {
  const visit = (suites: ReportSuite[]): ReportSuite['specs'] =>
    suites.flatMap((suite) => [...suite.specs, ...visit(suite.suites ?? [])]);
  const spec = visit(reports.flatMap((report) => report.suites)).find(
    (candidate) => candidate.title === title,
  );
  if (!spec) throw new Error(`No spec "${title}" in Playwright's report`);
  return spec;
}

async function runOfCiRunId(ciRunId: string): Promise<RunDetail | undefined> {
  const { data } = await client.listRuns({ limit: 100 });
  const listed = data.find((run) => run.ciRunId === ciRunId);
  return listed ? client.getRun(listed.id) : undefined;
}

/** The run once its read model has counted `total` tests and it has finished. */
async function settledRun(runId: string, total: number): Promise<RunDetail> {
  let run = await client.getRun(runId);
  for (let tries = 0; tries < 300 && (run.stats.total !== total || run.status !== 'finished'); tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    run = await client.getRun(runId);
  }
  return run;
}

/** The file a shard's GITHUB_STEP_SUMMARY names. */
const summaryFile = (build: string, shard: number) => path.join(scratch, `step-summary-${build}-${shard}.md`);

const runIdIn = (output: string) => /\/projects\/[^/]+\/runs\/([0-9a-f-]+)/.exec(output)?.[1];

beforeAll(async () => {
  verdict = await startVerdict();
  scratch = scratchProject(
    'verdict-pw-user-',
    ['client', 'playwright-reporter', 'cli'],
    [`@playwright/test@${installedVersion('@playwright/test')}`],
  );
  cpSync(suiteDir, scratch, { recursive: true, filter: (source) => !source.endsWith('package.json') });
  client = createVerdictClient({ baseUrl: verdict.url, token: verdict.token, project: verdict.project });
});

afterAll(async () => {
  await verdict?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (verdict) rmSync(verdict.dataDir, { recursive: true, force: true });
});

describe('two shards of one CI build, with Verdict up', () => {
  let shards: ShardRun[];
  let run: RunDetail;

  beforeAll(async () => {
    const env = githubEnv('1001');
    shards = [
      await runShard(1, env, { GITHUB_STEP_SUMMARY: summaryFile('1001', 1) }),
      await runShard(2, env, { GITHUB_STEP_SUMMARY: summaryFile('1001', 2) }),
    ];
    const runIds = shards.map((shard) => runIdIn(shard.output));
    expect(runIds[0]).toBeDefined();
    expect(runIds[1]).toBe(runIds[0]);
    run = await settledRun(runIds[0] as string, expectedStats(shards.map((shard) => shard.report)).total);
  });

  it("when both shards end, then Playwright's exit codes are its own: the shard with the failing test fails", () => {
    expect(shards.map((shard) => shard.code).sort()).toEqual([0, 1]);
  });

  it("when both shards are in, then one run counts exactly what Playwright's JSON reports count", () => {
    expect(run.stats).toEqual(expectedStats(shards.map((shard) => shard.report)));
    expect(run.stats).toMatchObject({ failed: 1, flaky: 1, skipped: 1 });
    expect(run).toMatchObject({
      status: 'finished',
      ciRunId: 'github-acme/shop-1001-e2e-1',
      branch: 'main',
      commit: { sha: '4f2c8a1e9b7d6c5a4f3e2d1c0b9a8f7e6d5c4b3a' },
      ci: {
        provider: 'github-actions',
        buildId: '1001',
        url: 'https://github.com/acme/shop/actions/runs/1001/attempts/1',
      },
      framework: { name: 'playwright', version: installedVersion('@playwright/test') },
    });
  });

  it('when a reporter ends, then it prints the run’s page in the web app', () => {
    expect(shards[0]?.output).toContain(
      `[verdict] ${verdict.url}/projects/${verdict.project}/runs/${run.id} (`,
    );
  });

  it('when the last shard ends with GITHUB_STEP_SUMMARY set, then it appends the finished run’s summary: counts, each failure’s verdict and signature, links', async () => {
    const file = summaryFile('1001', 2);
    expect(shards[1]?.output).toContain(`[verdict] summary appended to ${file}`);
    const summary = readFileSync(file, 'utf8');
    const runUrl = `${verdict.url}/projects/${verdict.project}/runs/${run.id}`;
    expect(summary).toContain(`### ❌ Verdict run #${run.counter}`);
    expect(summary).toContain(`[Open run #${run.counter} in Verdict](${runUrl})`);
    const { passed, failed, flaky, skipped, total } = run.stats;
    expect(summary).toContain(`| ${passed} | ${failed} | ${flaky} | ${skipped} | ${total} |`);
    const { failures } = await client.getRun(run.id, { include: 'failures' });
    expect(failures?.items).toHaveLength(failed);
    for (const failure of failures?.items ?? []) {
      expect(summary).toContain(`| **${failure.verdict.replace(/-/g, ' ')}** | [`);
      expect(summary).toContain(`](${runUrl}/tests/${failure.testCaseId}?project=chromium)`);
      expect(summary).toContain(failure.signature?.id ?? 'a signature');
    }
    expect(summary).toContain('#### Compared with the base');
  });

  it('when a shard starts the run, then the run keeps its host (name hashed) and settings, and each attempt its worker', async () => {
    const { host, settings } = await client.getRun(run.id);
    expect(host).toEqual({
      nameHash: createHash('sha256').update(os.hostname()).digest('hex').slice(0, 16),
      os: `${os.platform()} ${os.release()}`,
      cpus: os.cpus().length,
      memoryMb: Math.round(os.totalmem() / (1024 * 1024)),
      ...(host?.loadAverage ? { loadAverage: host.loadAverage } : {}),
    });
    expect(host?.loadAverage ?? [1, 1, 1]).toHaveLength(3);
    // The fixture's config: one worker, not fully parallel; the start that created the run was a shard of 2.
    expect(settings).toMatchObject({ workers: 1, fullyParallel: false, shard: { total: 2 } });
    expect(settings).not.toHaveProperty('seed');
    const { data: runBundle } = await client.debugBundle({ runId: run.id });
    const items = (runBundle as { items: { caseId: string; title: string }[] }).items;
    const flaky = items.find((item) => item.title === 'is flaky at first');
    const { data: bundle } = await client.debugBundle({ runId: run.id, caseId: flaky?.caseId ?? '' });
    type Worker = { index?: number; parallelIndex?: number; ordinal?: number } | null | undefined;
    const { test, attemptHistory } = bundle as {
      test: { worker: Worker };
      attemptHistory: { worker: Worker }[];
    };
    const [first] = attemptHistory;
    // Playwright replaces a worker after a failure: the retry runs first on a new one, in the same slot.
    expect(first?.worker).toMatchObject({ parallelIndex: 0 });
    expect(test.worker).toEqual({ index: expect.any(Number), parallelIndex: 0, ordinal: 0 });
    expect(test.worker?.index).toBeGreaterThan(first?.worker?.index ?? Infinity);
  });

  it('when the failing test is asked for, then its debug bundle reruns it by file, line and project, and opens its trace', async () => {
    await expectFailingTestDebuggable(
      run.id,
      shards.map((shard) => shard.report),
    );
  });

  it('when a test attached a screenshot, then its attempt links the uploaded PNG, which downloads whole', async () => {
    await expectScreenshotLinked(run.id);
  });

  it("when the shards' JSON reports are imported with `verdict import playwright`, then the run has the same counts, screenshot and trace", async () => {
    const reports = readdirSync(scratch).filter((name) => /^report-1001-\d\.json$/.test(name));
    const imported = await verdictBin(['import', 'playwright', ...reports], {
      ...githubEnv('1001'),
      GITHUB_ACTIONS: 'false',
    });
    expect(imported.code).toBe(0);
    const runId = runIdIn(imported.output);
    expect(runId).toBeDefined();
    expect(runId).not.toBe(run.id);
    const expected = expectedStats(shards.map((shard) => shard.report));
    expect((await settledRun(runId as string, expected.total)).stats).toEqual(expected);
    await expectFailingTestDebuggable(
      runId as string,
      shards.map((shard) => shard.report),
    );
    await expectScreenshotLinked(runId as string);
  });
});

describe('the same suite against a Verdict stopped while the second shard runs', () => {
  let shards: ShardRun[];
  let spools: string[];

  beforeAll(async () => {
    const env = githubEnv('1002');
    const first = await runShard(1, env, {
      GITHUB_STEP_SUMMARY: summaryFile('1002', 1),
      E2E_GITHUB_SUMMARY: 'off',
    });
    const expectedFirst = expectedStats([first.report]).total;
    const gate = path.join(scratch, 'gate-1002');
    // The second shard holds in its gate test until Verdict is down; by then its first tests reached it.
    const second = runShard(2, env, { VERDICT_E2E_GATE: gate, GITHUB_STEP_SUMMARY: summaryFile('1002', 2) });
    let run: RunDetail | undefined;
    for (let tries = 0; tries < 600 && !((run?.stats.total ?? 0) > expectedFirst); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = await runOfCiRunId('github-acme/shop-1002-e2e-1');
    }
    expect(run?.stats.total).toBeGreaterThan(expectedFirst);
    expect(await verdict.stop()).toBe(0);
    writeFileSync(gate, '');
    shards = [first, await second];
    await verdict.restart();
    const spoolDir = path.join(scratch, '.verdict', 'spool');
    spools = existsSync(spoolDir)
      ? readdirSync(spoolDir)
          .filter((name) => name.startsWith('github-acme_shop-1002') && name.endsWith('.ndjson'))
          .map((name) => path.join(spoolDir, name))
      : [];
  });

  it('when Verdict stops mid-run, then both shards exit as they would have, and the reporter says once where the rest went', () => {
    expect(shards.map((shard) => shard.code)).toEqual([1, 0]);
    const told = shards[1]?.output.match(/\[verdict\] Verdict at .*\. The tests go on;/g) ?? [];
    expect(told).toHaveLength(1);
    expect(shards[1]?.output).toContain('npx @verdict/cli replay');
    expect(spools).toHaveLength(1);
  });

  it('when the summary is turned off, or the run could not be finished, then no summary is written and the exit codes stand', () => {
    expect(existsSync(summaryFile('1002', 1))).toBe(false);
    expect(shards[0]?.output).not.toContain('summary');
    expect(existsSync(summaryFile('1002', 2))).toBe(false);
    expect(shards[1]?.output).toContain(
      `[verdict] summary not written to ${summaryFile('1002', 2)}: the run was not finished in Verdict`,
    );
  });

  it("when the spool is replayed with `verdict replay`, then the run counts exactly what Playwright's reports count, nothing twice", async () => {
    const replayed = await verdictBin(['replay', ...spools], {
      ...githubEnv('1002'),
      GITHUB_ACTIONS: 'false',
    });
    expect(replayed.code).toBe(0);
    expect(replayed.output).toMatch(/\(finished\)/);
    const run = await runOfCiRunId('github-acme/shop-1002-e2e-1');
    const expected = expectedStats(shards.map((shard) => shard.report));
    expect((await settledRun(run?.id ?? '', expected.total)).stats).toEqual(expected);
    // Sent whole, the spool is gone: it cannot be sent twice by mistake.
    expect(spools.filter((file) => existsSync(file))).toEqual([]);
  });
});

describe("quarantine: 'enforce' turns a run whose every failure is quarantined for its error green", () => {
  const copy = () => path.join(scratch, '.verdict', 'quarantine.json');
  /** The cart spec alone (one failing test, a flaky one), with quarantine enforced. */
  function runCart(build: string, extra: NodeJS.ProcessEnv = {}): Promise<ShardRun> {
    const reportFile = path.join(scratch, `report-cart-${build}.json`);
    const cli = path.join(scratch, 'node_modules', '@playwright', 'test', 'cli.js');
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [cli, 'test', 'tests/cart.pw.ts', `--output=test-results-${build}`],
        {
          cwd: scratch,
          env: {
            ...githubEnv(build),
            E2E_GITHUB_SUMMARY: 'off',
            VERDICT_QUARANTINE: 'enforce',
            PLAYWRIGHT_JSON_OUTPUT_FILE: reportFile,
            ...extra,
          },
          stdio: 'pipe',
        },
      );
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        resolve({ code, output, report: JSON.parse(readFileSync(reportFile, 'utf8')) as PlaywrightReport }),
      );
    });
  }
  let quarantineId = '';

  it('when nothing is quarantined, then the failing run exits 1 as Playwright says', async () => {
    const ran = await runCart('3001');
    expect(ran.code).toBe(1);
    expect(ran.output).not.toContain('quarantined for its known error');
    // The list was fetched and kept for runs that cannot reach Verdict.
    expect(JSON.parse(readFileSync(copy(), 'utf8'))).toMatchObject({
      project: verdict.project,
      quarantines: [],
    });
  });

  it('when the failing test is quarantined for its error, then the run exits 0 and one line names the test, its owner and expiry', async () => {
    const run = await runOfCiRunId('github-acme/shop-3001-e2e-1');
    const { failures } = await client.getRun(run?.id ?? '', { include: 'failures' });
    const [failure] = failures?.items ?? [];
    const members = await client.api.GET('/{projectId}/members', {
      params: { path: { projectId: verdict.project } },
    });
    const owner = members.data?.data[0]?.userId ?? '';
    const expiresAt = new Date(Date.now() + 14 * 86_400_000).toISOString();
    const made = await client.quarantineTest({
      testCaseId: failure?.testCaseId ?? '',
      reason: 'Discount service is being rewritten',
      ownerId: owner,
      expiresAt,
    });
    quarantineId = made.id;
    const ran = await runCart('3002');
    expect(ran.code).toBe(0);
    expect(ran.report.stats.unexpected).toBe(1);
    expect(ran.output).toContain(
      `[verdict] every failure is quarantined for its known error, the run passes: cart › applies a discount [chromium] (owner ${owner}, until ${expiresAt.slice(0, 10)})`,
    );
    // Verdict still records the failure, with the verdict quarantined.
    const recorded = await runOfCiRunId('github-acme/shop-3002-e2e-1');
    const detail = await client.getRun(recorded?.id ?? '', { include: 'failures' });
    expect(detail.failures?.items.map((item) => item.verdict)).toEqual(['quarantined']);
  });

  it('when the quarantined test fails with another error, then the run exits 1: a regression is never masked', async () => {
    const ran = await runCart('3003', { E2E_DISCOUNT_BREAKS: 'differently' });
    expect(ran.code).toBe(1);
    expect(ran.output).not.toContain('the run passes');
  });

  it('when Verdict is down and a copy of the list was kept, then the copy applies and the line says so', async () => {
    expect(await verdict.stop()).toBe(0);
    try {
      const ran = await runCart('3004');
      expect(ran.code).toBe(0);
      expect(ran.output).toMatch(
        /the run passes: cart › applies a discount .* Verdict unreachable: the quarantine list kept on \S+ applies/,
      );
      rmSync(copy());
      const bare = await runCart('3005');
      expect(bare.code).toBe(1);
      expect(bare.output).toContain(
        '[verdict] quarantine not applied: Verdict could not be reached and no copy of its list was kept',
      );
    } finally {
      await verdict.restart();
    }
    await client.liftQuarantine(quarantineId);
  });
});

/** The debug bundle of the failing test: retry command by file, line and project; a trace that downloads. */
async function expectFailingTestDebuggable(runId: string, reports: PlaywrightReport[]) {
  const spec = specOf(reports, 'applies a discount');
  const { data: runBundle } = await client.debugBundle({ runId });
  const items = (runBundle as { items?: { caseId: string; title: string; outcome: string }[] }).items ?? [];
  expect(items.find((item) => item.title === 'is flaky at first')?.outcome).toBe('flaky');
  const failed = items.find((item) => item.title === 'applies a discount');
  expect(failed?.outcome).toBe('failed');
  const { data: bundle } = await client.debugBundle({ runId, caseId: failed?.caseId ?? '' });
  const links = (bundle as { links: { retryCommand: string; traceViewerUrl: string | null } }).links;
  expect(links.retryCommand).toBe(`npx playwright test ${spec.file}:${spec.line} --project=chromium`);
  // The trace opens in the viewer this Verdict serves, never on trace.playwright.dev.
  expect(links.traceViewerUrl?.startsWith(`${verdict.url}/trace-viewer/?trace=`)).toBe(true);
  const trace = await fetch(new URL(links.traceViewerUrl ?? '').searchParams.get('trace') ?? '');
  expect(trace.status).toBe(200);
  // A Playwright trace is a zip archive.
  expect(
    Buffer.from(await trace.arrayBuffer())
      .subarray(0, 2)
      .toString(),
  ).toBe('PK');
}

/** The passing test that attached a screenshot: its attempt links the PNG, which downloads whole. */
async function expectScreenshotLinked(runId: string) {
  let caseId: string | undefined;
  for (let tries = 0; tries < 300 && !caseId; tries += 1) {
    const explorer = await client.api.GET('/{projectId}/test-case-explorer', {
      params: { path: { projectId: verdict.project }, query: { search: 'pays with a card' } },
    });
    caseId = explorer.data?.data.testCases[0]?.testCaseId;
    if (!caseId) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { data: bundle } = await client.debugBundle({ runId, caseId: caseId ?? '' });
  const shots = (bundle as { artifacts: { screenshots: { name: string; url: string | null }[] } }).artifacts
    .screenshots;
  expect(shots.map((shot) => shot.name)).toEqual(['checkout']);
  const png = Buffer.from(await (await fetch(shots[0]?.url ?? '')).arrayBuffer());
  expect(png.subarray(1, 4).toString()).toBe('PNG');
}
