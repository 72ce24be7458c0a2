import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createVerdictClient, type RunDetail, type VerdictClient } from '@verdict/client';
import { readCoverage } from '@verdict/client/reporting';
import { scratchProject, startVerdict, type EmbeddedVerdict } from '../../../e2e/src/clients';

// The `verdict` bin as a CI script runs it: @verdict/cli installed from its npm tarball into a scratch
// project, against `npm start`; JUnit XML written by real pytest, Maven Surefire and gotestsum, and
// coverage written by real c8, nyc, pytest-cov and gcovr (see the fixtures' READMEs).

const junitDir = path.join(__dirname, '..', 'fixtures', 'junit');
const coverageDir = path.join(__dirname, '..', 'fixtures', 'coverage');

let verdict: EmbeddedVerdict;
let scratch: string;
let client: VerdictClient;

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { JEST_WORKER_ID: _worker, ...clean } = process.env;
  const result = spawnSync(
    process.execPath,
    [path.join(scratch, 'node_modules', '.bin', 'verdict'), ...args],
    {
      cwd: scratch,
      encoding: 'utf8',
      env: {
        ...Object.fromEntries(
          Object.entries(clean).filter(
            ([key]) => !/^(VERDICT_|GITHUB_|GITLAB_|CI$|CIRCLE|BUILDKITE|TF_BUILD|JENKINS_)/.test(key),
          ),
        ),
        CI: 'true',
        VERDICT_URL: verdict.url,
        VERDICT_TOKEN: verdict.token,
        VERDICT_PROJECT: verdict.project,
        ...env,
      },
    },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const runIdIn = (stdout: string) => /\/runs\/([0-9a-f-]+)\s*$/.exec(stdout)?.[1] ?? '';

async function settledRun(runId: string, total?: number): Promise<RunDetail> {
  let run = await client.getRun(runId);
  for (let tries = 0; tries < 300; tries += 1) {
    if (run.status === 'finished' && (total === undefined ? run.stats.total > 0 : run.stats.total === total))
      break;
    await new Promise((resolve) => setTimeout(resolve, 100));
    run = await client.getRun(runId);
  }
  return run;
}

/** The server's own import of one report, as the oracle of what a file holds. */
async function importedAlone(file: string): Promise<RunDetail['stats']> {
  const { run } = await client.importJunit({ path: file }, { ciRunId: `alone-${path.basename(file)}` });
  return (await settledRun(run.id)).stats;
}

beforeAll(async () => {
  verdict = await startVerdict();
  scratch = scratchProject('verdict-cli-user-', ['client', 'cli'], []);
  client = createVerdictClient({ baseUrl: verdict.url, token: verdict.token, project: verdict.project });
});

afterAll(async () => {
  await verdict?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (verdict) rmSync(verdict.dataDir, { recursive: true, force: true });
});

describe('verdict import junit', () => {
  const files = [
    path.join(junitDir, 'pytest-cart.xml'),
    path.join(junitDir, 'pytest-checkout.xml'),
    path.join(junitDir, 'gotestsum.xml'),
    path.join(junitDir, 'surefire-TEST-com.example.shop.CartTest.xml'),
    path.join(junitDir, 'surefire-TEST-com.example.shop.CheckoutTest.xml'),
  ];

  it('when reports of pytest, gotestsum and Surefire are imported (files and a glob), then one run holds each of them whole', async () => {
    const imported = cli([
      'import',
      'junit',
      path.join(junitDir, 'pytest-*.xml'),
      files[2] ?? '',
      path.join(junitDir, 'surefire-*.xml'),
      '--branch',
      'main',
    ]);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain('verdict: importing 5 JUnit report(s) into run #');
    expect(imported.stderr).toContain('[5/5]');
    const run = await settledRun(runIdIn(imported.stdout));
    const alone = await Promise.all(files.map(importedAlone));
    const sum = (pick: (stats: RunDetail['stats']) => number) =>
      alone.reduce((total, stats) => total + pick(stats), 0);
    expect(run.stats).toEqual({
      total: sum((s) => s.total),
      passed: sum((s) => s.passed),
      failed: sum((s) => s.failed),
      flaky: sum((s) => s.flaky),
      skipped: sum((s) => s.skipped),
    });
    expect(run).toMatchObject({ status: 'finished', branch: 'main' });
  });

  it('when the same reports are imported again, then the same run answers and nothing is counted twice', async () => {
    const first = cli(['import', 'junit', ...files]);
    const again = cli(['import', 'junit', ...files]);
    expect([first.code, again.code]).toEqual([0, 0]);
    expect(runIdIn(again.stdout)).toBe(runIdIn(first.stdout));
    const run = await settledRun(runIdIn(first.stdout));
    expect(run.stats.total).toBe((await settledRun(runIdIn(again.stdout))).stats.total);
  });

  it('when a pattern matches nothing or a file is not JUnit, then exit 2 names it and nothing is sent', () => {
    const none = cli(['import', 'junit', 'reports/*.xml']);
    expect(none).toMatchObject({ code: 2, stdout: '' });
    expect(none.stderr).toContain('verdict: no file matches reports/*.xml');
    const wrong = cli(['import', 'junit', path.join(coverageDir, 'gcovr-cobertura.xml')]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('is not JUnit XML');
  });
});

describe('verdict coverage', () => {
  it.each([
    'c8-coverage-summary.json',
    'c8-lcov.info',
    'c8-cobertura.xml',
    'nyc-coverage-summary.json',
    'nyc-lcov.info',
    'coveragepy-coverage.xml',
    'coveragepy-lcov.info',
    'gcovr-cobertura.xml',
  ])('when %s is added to a running run, then the run reads back the coverage it holds', async (name) => {
    const { run } = await client.startRun({ ciRunId: `coverage-${name}`, shard: { current: 1, total: 1 } });
    const added = cli(['coverage', path.join(coverageDir, name), '--run', run.id, '--finish']);
    expect(added.code).toBe(0);
    expect(added.stderr).toMatch(/coverage added to run .*: lines \d+\.\d%/);
    let detail = await client.getRun(run.id, { include: 'coverage' });
    for (let tries = 0; tries < 100 && !detail.coverage; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      detail = await client.getRun(run.id, { include: 'coverage' });
    }
    expect(detail.coverage).toEqual(await readCoverage(path.join(coverageDir, name), { root: scratch }));
    expect(detail.status).toBe('finished');
  });

  it('when the run is finished already, then exit 3 says what Verdict answered', async () => {
    const { run } = await client.startRun({ ciRunId: 'coverage-late' });
    await client.finishRun(run.id);
    const late = cli(['coverage', path.join(coverageDir, 'c8-lcov.info'), '--run', run.id]);
    expect(late.code).toBe(3);
    expect(late.stderr).toContain('RUN_FINISHED');
  });
});

describe('verdict run', () => {
  const writesPytestReport = (exitCode: number) => [
    process.execPath,
    '-e',
    `require('fs').mkdirSync('out', { recursive: true }); require('fs').copyFileSync(${JSON.stringify(
      path.join(junitDir, 'pytest-cart.xml'),
    )}, 'out/junit.xml'); process.exit(${exitCode});`,
  ];

  it('when the wrapped command fails, then verdict exits with its code, having imported the report it wrote', async () => {
    const ran = cli(['run', '--', ...writesPytestReport(4)]);
    expect(ran.code).toBe(4);
    expect(ran.stderr).toContain('verdict: importing out/junit.xml');
    const run = await settledRun(runIdIn(ran.stdout));
    expect(run.stats).toEqual(await importedAlone(path.join(junitDir, 'pytest-cart.xml')));
    expect(run.outcome).toBe('failed');
  });

  it('when Verdict is not configured, then the command still runs and its exit code stands', () => {
    const ran = cli(['run', '--', ...writesPytestReport(0)], { VERDICT_TOKEN: '' });
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain('verdict: not reporting this run: missing --token (or VERDICT_TOKEN)');
  });

  it('when no command follows --, then exit 2', () => {
    expect(cli(['run']).code).toBe(2);
  });
});

describe('verdict bundle', () => {
  it('when a run is asked for as Markdown within a budget, then the bundle fits it; as JSON it parses', async () => {
    const { run } = await client.importJunit(
      { path: path.join(junitDir, 'pytest-cart.xml') },
      { ciRunId: 'bundle-1' },
    );
    const markdown = cli(['bundle', '--run', run.id, '--markdown', '--budget', '600']);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout.trimEnd().length).toBeLessThanOrEqual(600);
    expect(markdown.stdout).toContain(`**Run \`${run.id}\``);
    const json = cli(['bundle', '--run', run.id]);
    expect((JSON.parse(json.stdout) as { data: { scope: string } }).data.scope).toBe('run');
  });

  it('when the run does not exist, then exit 3 with Verdict’s answer; without a target, exit 2', () => {
    const missing = cli(['bundle', '--run', 'no-such-run']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('(404)');
    expect(cli(['bundle']).code).toBe(2);
    expect(cli(['bundle', '--run', 'x', '--budget', 'lots', '--markdown']).code).toBe(2);
  });
});

describe('verdict compare and verdict summary', () => {
  const cart = path.join(junitDir, 'pytest-cart.xml');
  const checkout = path.join(junitDir, 'pytest-checkout.xml');
  let baseRun: RunDetail;
  let run: RunDetail;

  beforeAll(async () => {
    // The base on main holds the cart report; the run on a branch holds it again, and the checkout report.
    const base = cli(['import', 'junit', cart, '--branch', 'main', '--ci-run-id', 'compare-base']);
    baseRun = await settledRun(runIdIn(base.stdout));
    const branch = cli([
      'import',
      'junit',
      cart,
      checkout,
      '--branch',
      'feature/pay',
      '--ci-run-id',
      'compare-run',
    ]);
    run = await settledRun(runIdIn(branch.stdout));
  });

  it('when a run is compared with a base run, then each category is counted and the added tests are the new report’s', async () => {
    const compared = cli(['compare', '--run', run.id, '--base', baseRun.id]);
    expect(compared.code).toBe(0);
    expect(compared.stdout).toContain(`Run #${run.counter} on feature/pay`);
    expect(compared.stdout).toContain(`compared with run #${baseRun.counter} on main`);
    const cartAlone = await importedAlone(cart);
    const checkoutAlone = await importedAlone(checkout);
    expect(compared.stdout).toMatch(new RegExp(`still failing\\s+${cartAlone.failed}\\n`));
    expect(compared.stdout).toMatch(new RegExp(`added\\s+${checkoutAlone.total}\\n`));
    expect(compared.stdout).toMatch(/removed\s+0\n/);
    const json = cli(['compare', '--run', run.id, '--base', baseRun.id, '--json']);
    const comparison = JSON.parse(json.stdout) as { base: { id: string }; added: { count: number } };
    expect(comparison.base.id).toBe(baseRun.id);
    expect(comparison.added.count).toBe(checkoutAlone.total);
  });

  it('when no run of the base branch exists, then the comparison says there is no base and exits 0', () => {
    const compared = cli(['compare', '--run', run.id, '--base-branch', 'no-such-branch']);
    expect(compared.code).toBe(0);
    expect(compared.stdout).toContain(`Run #${run.counter} on feature/pay: no base to compare with (`);
    const json = cli(['compare', '--run', run.id, '--base-branch', 'no-such-branch', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ base: null, noBaseReason: expect.any(String) });
  });

  it('when the base cannot be told or does not exist, then exit 2 or exit 3 with Verdict’s answer', () => {
    expect(cli(['compare', '--run', run.id, '--base', baseRun.id, '--base-branch', 'main']).code).toBe(2);
    expect(cli(['compare', '--base', baseRun.id]).code).toBe(2);
    expect(cli(['summary', '--run', run.id, '--base', run.id]).code).toBe(2);
    const unknown = cli(['compare', '--run', run.id, '--base', 'no-such-run']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/\((400|404)\)/);
  });

  it('when a summary is asked for, then the Markdown holds the counts, each failure’s verdict and signature, the comparison and links', async () => {
    const summary = cli(['summary', '--run', run.id, '--base', baseRun.id]);
    expect(summary.code).toBe(0);
    const runUrl = `${verdict.url}/projects/${verdict.project}/runs/${run.id}`;
    expect(summary.stdout).toContain(`### ❌ Verdict run #${run.counter}`);
    expect(summary.stdout).toContain(`[Open run #${run.counter} in Verdict](${runUrl})`);
    const { passed, failed, flaky, skipped, total } = run.stats;
    expect(summary.stdout).toContain(`| ${passed} | ${failed} | ${flaky} | ${skipped} | ${total} |`);
    const { failures } = await client.getRun(run.id, { include: 'failures' });
    expect(failures?.items).toHaveLength(failed);
    for (const failure of failures?.items ?? []) {
      expect(summary.stdout).toContain(`| **${failure.verdict.replace(/-/g, ' ')}** | [`);
      expect(summary.stdout).toContain(`](${runUrl}/tests/${failure.testCaseId})`);
      if (failure.signature) expect(summary.stdout).toContain(failure.signature.id);
    }
    expect(summary.stdout).toContain(`Run #${run.counter} compared with run #${baseRun.counter} on \`main\``);
  });
});

describe('the command line itself', () => {
  it('when asked for help or a version, then it answers on stdout with exit 0; an unknown command or option is exit 2', () => {
    const help = cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes: 0 done');
    const version = cli(['--version']);
    const { version: expected } = JSON.parse(
      readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'),
    ) as {
      version: string;
    };
    expect(version.stdout.trim()).toBe(expected);
    expect(cli(['frobnicate']).code).toBe(2);
    const unknown = cli(['import', 'junit', 'x.xml', '--colour']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--colour'");
  });

  it('when Verdict is unreachable, then exit 3 says so', () => {
    const down = cli(['import', 'junit', path.join(junitDir, 'pytest-cart.xml')], {
      VERDICT_URL: 'http://127.0.0.1:9',
    });
    expect(down.code).toBe(3);
    expect(down.stderr).toContain('is unreachable');
  });
});

describe('the quality gate: verdict gate, and verdict run exiting by it', () => {
  const writesCart = (exitCode: number) => [
    process.execPath,
    '-e',
    `require('fs').mkdirSync('gated', { recursive: true }); require('fs').copyFileSync(${JSON.stringify(
      path.join(junitDir, 'pytest-cart.xml'),
    )}, 'gated/junit.xml'); process.exit(${exitCode});`,
  ];
  const quarantined: string[] = [];
  let failedRun = '';

  beforeAll(async () => {
    await client.setGateRules({ maxFailedTests: 0 });
  });

  afterAll(async () => {
    await client.setGateRules({});
    for (const id of quarantined) await client.liftQuarantine(id);
  });

  it('when the project has rules and the run breaks one, then verdict run exits 1 by the gate (not the command’s 4) and prints it', async () => {
    const ran = cli(['run', '--junit', 'gated/junit.xml', '--', ...writesCart(4)]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('Quality gate: FAILED');
    expect(ran.stderr).toMatch(/✗ maxFailedTests: [1-9]\d* \(threshold 0\)/);
    failedRun = runIdIn(ran.stdout);
    expect((await client.getRunGate(failedRun)).status).toBe('failed');
  });

  it('when verdict gate reads a failed run, then it prints each rule and exits 1', () => {
    const gate = cli(['gate', '--run', failedRun]);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toContain('Quality gate: FAILED');
    expect(gate.stdout).toContain('maxFailedTests');
  });

  it('when every failure is quarantined for its signature, then verdict run exits 0 by the gate though the command failed', async () => {
    const { failures } = await client.getRun(failedRun, { include: 'failures' });
    const members = await client.api.GET('/{projectId}/members', {
      params: { path: { projectId: verdict.project } },
    });
    const owner = members.data?.data[0]?.userId ?? '';
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    for (const failure of failures?.items ?? []) {
      const made = await client.quarantineTest({
        testCaseId: failure.testCaseId,
        reason: 'Cart service flakes in CI',
        ownerId: owner,
        expiresAt,
      });
      quarantined.push(made.id);
    }
    expect(quarantined.length).toBeGreaterThan(0);
    const ran = cli(['run', '--junit', 'gated/junit.xml', '--', ...writesCart(4)]);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain('Quality gate: PASSED');
    const passedRun = runIdIn(ran.stdout);
    const gate = cli(['gate', '--run', passedRun]);
    expect(gate.code).toBe(0);
    expect(gate.stdout).toContain('✓ maxFailedTests: 0 (threshold 0)');
  });

  it('when Verdict is unreachable, then verdict gate exits 3, or as --on-unreachable says', () => {
    const down = { VERDICT_URL: 'http://127.0.0.1:9' };
    expect(cli(['gate', '--run', failedRun], down).code).toBe(3);
    expect(cli(['gate', '--run', failedRun, '--on-unreachable', 'pass'], down).code).toBe(0);
    expect(cli(['gate', '--run', failedRun, '--on-unreachable', 'fail'], down).code).toBe(1);
  });

  it('when the run or the option is missing or wrong, then exit 2; an unknown run, exit 3', () => {
    expect(cli(['gate']).code).toBe(2);
    expect(cli(['gate', '--run', failedRun, '--on-unreachable', 'maybe']).code).toBe(2);
    expect(cli(['gate', '--run', failedRun, '--timeout', 'soon']).code).toBe(2);
    expect(cli(['gate', '--run', 'no-such-run']).code).toBe(3);
  });
});
