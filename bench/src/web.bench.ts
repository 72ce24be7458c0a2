// The web app on a big run (issue 21): `npm start` as a newcomer runs it, a run of 20,000 results with
// 1,000 failing sent through @verdict/client, then Chromium opening the run page from a cold cache each
// time. Measured: first contentful paint, "failures listed" (navigation start to the first failure rows
// on screen) and the JavaScript the first page loads, as sent on the wire (compressed). Baselines from
// the same run: the API's answer of that run in the same browser (the data alone), and Playwright's own
// trace viewer served by the same gateway (a static app of the same kind) for paint and bytes.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createVerdictClient, type ResultItem } from '@verdict/client';
import { chromium, type Browser } from 'playwright-core';
import { repoRoot } from './processes';
import { percentile, type BenchRow } from './table';

const RESULTS = 20_000;
const FAILING = 1_000;
const FILES = 200;
const ERRORS = 25;
const SAMPLES = 5;
export const CHROMIUM = process.env.VERDICT_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface Embedded {
  url: string;
  token: string;
  projectId: string;
  /** Printed on the first start only (empty on a later one). */
  adminKey: string;
  stop(): Promise<void>;
}

/**
 * `npm start` on a free port with a data folder of its own (removed when stopped), or with `dataDir` (kept:
 * a second start on it resumes); resolves once its start is printed.
 */
export async function startEmbedded(dataDir?: string): Promise<Embedded> {
  const ownDir = dataDir ?? mkdtempSync(path.join(tmpdir(), 'verdict-web-bench-'));
  const { VERDICT_PUBLIC_URL: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, [path.join(repoRoot, 'scripts', 'run.cjs'), 'start'], {
    cwd: repoRoot,
    env: { ...env, PORT: '0', VERDICT_DATA_DIR: ownDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (dataDir === undefined) rmSync(ownDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 180_000;
  // The start prints one block, ending in a blank line; a first start adds the token and the admin key.
  while (!/Verdict is running \(embedded mode\)[^]*\n\n/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`npm start did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const find = (pattern: RegExp) => pattern.exec(output)?.[1] ?? '';
  return {
    url: find(/Verdict is running \(embedded mode\) at (http:\/\/localhost:\d+)/),
    token: find(/Token:\s+(svc_pat_\S+)/),
    projectId: find(/Project id:\s+(\S+)/),
    adminKey: find(/Admin key:\s+(\S+)/),
    stop,
  };
}

/** 20,000 results in 200 spec files; 1,000 of them fail with one of 25 errors (so 25 groups). */
function bigRun(): ResultItem[] {
  const startedAt = new Date().toISOString();
  return Array.from({ length: RESULTS }, (_, index) => {
    const file = `tests/area-${String(index % FILES).padStart(3, '0')}.spec.ts`;
    const failing = index % (RESULTS / FAILING) === 0;
    return {
      file,
      titlePath: [`area ${index % FILES}`, `behaves as specified #${index}`],
      project: 'chromium',
      attempt: 0,
      status: failing ? 'failed' : 'passed',
      durationMs: 50 + (index % 400),
      startedAt,
      ...(failing
        ? {
            error: {
              message: `Error: expectation ${index % ERRORS} failed\n\nExpected: "ok"\nReceived: "broken"`,
              stack: `Error: expectation ${index % ERRORS} failed\n    at ${file}:12:5`,
            },
          }
        : {}),
    };
  });
}

interface Navigation {
  fcp: number;
  listed: number;
  scriptBytes: number;
}

/**
 * Opens `url` in a fresh context (cold cache), signed in; measures, from the page itself (so no round trip
 * to the bench is counted), its first contentful paint and when `readySelector` first matches, and sums the
 * scripts' bytes as sent.
 */
async function navigate(
  browser: Browser,
  verdict: Embedded,
  url: string,
  readySelector: string,
): Promise<Navigation> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // The paint entries as Chromium reports them, kept by the page from its very start (a script: this file
  // is compiled for Node, without the DOM's types).
  await context.addInitScript({
    content: `new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') window.verdictFcp = entry.startTime;
    }).observe({ type: 'paint', buffered: true });
    new MutationObserver(() => {
      if (window.verdictReady === undefined && document.querySelector(${JSON.stringify(readySelector)})) window.verdictReady = performance.now();
    }).observe(document, { childList: true, subtree: true });`,
  });
  try {
    const page = await context.newPage();
    await page.request.post(`${verdict.url}/api/public/v1/session`, { data: { token: verdict.token } });
    const scripts: Promise<number>[] = [];
    page.on('requestfinished', (request) => {
      if (request.resourceType() === 'script')
        scripts.push(request.sizes().then((sizes) => sizes.responseBodySize));
    });
    await page.goto(url, { waitUntil: 'commit' });
    await page.locator(readySelector).first().waitFor();
    await page.waitForLoadState('networkidle');
    const listed = await page.evaluate<number>('window.verdictReady');
    const fcp = await page.evaluate<number>('window.verdictFcp ?? Number.NaN');
    const scriptBytes = (await Promise.all(scripts)).reduce((sum, size) => sum + size, 0);
    return { fcp, listed, scriptBytes };
  } finally {
    await context.close();
  }
}

const median = (values: number[]) => percentile(values, 50);

export async function benchWeb(): Promise<BenchRow[]> {
  const verdict = await startEmbedded();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const client = createVerdictClient({
      baseUrl: verdict.url,
      token: verdict.token,
      project: verdict.projectId,
    });
    const { run } = await client.startRun({ title: 'Bench: 20,000 results', branch: 'main' });
    await client.addResults(run.id, bigRun());
    await client.finishRun(run.id);
    // The run page reads the runs read model: wait until it holds every result.
    for (let seen = 0; seen < RESULTS;) {
      seen = (await client.getRun(run.id)).stats.total;
      if (seen < RESULTS) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const runPage = `${verdict.url}/projects/${verdict.projectId}/runs/${run.id}`;
    const apiUrl = `${verdict.url}/api/public/v1/${verdict.projectId}/test-runs/${run.id}?include=specs`;

    const app: Navigation[] = [];
    const data: number[] = [];
    const viewer: Navigation[] = [];
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      // Listed: the first failure group and its first tests are on screen.
      app.push(
        await navigate(browser, verdict, runPage, '[data-ready="failures"] [role="listitem"]:nth-child(6)'),
      );
      // The data alone: the same request the page makes, from a blank page of the same origin, timed by it.
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.request.post(`${verdict.url}/api/public/v1/session`, { data: { token: verdict.token } });
      await page.goto(`${verdict.url}/favicon.svg`);
      data.push(
        await page.evaluate(async (target) => {
          const started = performance.now();
          const body = (await (await fetch(target, { credentials: 'same-origin' })).json()) as {
            data: unknown;
          };
          if (!body.data) throw new Error('no run');
          return performance.now() - started;
        }, apiUrl),
      );
      await context.close();
      viewer.push(await navigate(browser, verdict, `${verdict.url}/trace-viewer/`, '#root > *'));
    }
    const listed = median(app.map((n) => n.listed));
    const kb = (bytes: number) => bytes / 1024;
    return [
      {
        name: `web: run page of ${RESULTS.toLocaleString('en-US')} results (${FAILING.toLocaleString('en-US')} failing) — failures listed, p50 of ${SAMPLES} cold loads (baseline: the API's answer of that run alone)`,
        unit: 'ms',
        ours: listed,
        baseline: median(data),
        target: 'under 1 s',
        met: listed < 1000,
      },
      {
        name: 'web: run page — first contentful paint, p50 (baseline: Playwright trace viewer, same server)',
        unit: 'ms',
        ours: median(app.map((n) => n.fcp)),
        baseline: median(viewer.map((n) => n.fcp)),
        target: 'reported',
        met: true,
      },
      {
        name: 'web: JavaScript of the first page, compressed on the wire (baseline: Playwright trace viewer)',
        unit: 'KB',
        ours: kb(median(app.map((n) => n.scriptBytes))),
        baseline: kb(median(viewer.map((n) => n.scriptBytes))),
        target: 'under 250 KB',
        met: median(app.map((n) => n.scriptBytes)) < 250 * 1024,
      },
    ];
  } finally {
    await browser.close();
    await verdict.stop();
  }
}
