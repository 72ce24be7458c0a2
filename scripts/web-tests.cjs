// The web app's browser tests (web/tests, @playwright/test) as `npm test` runs them: Debian's Chromium
// installed first when missing (Playwright cannot download its own browsers here), the app built, then
// Playwright against a real `npm start` (web/tests/global-setup.ts). Resolves with the exit code and the
// counts, so the caller can add them to its summary line. The component tests (web/src/**/*.browser.test.tsx,
// Vitest's browser mode) run in the same Chromium. Plain CommonJS: run.cjs loads it early.
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { root, node22, log, run } = require('./lib.cjs');

const CHROMIUM = process.env.VERDICT_CHROMIUM || '/usr/bin/chromium';

/** Debian's chromium, installed with apt-get when missing (CI runs as root on a fresh machine). */
async function ensureChromium() {
  if (fs.existsSync(CHROMIUM)) return 0;
  log(`${CHROMIUM} is missing: installing Debian's chromium (apt-get install -y chromium)`);
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (...args) =>
    asRoot ? run('apt-get', args, { env }) : run('sudo', ['-n', 'apt-get', ...args], { env });
  let code = await apt('install', '-y', 'chromium');
  if (code !== 0) {
    // A fresh machine may have no package lists yet.
    code = await apt('update');
    if (code === 0) code = await apt('install', '-y', 'chromium');
  }
  if (code !== 0 || !fs.existsSync(CHROMIUM)) {
    log(
      'could not install chromium: install it (apt-get install -y chromium) or set VERDICT_CHROMIUM to a Chromium binary',
    );
    return code || 1;
  }
  return 0;
}

/** Playwright's JSON report: how many tests passed, failed and were skipped. */
function countsOf(reportFile) {
  if (!fs.existsSync(reportFile)) return null;
  const { stats } = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  return {
    passed: (stats.expected ?? 0) + (stats.flaky ?? 0),
    failed: stats.unexpected ?? 0,
    skipped: stats.skipped ?? 0,
  };
}

/** Runs the browser tests; `args` go to `playwright test` (a file, `-g pattern`…). */
async function runWebTests(args = []) {
  const installed = await ensureChromium();
  if (installed !== 0) return { code: installed, counts: null };
  const reportFile = path.join(os.tmpdir(), `verdict-web-tests-${process.pid}.json`);
  const cli = path.join(root, 'node_modules', '@playwright', 'test', 'cli.js');
  const started = Date.now();
  const code = await run(
    node22,
    [cli, 'test', '--config', path.join(root, 'web', 'playwright.config.ts'), ...args],
    {
      env: { ...process.env, VERDICT_WEB_TEST_REPORT: reportFile, VERDICT_CHROMIUM: CHROMIUM },
    },
  );
  const counts = countsOf(reportFile);
  fs.rmSync(reportFile, { force: true });
  log(`browser tests took ${Math.round((Date.now() - started) / 1000)} s`);
  return { code, counts };
}

/** Vitest's JSON report: how many tests passed, failed and were skipped (or left to do). */
function componentCountsOf(reportFile) {
  if (!fs.existsSync(reportFile)) return null;
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8'));
  return {
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

/**
 * Runs the component tests (the *.browser.test.tsx files of web/src, Vitest's browser mode in Chromium);
 * `args` go to `vitest run` (a file filter, `-t pattern`…). They need no server and no built app.
 */
async function runComponentTests(args = []) {
  const installed = await ensureChromium();
  if (installed !== 0) return { code: installed, counts: null };
  const reportFile = path.join(os.tmpdir(), `verdict-component-tests-${process.pid}.json`);
  const cli = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const started = Date.now();
  const code = await run(
    node22,
    [cli, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${reportFile}`, ...args],
    { cwd: path.join(root, 'web'), env: { ...process.env, VERDICT_CHROMIUM: CHROMIUM } },
  );
  const counts = componentCountsOf(reportFile);
  fs.rmSync(reportFile, { force: true });
  log(`component tests took ${Math.round((Date.now() - started) / 1000)} s`);
  return { code, counts };
}

module.exports = { runWebTests, runComponentTests, ensureChromium };
