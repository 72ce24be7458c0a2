/**
 * The runs the browser tests look at, sent the way a reporter sends them: through @verdict/client (start,
 * upload artifacts, add results, finish). Three runs of one small suite on two platforms, so that one test
 * has a history: passed, then flaky, then failed with its error, steps, output, screenshot, video and trace.
 */
import { readFileSync } from 'node:fs';
import type { ResultItem, VerdictClient } from '@verdict/client';
import type { Artifacts } from './artifacts';

const CHECKOUT = 'tests/checkout.spec.ts';
const CART = 'tests/cart.spec.ts';
const SEARCH = 'tests/search.spec.ts';

export const FAILING = { file: CHECKOUT, titlePath: ['checkout', 'pays with a card'], project: 'chromium' };
export const FAILING_MESSAGE = 'Error: expect(locator).toHaveText(expected) failed';

const PLATFORMS = ['chromium', 'firefox'] as const;

type Status = ResultItem['status'];

function result(
  file: string,
  titlePath: string[],
  project: string,
  status: Status,
  extra: Partial<ResultItem> = {},
): ResultItem {
  return {
    file,
    titlePath,
    project,
    attempt: 0,
    status,
    durationMs: 300 + Math.round(Math.random() * 900),
    startedAt: new Date().toISOString(),
    location: { file, line: 12, column: 3 },
    ...extra,
  };
}

/** The tests every run has, passing, on both platforms. */
function passingSuite(except: string[][] = []): ResultItem[] {
  const tests: [string, string[]][] = [
    [CART, ['cart', 'adds an item']],
    [CART, ['cart', 'removes an item']],
    [CART, ['cart', 'keeps the cart after a reload']],
    [SEARCH, ['search', 'finds a product by name']],
    [SEARCH, ['search', 'suggests while typing']],
    [CHECKOUT, ['checkout', 'pays with a card']],
    [CHECKOUT, ['checkout', 'applies a discount code']],
  ];
  return tests
    .filter(([, titlePath]) => !except.some((other) => other.join('/') === titlePath.join('/')))
    .flatMap(([file, titlePath]) => PLATFORMS.map((project) => result(file, titlePath, project, 'passed')));
}

const failedSteps = (message: string) => [
  {
    title: 'Before Hooks',
    category: 'hook',
    durationMs: 120,
    steps: [{ title: 'Create page', category: 'pw:api', durationMs: 80 }],
  },
  {
    title: "Navigate to '/checkout'",
    category: 'pw:api',
    durationMs: 240,
    location: { file: CHECKOUT, line: 8, column: 5 },
  },
  {
    title: "Click getByRole('button', { name: 'Pay' })",
    category: 'pw:api',
    durationMs: 90,
    location: { file: CHECKOUT, line: 10, column: 5 },
  },
  {
    title: "Expect getByRole('status') toHaveText 'Paid'",
    category: 'expect',
    durationMs: 5000,
    location: { file: CHECKOUT, line: 11, column: 5 },
    error: { message },
  },
  {
    title: 'After Hooks',
    category: 'hook',
    durationMs: 60,
    steps: [{ title: 'Screenshot', category: 'pw:api', durationMs: 40 }],
  },
];

const paymentError = (attempt: number) => ({
  message: `${FAILING_MESSAGE}\n\nLocator: getByRole('status')\nExpected string: "Paid"\nReceived string: "Card declined"${attempt ? '' : '\nTimeout: 5000ms'}`,
  stack: `${FAILING_MESSAGE}\n    at /repo/${CHECKOUT}:11:38\n    at runTest (/repo/node_modules/playwright/lib/worker.js:420:11)`,
  snippet: `   9 |   await page.goto('/checkout');\n  10 |   await page.getByRole('button', { name: 'Pay' }).click();\n> 11 |   await expect(page.getByRole('status')).toHaveText('Paid');\n     |                                          ^\n  12 | });`,
  location: { file: CHECKOUT, line: 11, column: 42 },
});

export interface FixtureRuns {
  /** Oldest first: passed, flaky, failed. */
  runIds: string[];
  failedRunId: string;
}

/** Sends the three runs; returns their ids. */
export async function ingestFixtureRuns(verdict: VerdictClient, artifacts: Artifacts): Promise<FixtureRuns> {
  const commit = (n: number) => ({
    sha: `${n}f3c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3`,
    message: `Checkout: step ${n}`,
    author: 'Dana',
  });
  const ci = (n: number) => ({
    provider: 'github',
    buildId: `1200${n}`,
    url: `https://ci.example.com/builds/1200${n}`,
  });

  // Run 1: everything passes.
  const first = (
    await verdict.startRun({
      title: 'Nightly',
      branch: 'main',
      environment: 'staging',
      commit: commit(1),
      ci: ci(1),
      framework: { name: 'playwright', version: '1.65.1' },
    })
  ).run;
  await verdict.addResults(first.id, passingSuite());
  await verdict.finishRun(first.id, { status: 'passed' });

  // Run 2: the payment test is flaky on chromium (fails, then passes on its retry).
  const second = (
    await verdict.startRun({
      title: 'Nightly',
      branch: 'main',
      environment: 'staging',
      commit: commit(2),
      ci: ci(2),
      framework: { name: 'playwright', version: '1.65.1' },
    })
  ).run;
  await verdict.addResults(second.id, [
    ...passingSuite([FAILING.titlePath]),
    result(CHECKOUT, FAILING.titlePath, 'chromium', 'failed', { error: paymentError(0) }),
    result(CHECKOUT, FAILING.titlePath, 'chromium', 'passed', { attempt: 1 }),
    result(CHECKOUT, FAILING.titlePath, 'firefox', 'passed'),
  ]);
  await verdict.finishRun(second.id, { status: 'passed' });

  // Run 3: it fails on chromium, on both attempts, with everything a debugging person looks at. It comes
  // in two shards of one CI build, as a sharded Playwright run reports it.
  const pullRequest = {
    title: 'Pull request #87',
    ciRunId: 'build-12003',
    branch: 'feature/pay',
    environment: 'staging',
    commit: commit(3),
    ci: ci(3),
    framework: { name: 'playwright', version: '1.65.1' },
  };
  const third = (await verdict.startRun({ ...pullRequest, shard: { current: 1, total: 2 } })).run;
  const joined = (await verdict.startRun({ ...pullRequest, shard: { current: 2, total: 2 } })).run;
  if (joined.id !== third.id) throw new Error('the two shards of one CI build made two runs');
  const upload = (file: string, contentType: string, name: string) =>
    verdict.uploadArtifact(third.id, { data: readFileSync(file), contentType, name });
  const [trace, screenshot, video] = await Promise.all([
    upload(artifacts.trace, 'application/zip', 'trace.zip'),
    upload(artifacts.screenshot, 'image/png', 'checkout-failed.png'),
    upload(artifacts.video, 'video/webm', 'video.webm'),
  ]);
  const attachments = [
    { name: 'trace', contentType: 'application/zip', artifactId: trace.id },
    { name: 'screenshot', contentType: 'image/png', artifactId: screenshot.id },
    { name: 'video', contentType: 'video/webm', artifactId: video.id },
  ];
  const failingAttempt = (attempt: number): ResultItem =>
    result(CHECKOUT, FAILING.titlePath, 'chromium', 'failed', {
      attempt,
      error: paymentError(attempt),
      steps: failedSteps(FAILING_MESSAGE),
      stdout: ['Opening /checkout\n', `Paying €42.00 (attempt ${attempt + 1})\n`],
      stderr: ['payment gateway answered 402\n'],
      ...(attempt === 1 ? { attachments } : {}),
    });
  const timeout = {
    message:
      "TimeoutError: locator.fill: Timeout 5000ms exceeded.\nCall log:\n  - waiting for getByRole('searchbox')",
    stack: `TimeoutError: locator.fill: Timeout 5000ms exceeded.\n    at /repo/${SEARCH}:9:30`,
    location: { file: SEARCH, line: 9, column: 30 },
  };
  await verdict.addResults(third.id, [
    ...passingSuite([
      FAILING.titlePath,
      ['checkout', 'applies a discount code'],
      ['search', 'suggests while typing'],
    ]),
    failingAttempt(0),
    failingAttempt(1),
    // Names manual case TC-1 (the manual fixture's first case): its editor lists this test.
    result(CHECKOUT, FAILING.titlePath, 'firefox', 'passed', { tags: ['@TC-1'] }),
    result(CHECKOUT, ['checkout', 'applies a discount code'], 'chromium', 'failed', {
      error: paymentError(1),
    }),
    result(CHECKOUT, ['checkout', 'applies a discount code'], 'firefox', 'passed'),
    result(SEARCH, ['search', 'suggests while typing'], 'chromium', 'failed', { error: timeout }),
    result(SEARCH, ['search', 'suggests while typing'], 'firefox', 'skipped'),
  ]);
  await verdict.finishRun(third.id, { shard: { current: 1, total: 2 }, status: 'failed' });
  await verdict.finishRun(third.id, { shard: { current: 2, total: 2 }, status: 'passed' });
  return { runIds: [first.id, second.id, third.id], failedRunId: third.id };
}
