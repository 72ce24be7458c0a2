// The reporters' cost, measured as users meet it.
// 1. Overhead: a Playwright suite of 2,000 fast tests (no browser) run with and without
//    @verdict/playwright-reporter, installed from its npm tarball into a scratch project, against
//    `npm start`; wall time of `playwright test`, the runs alternating, the median of each. Verdict runs
//    at nice 10: in CI it has a machine of its own, and here its ingest would otherwise take the test
//    workers' cores and be counted as the reporter's cost.
// 2. Throughput: 20,000 realistic results through the reporters' sender (batches of 200, the default,
//    one request at a time, as a reporter sends while tests run) into `npm start`, next to the same
//    results posted straight to the ingest API in batches of 1,000 (the API's own figure on that server).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createVerdictClient, type ResultItem } from '@verdict/client';
import { createRunSender } from '@verdict/client/reporting';
import { installedVersion, scratchProject, startVerdict } from '../../e2e/src/clients';
import type { BenchRow } from './table';

const TESTS = 2_000;
const ROUNDS = 5;
const RESULTS = 20_000;
const OVERHEAD_TARGET = 0.05;

const progress = (message: string) => process.stderr.write(`[bench] reporter: ${message}\n`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The suite: 2,000 tests that each check a little arithmetic, in 20 files, no browser. */
function writeSuite(dir: string, withReporter: boolean) {
  mkdirSync(path.join(dir, 'tests'), { recursive: true });
  for (let file = 0; file < 20; file += 1) {
    const tests = Array.from(
      { length: TESTS / 20 },
      (_, n) => `test('adds ${file}-${n}', () => { expect(${n} + 1).toBe(${n + 1}); });`,
    );
    writeFileSync(
      path.join(dir, 'tests', `area-${file}.pw.ts`),
      `import { expect, test } from '@playwright/test';\n\n${tests.join('\n')}\n`,
    );
  }
  writeFileSync(
    path.join(dir, `playwright.${withReporter ? 'verdict' : 'plain'}.config.ts`),
    `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: 'tests',
  testMatch: '**/*.pw.ts',
  workers: 2,
  reporter: [['dot']${withReporter ? ", ['@verdict/playwright-reporter']" : ''}],
});
`,
  );
}

function result(index: number): ResultItem {
  const failed = index % 10 === 0;
  return {
    file: `tests/area-${index % 50}/feature-${index % 400}.spec.ts`,
    titlePath: [`Area ${index % 50}`, `feature ${index % 400}`, `test ${index}`],
    project: ['chromium', 'firefox', 'webkit'][index % 3],
    attempt: 0,
    status: failed ? 'failed' : 'passed',
    durationMs: 150 + ((index * 37) % 3_000),
    startedAt: new Date(Date.UTC(2026, 10, 1, 9) + index * 40).toISOString(),
    steps: Array.from({ length: 5 }, (_, step) => ({
      title: `step ${step}`,
      category: 'pw:api',
      durationMs: 20,
    })),
    stdout: [`line ${index}\n`],
    ...(failed ? { error: { message: `Error: expected ${index}, received ${index + 1}` } } : {}),
  };
}

export async function benchReporter(): Promise<BenchRow[]> {
  const verdict = await startVerdict({ nice: 10 });
  const scratch = scratchProject(
    'verdict-reporter-bench-',
    ['client', 'playwright-reporter'],
    [`@playwright/test@${installedVersion('@playwright/test')}`],
  );
  try {
    writeSuite(scratch, false);
    writeSuite(scratch, true);
    const { JEST_WORKER_ID: _worker, ...env } = process.env;
    const run = (config: string, round: number) => {
      const started = process.hrtime.bigint();
      const ran = spawnSync(
        process.execPath,
        [path.join(scratch, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--config', config],
        {
          cwd: scratch,
          encoding: 'utf8',
          env: {
            ...env,
            VERDICT_URL: verdict.url,
            VERDICT_TOKEN: verdict.token,
            VERDICT_PROJECT: verdict.project,
            VERDICT_CI_RUN_ID: `bench-${config}-${round}`,
          },
        },
      );
      if (ran.status !== 0)
        throw new Error(`playwright test --config ${config} failed:\n${ran.stdout}${ran.stderr}`);
      return Number(process.hrtime.bigint() - started) / 1e9;
    };
    // One run of each first, not counted: Playwright's first transpile of the suite is cached after it.
    run('playwright.plain.config.ts', 0);
    run('playwright.verdict.config.ts', 0);
    const plain: number[] = [];
    const reported: number[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      plain.push(run('playwright.plain.config.ts', round));
      reported.push(run('playwright.verdict.config.ts', round));
      progress(
        `round ${round}: ${plain.at(-1)?.toFixed(2)} s without, ${reported.at(-1)?.toFixed(2)} s with`,
      );
    }

    const client = createVerdictClient({
      baseUrl: verdict.url,
      token: verdict.token,
      project: verdict.project,
    });
    const items = Array.from({ length: RESULTS }, (_, index) => result(index));
    const { run: direct } = await client.startRun({ ciRunId: 'bench-direct' });
    let started = process.hrtime.bigint();
    await client.addResults(direct.id, items);
    await client.finishRun(direct.id);
    const directSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    progress(`API directly: ${RESULTS} results in ${directSeconds.toFixed(2)} s`);

    const lines: string[] = [];
    const sender = createRunSender({
      client,
      baseUrl: verdict.url,
      project: verdict.project,
      start: { ciRunId: 'bench-sender' },
      batchSize: 200,
      flushIntervalMs: 1_000,
      spoolDir: path.join(scratch, 'spool'),
      log: (line) => lines.push(line),
    });
    started = process.hrtime.bigint();
    for (const item of items) sender.add(item);
    const outcome = await sender.finish({}, 600_000);
    const senderSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (outcome.accepted !== RESULTS)
      throw new Error(`the sender recorded ${outcome.accepted}: ${lines.join('; ')}`);
    progress(`sender: ${RESULTS} results in ${senderSeconds.toFixed(2)} s`);

    const overhead = median(reported) / median(plain) - 1;
    return [
      {
        name: `Playwright, ${TESTS.toLocaleString('en-US')} fast tests: wall time with the reporter (baseline: without; Verdict at nice 10)`,
        unit: 's',
        ours: median(reported),
        baseline: median(plain),
        target: `< ${OVERHEAD_TARGET * 100}% more than without`,
        met: overhead < OVERHEAD_TARGET,
      },
      {
        name: `reporter sender into npm start, ${RESULTS.toLocaleString('en-US')} results (baseline: the ingest API directly)`,
        unit: 'results/s',
        ours: RESULTS / senderSeconds,
        baseline: RESULTS / directSeconds,
        target: 'within 80% of the API',
        met: directSeconds / senderSeconds >= 0.8,
      },
    ];
  } finally {
    await verdict.stop();
    rmSync(scratch, { recursive: true, force: true });
    rmSync(verdict.dataDir, { recursive: true, force: true });
  }
}
