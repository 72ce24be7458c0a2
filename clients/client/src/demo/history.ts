/**
 * The demo history: about 30 days of Playwright runs of an online shop on `main` and two branches, with
 * the stories Verdict's pages are made to tell — flaky tests that pass on their retry, a regression that
 * one commit on `main` introduced, recurring errors whose messages differ only in their numbers and ids,
 * a spec that became twice as slow, and a branch-only failure. Pure and deterministic: the same `now` and
 * seed give the same runs, and a run's content depends only on its own id, never on the window around it.
 */
import type { ResultItem, StartRunBody } from '../types';
import { DEMO_AUTHORS, DEMO_COMMIT_MESSAGES, DEMO_SPECS } from './catalog';

export interface DemoRun {
  /** The run's `ciRunId`: loading the same run again joins it instead of making a second one. */
  ciRunId: string;
  start: StartRunBody & { ciRunId: string; branch: string; startedAt: string };
  results: ResultItem[];
  finishedAt: string;
}

export interface DemoTestRef {
  file: string;
  titlePath: string[];
}

/** What the history was made to show, for the tests and for whoever wants to look for it. */
export interface DemoStory {
  mainBranch: 'main';
  branches: string[];
  /** The test that passed on `main` until `commit` and fails in every run from then on. */
  regression: DemoTestRef & { commit: { sha: string; message: string; author: string }; ciRunId: string };
  /** Tests that fail now and then and pass on their retry. */
  flaky: DemoTestRef[];
  /** The spec whose durations doubled, and the first day (UTC, YYYY-MM-DD) they did. */
  slowdown: { file: string; from: string };
  /** The failure of `feature/checkout-v2` that `main` never had. */
  branchFailure: DemoTestRef & { branch: string };
}

export interface DemoHistory {
  runs: DemoRun[];
  story: DemoStory;
}

export interface DemoHistoryOptions {
  /** The end of the history: no run starts or finishes after it. */
  now: Date;
  /** Days of history: runs start in the `days` × 24 hours before `now` (default 30). */
  days?: number;
  /** At most this many tests of each spec file (default: all, 64 tests in 10 files). */
  testsPerSpec?: number;
  /** Changes every random choice (default 1). */
  seed?: number;
}

const DAY_MS = 86_400_000;
const MAIN = 'main';
const CHECKOUT_BRANCH = 'feature/checkout-v2';
const LOGIN_BRANCH = 'fix/login-timeout';
const REPO = '/home/runner/work/shop/shop';

const ref = (file: string, describe: string, title: string): DemoTestRef => ({
  file,
  titlePath: [describe, title],
});
const REGRESSION = ref('tests/cart/cart.spec.ts', 'Cart', 'applies a 10% discount code');
const FLAKY_LOGIN = ref('tests/auth/login.spec.ts', 'Login', 'redirects to the page asked for after sign-in');
const FLAKY_SUGGEST = ref('tests/catalog/search.spec.ts', 'Search', 'suggests products while typing');
const FLAKY_ZOOM = ref('tests/catalog/product-page.spec.ts', 'Product page', 'zooms the product image');
const RESERVE = ref('tests/api/inventory.api.spec.ts', 'Inventory API', 'reserves stock for a cart');
const INVOICE = ref('tests/account/orders.spec.ts', 'Order history', 'downloads an invoice as PDF');
const SAVED_CARD = ref('tests/checkout/payment.spec.ts', 'Payment', 'pays with a saved card');
const EXPRESS = ref('tests/checkout/checkout.spec.ts', 'Checkout', 'offers express delivery');
const APPLE_PAY = ref('tests/checkout/payment.spec.ts', 'Payment', 'pays with Apple Pay');
const SLOW_FILE = 'tests/catalog/search.spec.ts';
const REGRESSION_COMMIT = {
  message: 'Compute cart totals in integer cents',
  author: 'Priya Natarajan <priya@shop.example>',
};

/** mulberry32: a small, fast, seedable PRNG (the same sequence on every platform). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** FNV-1a of a string: the seed of one run's choices, and the stable traits of one test. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h >>> 0;
}

interface Rng {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  hex(length: number): string;
}

function rngOf(seed: number): Rng {
  const next = prng(seed);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (items) => items[int(0, items.length - 1)] as (typeof items)[number],
    chance: (p) => next() < p,
    hex: (length) => Array.from({ length }, () => int(0, 15).toString(16)).join(''),
  };
}

const sameTest = (a: DemoTestRef, b: DemoTestRef) =>
  a.file === b.file && a.titlePath.join('\u0000') === b.titlePath.join('\u0000');
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const frame = (where: string, file: string, line: number, column: number) =>
  `    at ${where}${where ? ' (' : ''}${REPO}/${file}:${line}:${column}${where ? ')' : ''}`;

type Failure = Required<Pick<ResultItem, 'error'>>['error'] & { timedOut?: boolean };

interface RunContext {
  rng: Rng;
  branch: string;
  afterRegression: boolean;
  slow: boolean;
  branchFailing: boolean;
}

/** Each test's line in its file, as a stable trait. */
const lineOf = (index: number) => 8 + index * 14;

/** The error of one failed attempt, or null when the attempt passes. Numbers and ids vary per call. */
function failureOf(test: DemoTestRef, line: number, attempt: number, run: RunContext): Failure | null {
  const { rng } = run;
  const at = (message: string, stack: string[]): Failure => ({
    message,
    stack: [message, ...stack].join('\n'),
    location: { file: test.file, line: line + 3, column: 7 },
  });
  if (sameTest(test, REGRESSION) && run.afterRegression) {
    const price = rng.int(40, 140);
    const cents = rng.int(10, 98);
    return at(
      `Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: "$${price}.${cents + 1}"\nReceived: "$${price}.${cents}"`,
      [frame('', test.file, line + 9, 41)],
    );
  }
  if (sameTest(test, FLAKY_LOGIN) && attempt === 0 && run.branch !== LOGIN_BRANCH && rng.chance(0.25)) {
    const timeout = 10_000;
    return at(
      `TimeoutError: page.waitForURL: Timeout ${timeout}ms exceeded.\n=========================== logs ===========================\nwaiting for navigation to "**/account/orders?session=${rng.hex(8)}" until "load"\n============================================================`,
      [frame('LoginPage.signIn', 'tests/pages/login.page.ts', 27, 21), frame('', test.file, line + 4, 7)],
    );
  }
  if (sameTest(test, FLAKY_SUGGEST) && attempt === 0 && rng.chance(0.15)) {
    return at(
      `Error: Timed out 5000ms waiting for expect(locator).toHaveCount(expected)\n\nLocator: getByRole('listbox').getByRole('option')\nExpected: 5\nReceived: ${rng.int(0, 4)}`,
      [frame('', test.file, line + 5, 60)],
    );
  }
  if (sameTest(test, FLAKY_ZOOM) && attempt === 0 && rng.chance(0.1)) {
    return at(
      `TimeoutError: locator.hover: Timeout 5000ms exceeded.\nCall log:\n  - waiting for locator('[data-testid="product-image-${rng.int(1000, 9999)}"]')\n    - locator resolved to <img alt="Trail runner" src="/img/p/${rng.hex(12)}.webp"/>\n    - element is not stable`,
      [frame('', test.file, line + 2, 22)],
    );
  }
  if (sameTest(test, RESERVE) && (attempt > 0 || rng.chance(0.12))) {
    if (attempt > 0 && !run.rng.chance(0.85)) return null;
    const port = rng.int(40_000, 60_999);
    return at(`Error: apiRequestContext.post: connect ECONNREFUSED 127.0.0.1:${port}`, [
      `Call log:\n  - → POST http://127.0.0.1:${port}/api/reservations`,
      frame('InventoryClient.reserve', 'tests/support/inventory.ts', 18, 31),
      frame('', test.file, line + 6, 20),
    ]);
  }
  if (sameTest(test, INVOICE) && (attempt > 0 || rng.chance(0.1))) {
    if (attempt > 0 && rng.chance(0.5)) return null;
    const [status, text] = rng.chance(0.6) ? [500, 'Internal Server Error'] : [503, 'Service Unavailable'];
    return at(
      `Error: Invoice download failed: ${status} ${text} for GET /api/orders/ord_${rng.hex(10)}/invoice.pdf (request id ${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)})`,
      [
        frame('OrdersPage.downloadInvoice', 'tests/pages/orders.page.ts', 52, 13),
        frame('', test.file, line + 5, 5),
      ],
    );
  }
  if (sameTest(test, SAVED_CARD) && run.branchFailing) {
    return at(
      `TimeoutError: locator.click: Timeout 5000ms exceeded.\nCall log:\n  - waiting for getByTestId('saved-card-${rng.int(1000, 9999)}')`,
      [
        frame('PaymentPage.payWithSavedCard', 'tests/pages/payment.page.ts', 41, 24),
        frame('', test.file, line + 4, 5),
      ],
    );
  }
  if (sameTest(test, EXPRESS) && run.branch === CHECKOUT_BRANCH && rng.chance(0.2)) {
    const message = 'Test timeout of 30000ms exceeded.';
    return { message, location: { file: test.file, line: line + 3, column: 7 }, timedOut: true };
  }
  return null;
}

/** The results of one test in one run: one attempt, or two when the first failed (retries: 1). */
function resultsOf(
  test: DemoTestRef,
  index: number,
  run: RunContext,
  startAt: () => number,
  advance: (ms: number) => void,
): ResultItem[] {
  const location = { file: test.file, line: lineOf(index), column: 5 };
  const common = { file: test.file, titlePath: test.titlePath, project: 'chromium', location };
  if (sameTest(test, APPLE_PAY)) {
    return [
      {
        ...common,
        attempt: 0,
        status: 'skipped',
        expectedStatus: 'skipped',
        durationMs: 0,
        startedAt: new Date(startAt()).toISOString(),
        annotations: [{ type: 'fixme', description: 'Apple Pay has no sandbox in CI' }],
      },
    ];
  }
  const trait = rngOf(hash(`${test.file}|${test.titlePath.join('|')}`));
  const base = trait.int(700, 5_500) * (test.file === SLOW_FILE && run.slow ? 2.2 : 1);
  const results: ResultItem[] = [];
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const failure = failureOf(test, location.line, attempt, run);
    const durationMs = failure?.timedOut
      ? 30_000 + run.rng.int(1, 40)
      : Math.round(base * (0.85 + run.rng.next() * 0.4));
    const shared = {
      ...common,
      attempt,
      expectedStatus: 'passed' as const,
      durationMs,
      startedAt: new Date(startAt()).toISOString(),
    };
    if (failure) {
      const { timedOut, ...error } = failure;
      results.push({ ...shared, status: timedOut ? 'timedOut' : 'failed', error });
    } else {
      results.push({ ...shared, status: 'passed' });
    }
    advance(durationMs + run.rng.int(20, 400));
    if (!failure) break;
  }
  return results;
}

interface PlannedRun {
  branch: string;
  day: number;
  n: number;
  startMs: number;
}

/** The runs' times and counts: each from its own date and branch, so a day's runs never move with the window. */
function plan(startOfFirstDay: number, days: number, seed: number): PlannedRun[] {
  const planned: PlannedRun[] = [];
  const checkout = [Math.round(days * 0.3), Math.round(days * 0.9) - 1];
  const login = [Math.round(days * 0.7), days];
  for (let day = 0; day <= days; day += 1) {
    const dayMs = startOfFirstDay + day * DAY_MS;
    const weekend = [0, 6].includes(new Date(dayMs).getUTCDay());
    const rngFor = (branch: string) => rngOf(hash(`plan|${seed}|${branch}|${dateOf(dayMs)}`));
    const main = rngFor(MAIN);
    (weekend ? [11] : [8, 12, 16]).forEach((hour, n) =>
      planned.push({ branch: MAIN, day, n, startMs: dayMs + hour * 3_600_000 + main.int(0, 50) * 60_000 }),
    );
    for (const [branch, [from, to]] of [
      [CHECKOUT_BRANCH, checkout],
      [LOGIN_BRANCH, login],
    ] as const) {
      if (weekend || day < (from as number) || day > (to as number)) continue;
      const rng = rngFor(branch);
      const count = rng.chance(0.5) ? 2 : 1;
      for (let n = 0; n < count; n += 1)
        planned.push({
          branch,
          day,
          n,
          startMs: dayMs + (10 + n * 5) * 3_600_000 + rng.int(0, 50) * 60_000,
        });
    }
  }
  return planned.sort((a, b) => a.startMs - b.startMs);
}

/**
 * The demo history ending at `now`.
 *
 * @example const { runs } = demoHistory({ now: new Date() }); // ~130 runs, oldest first
 */
export function demoHistory(options: DemoHistoryOptions): DemoHistory {
  const days = options.days ?? 30;
  const seed = options.seed ?? 1;
  const nowMs = options.now.getTime();
  // The window is the `days` × 24 hours before now: the planned days run from the date `days` ago to today.
  const startOfFirstDay = Math.floor(nowMs / DAY_MS) * DAY_MS - days * DAY_MS;
  const windowStart = nowMs - days * DAY_MS;
  const regressionDay = Math.round(days * 0.6);
  const slowDay = Math.round(days * 0.66);
  const checkoutFrom = Math.round(days * 0.3);
  const checkoutFixed = Math.round(days * 0.8);
  const tests = DEMO_SPECS.flatMap((spec) =>
    spec.tests
      .slice(0, options.testsPerSpec ?? spec.tests.length)
      .map((title, index) => ({ test: ref(spec.file, spec.describe, title), index })),
  );
  // The story's tests are always in, however few tests per spec are asked for.
  for (const story of [REGRESSION, FLAKY_LOGIN, FLAKY_SUGGEST, RESERVE, INVOICE, SAVED_CARD]) {
    if (tests.some(({ test }) => sameTest(test, story))) continue;
    const spec = DEMO_SPECS.find((candidate) => candidate.file === story.file);
    tests.push({ test: story, index: spec?.tests.indexOf(story.titlePath[1] as string) ?? 0 });
  }

  const planned = plan(startOfFirstDay, days, seed).filter((run) => run.startMs >= windowStart);
  const regressionRun = planned.find((run) => run.branch === MAIN && run.day >= regressionDay);
  const runs: DemoRun[] = [];
  for (const run of planned) {
    const ciRunId = `verdict-demo:${run.branch}:${dateOf(run.startMs)}:${run.n + 1}`;
    const rng = rngOf(hash(`${seed}|${ciRunId}`));
    const isRegression = run === regressionRun;
    const commit = {
      sha: rng.hex(40),
      message: isRegression ? REGRESSION_COMMIT.message : rng.pick(DEMO_COMMIT_MESSAGES),
      author: isRegression ? REGRESSION_COMMIT.author : rng.pick(DEMO_AUTHORS),
    };
    const context: RunContext = {
      rng,
      branch: run.branch,
      afterRegression:
        run.branch === MAIN && regressionRun !== undefined && run.startMs >= regressionRun.startMs,
      slow: run.day >= slowDay,
      branchFailing: run.branch === CHECKOUT_BRANCH && run.day >= checkoutFrom + 2 && run.day < checkoutFixed,
    };
    const workers = [0, 0, 0, 0].map(() => run.startMs + rng.int(1_500, 4_000));
    const results: ResultItem[] = [];
    tests.forEach(({ test, index }, order) => {
      const worker = order % workers.length;
      results.push(
        ...resultsOf(
          test,
          index,
          context,
          () => workers[worker] as number,
          (ms) => {
            workers[worker] = (workers[worker] as number) + ms;
          },
        ),
      );
    });
    const finishedMs = Math.max(...workers) + rng.int(500, 2_000);
    if (finishedMs > nowMs) continue;
    const buildId = String(11_000_000_000 + (hash(ciRunId) % 900_000_000));
    runs.push({
      ciRunId,
      start: {
        ciRunId,
        title: commit.message,
        branch: run.branch,
        environment: 'staging',
        commit,
        ci: {
          provider: 'github-actions',
          buildId,
          url: `https://github.com/example/shop/actions/runs/${buildId}`,
        },
        framework: { name: 'playwright', version: '1.49.1' },
        startedAt: new Date(run.startMs).toISOString(),
        tags: ['demo'],
      },
      results,
      finishedAt: new Date(finishedMs).toISOString(),
    });
  }
  const regressionCommit = runs.find(
    (run) =>
      run.ciRunId.startsWith('verdict-demo:main:') && run.start.commit?.message === REGRESSION_COMMIT.message,
  );
  return {
    runs,
    story: {
      mainBranch: MAIN,
      branches: [CHECKOUT_BRANCH, LOGIN_BRANCH],
      regression: {
        ...REGRESSION,
        commit: { sha: regressionCommit?.start.commit?.sha ?? '', ...REGRESSION_COMMIT },
        ciRunId: regressionCommit?.ciRunId ?? '',
      },
      flaky: [FLAKY_LOGIN, FLAKY_SUGGEST, FLAKY_ZOOM],
      slowdown: { file: SLOW_FILE, from: dateOf(startOfFirstDay + slowDay * DAY_MS) },
      branchFailure: { ...SAVED_CARD, branch: CHECKOUT_BRANCH },
    },
  };
}
