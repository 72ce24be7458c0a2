import { ResultItem, resultKey } from '@verdict/contracts';
import {
  createInProcessBus,
  INTERNAL_IDENTITY_HEADER,
  mintInternalToken,
  newSecret,
  ValidationError,
} from '@verdict/platform';
import { createTestPGlite } from '@verdict/platform/testing/databases';
import { spawn } from 'node:child_process';
import type { Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestResultsModule } from '../module';
import { serveOverHttp, testModule } from '../testing';
import { parseJUnitXml } from './junit';
import type { PlaywrightImport } from './playwright';
import { parsePlaywrightReport } from './playwright';

// Runs the real Playwright suite in fixtures/playwright-suite once (json + two junit reporters) and
// imports what Playwright wrote. Two projects × six tests, retries: 1.
const suiteDir = path.join(__dirname, 'fixtures', 'playwright-suite');
const playwrightVersion = (
  JSON.parse(readFileSync(require.resolve('@playwright/test/package.json'), 'utf8')) as {
    version: string;
  }
).version;

let reportDir: string;
let exitCode: number | null;
let rawReport: unknown;
let imported: PlaywrightImport;

beforeAll(async () => {
  reportDir = mkdtempSync(path.join(os.tmpdir(), 'verdict-playwright-'));
  exitCode = await runPlaywright(reportDir);
  rawReport = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8'));
  imported = parsePlaywrightReport(rawReport);
}, 180_000);

afterAll(() => {
  rmSync(reportDir, { recursive: true, force: true });
});

function runPlaywright(outputDir: string): Promise<number | null> {
  // Playwright refuses to run when it believes it is inside a Jest worker.
  const { JEST_WORKER_ID: _jestWorker, ...env } = process.env;
  const cli = require.resolve('@playwright/test/cli');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'test'], {
      cwd: suiteDir,
      env: { ...env, VERDICT_PLAYWRIGHT_REPORT_DIR: outputDir },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

function itemsOf(titlePath: string[], project = 'chromium'): ResultItem[] {
  return imported.results
    .filter(
      (item) => item.project === project && JSON.stringify(item.titlePath) === JSON.stringify(titlePath),
    )
    .sort((a, b) => a.attempt - b.attempt);
}

function countByStatus(items: ResultItem[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item.status] = (counts[item.status] ?? 0) + 1;
  return counts;
}

interface MutableSuite {
  specs: { tests: { results: Record<string, unknown>[] }[] }[];
  suites?: MutableSuite[];
}

/** A deep copy of the report, and its first test (in notes.pw.ts, whose specs sit at the top). */
function copyWithFirstTest(report: unknown): { copy: unknown; test: { results: Record<string, unknown>[] } } {
  const copy = structuredClone(report) as { suites: MutableSuite[] };
  const test = copy.suites.flatMap((suite) => suite.specs)[0]?.tests[0];
  if (test === undefined) throw new Error('The report has no test at the top of a file');
  return { copy, test };
}

function withFirstResult(report: unknown, change: (result: Record<string, unknown>) => void): unknown {
  const { copy, test } = copyWithFirstTest(report);
  const [result] = test.results;
  if (result === undefined) throw new Error('The first test has no result');
  change(result);
  return copy;
}

describe('Playwright JSON report', () => {
  test('when the suite ran, then Playwright exited with failures and wrote its reports', () => {
    expect(exitCode).toBe(1);
    expect(imported.results.length).toBeGreaterThan(0);
  });

  test('when the report is imported, then every item is a valid result item', () => {
    for (const item of imported.results) expect(ResultItem.parse(item)).toEqual(item);
  });

  test('when the report is imported, then the run carries Playwright, its version, start and duration', () => {
    expect(imported.run.framework).toEqual({ name: 'playwright', version: playwrightVersion });
    expect(imported.run.startedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(imported.run.durationMs).toBeGreaterThan(0);
    expect(imported.run.shard).toBeUndefined();
  });

  test('when the report is imported, then there is one item per attempt of each test in each project', () => {
    expect(imported.results).toHaveLength(18);
    expect(countByStatus(imported.results)).toEqual({ passed: 6, failed: 6, timedOut: 4, skipped: 2 });
    expect(new Set(imported.results.map((item) => item.project))).toEqual(new Set(['chromium', 'firefox']));
    expect(new Set(imported.results.map(resultKey)).size).toBe(18);
  });

  test('when a test logs and annotates itself, then its item has file, titlePath, location, output, annotation and tag', () => {
    for (const project of ['chromium', 'firefox']) {
      const [item, ...others] = itemsOf(['cart', 'totals', 'adds line items'], project);
      expect(others).toHaveLength(0);
      expect(item).toMatchObject({
        file: 'cart.pw.ts',
        project,
        attempt: 0,
        status: 'passed',
        expectedStatus: 'passed',
        stdout: ['cart total computed\n'],
        annotations: [{ type: 'issue', description: 'VER-123' }],
        tags: ['@smoke'],
        location: { file: 'cart.pw.ts', line: 10, column: 5 },
      });
      expect(item?.error).toBeUndefined();
    }
  });

  test('when a test nests test.step calls, then its steps nest the same way', () => {
    const [item] = itemsOf(['cart', 'totals', 'adds line items']);
    expect(item?.steps).toEqual([
      {
        title: 'add items',
        category: 'test.step',
        durationMs: expect.any(Number),
        steps: [{ title: 'add an apple', category: 'test.step', durationMs: expect.any(Number) }],
      },
    ]);
  });

  test('when an expect fails inside a step, then both attempts failed with a clean message, stack, snippet and location', () => {
    const attempts = itemsOf(['cart', 'totals', 'applies a discount']);
    expect(attempts.map((item) => [item.attempt, item.status])).toEqual([
      [0, 'failed'],
      [1, 'failed'],
    ]);
    const error = attempts[0]?.error;
    expect(error?.message).toBe(
      'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 180\nReceived: 190',
    );
    expect(error?.stack).toContain('cart.pw.ts:22:44');
    expect(error?.snippet).toContain('> 22 |         expect(totalWithDiscount(200, 10)).toBe(180);');
    expect(error?.location).toEqual({ file: 'cart.pw.ts', line: 22, column: 44 });
    expect(JSON.stringify(attempts)).not.toContain('\u001b[');
    expect(attempts[0]?.steps?.[0]).toMatchObject({
      title: 'apply the code SAVE10',
      error: { message: error?.message },
    });
  });

  test('when a test fails on its first try and passes on retry, then attempt 0 failed and attempt 1 passed', () => {
    for (const project of ['chromium', 'firefox']) {
      const attempts = itemsOf(['cart', 'is flaky at first'], project);
      expect(attempts.map((item) => [item.attempt, item.status, item.stderr])).toEqual([
        [0, 'failed', ['attempt 0\n']],
        [1, 'passed', ['attempt 1\n']],
      ]);
      expect(attempts[0]?.error?.message).toContain('fails on the first try only');
      expect(attempts[1]?.error).toBeUndefined();
      expect(attempts[0]?.tags).toEqual(['@smoke', '@flaky']);
    }
  });

  test('when a test is skipped, then it is one skipped attempt that was expected to skip', () => {
    const attempts = itemsOf(['cart', 'is not written yet']);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({
      attempt: 0,
      status: 'skipped',
      expectedStatus: 'skipped',
      durationMs: 0,
      annotations: [{ type: 'skip' }],
    });
  });

  test('when a test exceeds its timeout, then each attempt is timedOut with the timeout message', () => {
    const attempts = itemsOf(['runs out of time']);
    expect(attempts.map((item) => item.status)).toEqual(['timedOut', 'timedOut']);
    expect(attempts[0]?.error?.message).toBe('Test timeout of 200ms exceeded.');
    expect(attempts[0]?.durationMs).toBeGreaterThanOrEqual(150);
  });

  test('when a test attaches a body, then the attachment comes back pending with its result and base64 body', () => {
    const [note] = itemsOf(['attaches a note']);
    const noteIndex = imported.results.indexOf(note as ResultItem);
    expect(imported.attachments).toContainEqual({
      resultIndex: noteIndex,
      name: 'note',
      contentType: 'text/plain',
      body: Buffer.from('x').toString('base64'),
    });
    const errorContexts = imported.attachments.filter((attachment) => attachment.name === 'error-context');
    expect(errorContexts.length).toBeGreaterThan(0);
    for (const attachment of errorContexts) {
      expect(attachment.path).toContain(reportDir);
      expect(imported.results[attachment.resultIndex]?.status).not.toBe('passed');
    }
    expect(imported.results.some((item) => item.attachments !== undefined)).toBe(false);
  });

  test('when a stdout chunk is a base64 buffer, then it is decoded to text', () => {
    const report = withFirstResult(rawReport, (result) => {
      result.stdout = [{ buffer: Buffer.from('bytes from a buffer\n').toString('base64') }];
    });
    const note = parsePlaywrightReport(report).results.find(
      (item) => item.titlePath.join() === 'attaches a note' && item.project === 'chromium',
    );
    expect(note?.stdout).toEqual(['bytes from a buffer\n']);
  });

  test('when annotations are on the test and on its attempt, then the item has both, each once', () => {
    const { copy, test } = copyWithFirstTest(rawReport);
    Object.assign(test, {
      annotations: [
        { type: 'issue', description: 'BUG-77' },
        { type: 'issue', description: 'BUG-78' },
      ],
    });
    for (const result of test.results) result.annotations = [{ type: 'issue', description: 'BUG-78' }];
    const annotated = parsePlaywrightReport(copy).results.filter((item) =>
      item.annotations?.some((annotation) => annotation.description === 'BUG-77'),
    );
    expect(annotated).toHaveLength(test.results.length);
    expect(annotated[0]?.annotations).toEqual([
      { type: 'issue', description: 'BUG-77' },
      { type: 'issue', description: 'BUG-78' },
    ]);
  });

  test('when a stdout buffer holds a NUL or bytes that are not UTF-8, then they are U+FFFD, which PostgreSQL can store', () => {
    const report = withFirstResult(rawReport, (result) => {
      result.stdout = [{ buffer: Buffer.from([0x61, 0x00, 0x62, 0xff, 0x0a]).toString('base64') }];
    });
    const note = parsePlaywrightReport(report).results.find(
      (item) => item.titlePath.join() === 'attaches a note' && item.project === 'chromium',
    );
    expect(note?.stdout).toEqual(['a\uFFFDb\uFFFD\n']);
  });

  test('when a test never ran, then it is one skipped attempt at the start of the run', () => {
    const { copy, test } = copyWithFirstTest(rawReport);
    test.results = [];
    const { run, results } = parsePlaywrightReport(copy);
    const neverRan = results.filter(
      (item) => item.titlePath.join() === 'attaches a note' && item.project === 'chromium',
    );
    expect(neverRan).toEqual([
      expect.objectContaining({ attempt: 0, status: 'skipped', durationMs: 0, startedAt: run.startedAt }),
    ]);
    expect(results).toHaveLength(18);
  });

  test('when the document is not a Playwright report, then a ValidationError names what is wrong', () => {
    expect(() => parsePlaywrightReport('<testsuites/>')).toThrow(ValidationError);
    expect(() => parsePlaywrightReport({ config: {}, stats: {} })).toThrow(
      /Not a Playwright JSON report: .*suites/,
    );
    const badStart = withFirstResult(rawReport, (result) => {
      result.startTime = 'yesterday';
    });
    expect(() => parsePlaywrightReport(badStart)).toThrow(
      /suites\[1\]\.specs\[0\]\.tests\[0\]\.results\[0\]\.startTime/,
    );
    // Describe blocks nested deeper than a parser can follow: refused, not a stack overflow.
    let suite: Record<string, unknown> = { title: 'deepest', specs: [] };
    for (let depth = 0; depth < 20_000; depth += 1)
      suite = { title: `d${depth}`, specs: [], suites: [suite] };
    expect(() => parsePlaywrightReport({ ...(rawReport as object), suites: [suite] })).toThrow(
      /Not a Playwright JSON report: \(document\): is nested too deeply/,
    );
  });

  test('when the report has fields this importer does not know, then they are ignored', () => {
    const report = withFirstResult(rawReport, (result) => {
      result.somethingNew = { nested: true };
    });
    expect(parsePlaywrightReport(report).results).toEqual(imported.results);
  });
});

describe("Playwright's JUnit reports of the same run", () => {
  function readReport(name: string): string {
    return readFileSync(path.join(reportDir, name), 'utf8');
  }

  test('when the default junit report is imported, then it yields one valid item per test and project, named as in the JSON import', () => {
    const { dialect, results, run } = parseJUnitXml(readReport('junit.xml'));
    expect(dialect).toBe('playwright');
    expect(run.framework).toEqual({ name: 'playwright' });
    for (const item of results) expect(ResultItem.parse(item)).toEqual(item);
    expect(results).toHaveLength(12);
    const firstAttempts = imported.results.filter((item) => item.attempt === 0).map(resultKey);
    expect(new Set(results.map(resultKey))).toEqual(new Set(firstAttempts));
    // Without includeRetries, a retried test is a single testcase with its final outcome.
    expect(countByStatus(results)).toEqual({ passed: 6, failed: 4, skipped: 2 });
  });

  test('when the junit report is imported, then failures keep their message and stack and output is kept', () => {
    const { results } = parseJUnitXml(readReport('junit.xml'));
    const discount = results.find(
      (item) => item.titlePath.join(' › ') === 'cart › totals › applies a discount',
    );
    expect(discount?.error?.message).toBe('expect(received).toBe(expected) // Object.is equality');
    expect(discount?.error?.stack).toContain('Retry #1');
    const logging = results.find((item) => item.titlePath.at(-1) === 'adds line items');
    expect(logging).toMatchObject({
      file: 'cart.pw.ts',
      stdout: ['cart total computed\n'],
      annotations: [{ type: 'issue', description: 'VER-123' }],
    });
  });

  test('when the junit report with retries is imported, then its attempts are exactly those of the JSON import', () => {
    const { results } = parseJUnitXml(readReport('junit-with-retries.xml'));
    for (const item of results) expect(ResultItem.parse(item)).toEqual(item);
    expect(new Set(results.map(resultKey))).toEqual(new Set(imported.results.map(resultKey)));
    const flaky = results
      .filter((item) => item.project === 'firefox' && item.titlePath.at(-1) === 'is flaky at first')
      .sort((a, b) => a.attempt - b.attempt);
    expect(flaky.map((item) => [item.attempt, item.status, item.stderr])).toEqual([
      [0, 'failed', ['attempt 0\n']],
      [1, 'passed', ['attempt 1\n']],
    ]);
    expect(flaky[0]?.error?.message).toBe('fails on the first try only');
  });
});

describe('the real report through the import route', () => {
  const secret = newSecret(32);
  let module: TestResultsModule;
  let server: Server;
  let base: string;
  let blobDir: string;
  const bus = createInProcessBus();

  beforeAll(async () => {
    blobDir = mkdtempSync(path.join(os.tmpdir(), 'verdict-blobs-'));
    module = testModule({ db: await createTestPGlite(), bus, blobDir }, { internalSecret: secret });
    await module.start();
    ({ server, base } = await serveOverHttp(module));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await module.stop();
    await bus.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  const identity = () =>
    mintInternalToken(
      {
        organizationId: 'o',
        projectId: 'p1',
        userId: 'u',
        role: 'member',
        scopes: ['public-api'],
        tokenId: 't',
      },
      { secret },
    );

  test('when Playwright’s JSON report is posted, then 201 with a finished run whose detail counts every test once with its outcome', async () => {
    const answer = await fetch(`${base}/p1/imports/playwright?branch=main&environment=ci`, {
      method: 'POST',
      headers: { [INTERNAL_IDENTITY_HEADER]: identity(), 'content-type': 'application/json' },
      body: JSON.stringify(rawReport),
    });
    expect(answer.status).toBe(201);
    const run = ((await answer.json()) as { data: { id: string; status: string; branch: string } }).data;
    expect(run).toMatchObject({ status: 'finished', branch: 'main' });

    const tests = new Set(
      imported.results.map((item) => `${item.project} ${item.file} ${item.titlePath.join('>')}`),
    );
    let detail:
      { stats: Record<string, number>; status: string; framework: { name: string } | null } | undefined;
    for (let tries = 0; tries < 200 && detail?.stats.total !== tests.size; tries += 1) {
      const read = await fetch(`${base}/p1/test-runs/${run.id}`, {
        headers: { [INTERNAL_IDENTITY_HEADER]: identity() },
      });
      if (read.status === 200) detail = ((await read.json()) as { data: NonNullable<typeof detail> }).data;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(detail?.stats.total).toBe(tests.size);
    expect(detail?.status).toBe('finished');
    expect(detail?.framework?.name).toBe('playwright');
    // The suite has a test that passes on retry, one that always fails, one skipped, one timing out.
    expect(detail?.stats.flaky).toBe(2);
    expect(detail?.stats.failed).toBeGreaterThanOrEqual(2);
    expect(detail?.stats.skipped).toBeGreaterThanOrEqual(2);
  });
});
