import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createVerdictClient, type RunDetail, type VerdictClient } from '@verdict/client';
import { readCoverage } from '@verdict/client/reporting';
import { closedPort } from '../../client/src/testing';
import {
  installedVersion,
  scratchProject,
  startVerdict,
  type EmbeddedVerdict,
} from '../../../e2e/src/clients';

// A real Jest run (a pass, a failure, a test passing on its retry, a skip, a todo, a file that fails to
// load) with @verdict/jest-reporter installed from its npm tarball into a scratch project, against
// `npm start`; then the same run against a Verdict that is down, its spool sent with `verdict replay`.

const suiteDir = path.join(__dirname, '..', 'fixtures', 'suite');
// A coverage report written by the real c8 (clients/cli/fixtures/README.md), sent as the reporter's coverage.
const coverageFile = path.join(
  __dirname,
  '..',
  '..',
  'cli',
  'fixtures',
  'coverage',
  'c8-coverage-summary.json',
);

interface JestJson {
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numRuntimeErrorTestSuites: number;
  testResults: { assertionResults: { title: string; status: string; invocations?: number }[] }[];
}

let verdict: EmbeddedVerdict;
let scratch: string;
let client: VerdictClient;

function runJest(
  env: NodeJS.ProcessEnv,
  name: string,
  args: string[] = [],
): { code: number | null; output: string; json: JestJson } {
  const { JEST_WORKER_ID: _worker, CI: _ci, ...clean } = process.env;
  const outputFile = path.join(scratch, `${name}.json`);
  const jest = spawnSync(
    process.execPath,
    [
      path.join(scratch, 'node_modules', 'jest', 'bin', 'jest.js'),
      '--json',
      `--outputFile=${outputFile}`,
      ...args,
    ],
    {
      cwd: scratch,
      encoding: 'utf8',
      env: {
        ...Object.fromEntries(Object.entries(clean).filter(([key]) => !key.startsWith('VERDICT_'))),
        VERDICT_TOKEN: verdict.token,
        VERDICT_PROJECT: verdict.project,
        ...env,
      },
    },
  );
  return {
    code: jest.status,
    output: `${jest.stdout}${jest.stderr}`,
    json: JSON.parse(readFileSync(outputFile, 'utf8')) as JestJson,
  };
}

/** The file GITHUB_STEP_SUMMARY names for one Jest run. */
const summaryFile = (name: string) => path.join(scratch, `step-summary-${name}.md`);

/** Jest's own count, as Verdict counts tests: a file that failed to load is one failed test. */
function expectedStats(json: JestJson) {
  const retried = json.testResults
    .flatMap((file) => file.assertionResults)
    .filter((test) => test.status === 'passed' && (test.invocations ?? 1) > 1).length;
  const failed = json.numFailedTests + json.numRuntimeErrorTestSuites;
  const skipped = json.numPendingTests + json.numTodoTests;
  return {
    total: json.numTotalTests + json.numRuntimeErrorTestSuites,
    passed: json.numPassedTests - retried,
    failed,
    flaky: retried,
    skipped,
  };
}

async function settledRun(ciRunId: string, total: number): Promise<RunDetail> {
  let run: RunDetail | undefined;
  for (let tries = 0; tries < 300 && (run?.stats.total !== total || run.status !== 'finished'); tries += 1) {
    const listed = (await client.listRuns({ limit: 100 })).data.find(
      (candidate) => candidate.ciRunId === ciRunId,
    );
    if (listed) run = await client.getRun(listed.id);
    if (run?.stats.total !== total || run.status !== 'finished')
      await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!run) throw new Error(`No run of ${ciRunId}`);
  return run;
}

beforeAll(async () => {
  verdict = await startVerdict();
  scratch = scratchProject(
    'verdict-jest-user-',
    ['client', 'jest-reporter', 'cli'],
    [`jest@${installedVersion('jest')}`],
  );
  cpSync(suiteDir, scratch, { recursive: true, filter: (source) => !source.endsWith('package.json') });
  client = createVerdictClient({ baseUrl: verdict.url, token: verdict.token, project: verdict.project });
});

afterAll(async () => {
  await verdict?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (verdict) rmSync(verdict.dataDir, { recursive: true, force: true });
});

describe('a Jest run with Verdict up', () => {
  let jest: ReturnType<typeof runJest>;
  let run: RunDetail;

  beforeAll(async () => {
    jest = runJest(
      {
        VERDICT_URL: verdict.url,
        VERDICT_CI_RUN_ID: 'jest-up',
        VERDICT_COVERAGE_FILE: coverageFile,
        GITHUB_STEP_SUMMARY: summaryFile('up'),
      },
      'up',
      ['--maxWorkers=2', '--seed=1234'],
    );
    run = await settledRun('jest-up', expectedStats(jest.json).total);
  });

  it("when Jest is done, then its exit code is its own and the run counts what Jest's JSON counts", () => {
    expect(jest.code).toBe(1);
    expect(run.stats).toEqual(expectedStats(jest.json));
    expect(run.stats).toMatchObject({ failed: 2, flaky: 1, skipped: 2 });
    expect(run.framework).toEqual({ name: 'jest', version: installedVersion('jest') });
    expect(jest.output).toContain(`[verdict] ${verdict.url}/projects/${verdict.project}/runs/${run.id} (`);
  });

  it('when Jest starts the run, then the run keeps the host (name hashed) and what Jest tells of its settings: workers and seed, no worker per test', async () => {
    const detail = await client.getRun(run.id);
    expect(detail.host).toMatchObject({
      nameHash: createHash('sha256').update(os.hostname()).digest('hex').slice(0, 16),
      os: `${os.platform()} ${os.release()}`,
      cpus: os.cpus().length,
      memoryMb: Math.round(os.totalmem() / (1024 * 1024)),
    });
    expect(detail.settings).toEqual({ workers: 2, seed: '1234' });
    const { data: runBundle } = await client.debugBundle({ runId: run.id });
    const [failing] = (runBundle as { items: { caseId: string }[] }).items;
    const { data: bundle } = await client.debugBundle({ runId: run.id, caseId: failing?.caseId ?? '' });
    expect((bundle as { test: { worker: unknown } }).test.worker).toBeNull();
  });

  it('when GITHUB_STEP_SUMMARY is set, then the finished run’s summary is appended to it: counts, each failure’s verdict and signature, links', async () => {
    expect(jest.output).toContain(`[verdict] summary appended to ${summaryFile('up')}`);
    const summary = readFileSync(summaryFile('up'), 'utf8');
    const runUrl = `${verdict.url}/projects/${verdict.project}/runs/${run.id}`;
    expect(summary).toContain(`### ❌ Verdict run #${run.counter}`);
    expect(summary).toContain(`[Open run #${run.counter} in Verdict](${runUrl})`);
    const { passed, failed, flaky, skipped, total } = run.stats;
    expect(summary).toContain(`| ${passed} | ${failed} | ${flaky} | ${skipped} | ${total} |`);
    const { failures } = await client.getRun(run.id, { include: 'failures' });
    expect(failures?.items).toHaveLength(failed);
    for (const failure of failures?.items ?? []) {
      expect(summary).toContain(`| **${failure.verdict.replace(/-/g, ' ')}** | [`);
      expect(summary).toContain(`](${runUrl}/tests/${failure.testCaseId})`);
      if (failure.signature) expect(summary).toContain(failure.signature.id);
    }
    expect(summary).toContain('#### Compared with the base');
  });

  it('when the summary is turned off, then GITHUB_STEP_SUMMARY is left alone', () => {
    const off = runJest(
      {
        VERDICT_URL: verdict.url,
        VERDICT_CI_RUN_ID: 'jest-off',
        GITHUB_STEP_SUMMARY: summaryFile('off'),
        E2E_GITHUB_SUMMARY: 'off',
      },
      'off',
    );
    expect(off.code).toBe(1);
    expect(off.output).toContain(`[verdict] ${verdict.url}/projects/${verdict.project}/runs/`);
    expect(off.output).not.toContain('summary');
    expect(existsSync(summaryFile('off'))).toBe(false);
  });

  it('when a coverage file is configured, then the run holds that coverage, sent before the run finished', async () => {
    const detail = await client.getRun(run.id, { include: 'coverage' });
    expect(detail.coverage).toEqual(await readCoverage(coverageFile, { root: scratch }));
    expect(detail.coverage?.lines).toEqual({ total: 21, covered: 13 });
  });

  it('when a test failed, then its bundle has Jest’s message, its line, the file’s console output and a rerun command', async () => {
    const { data } = await client.debugBundle({ runId: run.id });
    const items = (data as { items: { caseId: string; title: string; outcome: string; attempts: number }[] })
      .items;
    expect(items.find((item) => item.title === 'is flaky at first')).toMatchObject({
      outcome: 'flaky',
      attempts: 2,
    });
    expect(items.find((item) => item.title === 'broken.test.js')).toMatchObject({ outcome: 'failed' });
    const failed = items.find((item) => item.title === 'applies a discount');
    const { data: bundle } = await client.debugBundle({ runId: run.id, caseId: failed?.caseId ?? '' });
    const test = bundle as {
      test: { line: number };
      error: { message: string; stack: string };
      stdout: string[];
      attemptHistory: unknown[];
      links: { retryCommand: string };
    };
    expect(test.test.line).toBe(12);
    expect(test.error.message).toContain('expect(received).toBe(expected)');
    expect(test.error.stack).toContain('src/cart.test.js:14');
    expect(test.stdout.join('')).toContain('cart total computed');
    expect(test.attemptHistory).toHaveLength(1);
    expect(test.links.retryCommand).toBe("npx jest src/cart.test.js -t '^cart totals applies a discount$'");
  });
});

describe('the same Jest run with Verdict down', () => {
  it('when Verdict cannot be reached, then Jest exits as it would have and the spool replays to the same counts', async () => {
    const down = `http://127.0.0.1:${await closedPort()}`;
    const jest = runJest(
      { VERDICT_URL: down, VERDICT_CI_RUN_ID: 'jest-down', GITHUB_STEP_SUMMARY: summaryFile('down') },
      'down',
    );
    expect(jest.code).toBe(1);
    expect(jest.output).toContain(
      `[verdict] summary not written to ${summaryFile('down')}: the run was not finished in Verdict`,
    );
    expect(existsSync(summaryFile('down'))).toBe(false);
    expect(jest.output.match(/\[verdict\] Verdict at .*\. The tests go on;/g)).toHaveLength(1);
    const spoolDir = path.join(scratch, '.verdict', 'spool');
    const spools = existsSync(spoolDir)
      ? readdirSync(spoolDir)
          .filter((name) => name.startsWith('jest-down') && name.endsWith('.ndjson'))
          .map((name) => path.join(spoolDir, name))
      : [];
    expect(spools).toHaveLength(1);
    const replay = spawnSync(
      process.execPath,
      [path.join(scratch, 'node_modules', '.bin', 'verdict'), 'replay', ...spools, '--url', verdict.url],
      { cwd: scratch, encoding: 'utf8', env: { ...process.env, VERDICT_TOKEN: verdict.token } },
    );
    expect(replay.status).toBe(0);
    expect((await settledRun('jest-down', expectedStats(jest.json).total)).stats).toEqual(
      expectedStats(jest.json),
    );
  });
});
