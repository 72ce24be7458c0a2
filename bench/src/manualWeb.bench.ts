// The manual-testing pages on a big project (issue 22): a case library of 10,000 cases and a manual run of
// 2,000 of them, in `npm start` (embedded mode), driven in Debian's Chromium. The figure is the main-thread
// work each interaction costs the page: the CPU time of the renderer's main thread (Chromium's ThreadTime,
// read over CDP before the interaction and once its answer is on screen, the requests it caused done and two
// frames painted), not wall-clock time: waiting on the network or on a debounce costs no main-thread work.
// CPU time, not the tasks' duration (TaskDuration, printed beside it): on a shared machine a task also
// lasts while the thread waits for a core, which says more about the other work than about the page.
//
// The cases are appended to the manual-testing store while Verdict is stopped (its PGlite database opened
// directly), then Verdict is started again and its read model catches up: creating 10,000 cases through the
// API would take hours at the write limit of 60 a minute. The runs are created through the API.
//
// Baselines from the same run: the library filtered to one case (first render), a search answered by an
// empty list (filter), and a run of 20 cases (first render, verdicts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createSqlEventStore } from '@verdict/platform';
import { createPGliteDatabase } from '@verdict/platform/pglite';
import { appendCases } from './support';
import { percentile, sleep, type BenchRow } from './table';
import { CHROMIUM, CHROMIUM_ARGS, startEmbedded, type Embedded } from './web.bench';

const CASES = 10_000;
const RUN_CASES = 2_000;
const SMALL_RUN_CASES = 20;
const VERDICTS = 100;
const SMALL_RUN_VERDICTS = 20;
/** Verdicts recorded per signed-in person: each person's token has its own write limit (60 a minute). */
const VERDICTS_PER_PERSON = 25;
/** A verdict starts at least this long after the previous one: the address's limit is 200 requests a minute. */
const VERDICT_PACE_MS = 1_000;
const SAMPLES = 7;
const TARGET_MS = 100;
/** The manual-testing store's schema in the embedded mode (the module's default). */
const STORE_SCHEMA = 'manual_testing';
const SUITES = ['Checkout', 'Accounts', 'Search', 'Reports', 'Payments', 'Administration'];

const progress = (message: string) => process.stderr.write(`[bench] manual-web: ${message}\n`);
/** "p50 CPU x ms, tasks y ms" of some interactions, for the progress lines. */
const p50 = (samples: Work[]) =>
  `p50 CPU ${percentile(
    samples.map((work) => work.cpu),
    50,
  ).toFixed(0)} ms, tasks ${percentile(
    samples.map((work) => work.tasks),
    50,
  ).toFixed(0)} ms`;

interface Api {
  <T>(method: string, urlPath: string, body?: unknown): Promise<T>;
}

/** The public API as one token calls it. */
function apiOf(verdict: Embedded, token: string): Api {
  return async <T>(method: string, urlPath: string, body?: unknown) => {
    const response = await fetch(`${verdict.url}/api/public/v1${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${urlPath}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
}

/** Personal tokens of the demo user, through the admin API: one per signed-in person of the bench. */
async function issueTokens(verdict: Embedded, userId: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${verdict.url}/admin/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${verdict.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'personal', userId, projectIds: [verdict.projectId] }),
    });
    if (!response.ok) throw new Error(`POST /tokens: ${response.status} ${await response.text()}`);
    tokens.push(((await response.json()) as { data: { token: string } }).data.token);
  }
  return tokens;
}

/** A signed-in browser context (cold cache), with the page's main-thread clock and its requests in flight. */
class Tester {
  private inFlight = 0;
  private cdp!: Awaited<ReturnType<BrowserContext['newCDPSession']>>;
  throttled = 0;

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  static async signIn(browser: Browser, verdict: Embedded, token: string): Promise<Tester> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const response = await page.request.post(`${verdict.url}/api/public/v1/session`, { data: { token } });
    if (!response.ok()) throw new Error(`sign-in: ${response.status()}`);
    const tester = new Tester(context, page);
    page.on('request', () => (tester.inFlight += 1));
    page.on('requestfinished', () => (tester.inFlight -= 1));
    page.on('requestfailed', () => (tester.inFlight -= 1));
    page.on('response', (answer) => {
      if (answer.status() === 429) tester.throttled += 1;
    });
    tester.cdp = await context.newCDPSession(page);
    await tester.cdp.send('Performance.enable');
    return tester;
  }

  /** The renderer main thread's CPU time and its tasks' duration so far, in ms. */
  private async clocks(): Promise<Work> {
    const { metrics } = await this.cdp.send('Performance.getMetrics');
    const ms = (name: string) => (metrics.find((metric) => metric.name === name)?.value ?? 0) * 1000;
    return { cpu: ms('ThreadTime'), tasks: ms('TaskDuration') };
  }

  /** Until no request of the page is in flight (for 50 ms), then two frames painted. */
  private async settled(): Promise<void> {
    for (let quiet = 0; quiet < 5;) {
      await sleep(10);
      quiet = this.inFlight === 0 ? quiet + 1 : 0;
    }
    // A script: this file is compiled for Node, without the DOM's types.
    await this.page.evaluate(
      'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))',
    );
  }

  /** The main-thread ms `interaction` costs, up to its answer shown, the requests done and painted. */
  async measure(interaction: () => Promise<unknown>): Promise<Work> {
    const before = await this.clocks();
    await interaction();
    await this.settled();
    const after = await this.clocks();
    // A navigation may move the page to a new renderer process, whose clocks start at zero.
    const since = (key: keyof Work) => (after[key] >= before[key] ? after[key] - before[key] : after[key]);
    return { cpu: since('cpu'), tasks: since('tasks') };
  }

  /**
   * VERDICT_BENCH_CPU_PROF=<dir>: a CPU profile of the page from here until the tester closes, written there
   * as `manual-web-<name>.cpuprofile` (open it in Chromium's DevTools, Performance panel), for the hot spots.
   */
  async profile(name: string): Promise<void> {
    const dir = process.env.VERDICT_BENCH_CPU_PROF;
    if (!dir) return;
    await this.cdp.send('Profiler.enable');
    await this.cdp.send('Profiler.start');
    this.profileFile = path.join(dir, `manual-web-${name}.cpuprofile`);
  }

  private profileFile: string | undefined;

  async close(): Promise<void> {
    if (this.profileFile) {
      const { profile } = await this.cdp.send('Profiler.stop');
      mkdirSync(path.dirname(this.profileFile), { recursive: true });
      writeFileSync(this.profileFile, JSON.stringify(profile));
    }
    await this.context.close();
  }
}

/** Main-thread work in ms: CPU time, and the duration of its tasks (CPU time plus waiting for a core). */
interface Work {
  cpu: number;
  tasks: number;
}

interface Stats {
  p50: number;
  p95: number;
  max: number;
}
const statsOf = (values: number[]): Stats => ({
  p50: percentile(values, 50),
  p95: percentile(values, 95),
  max: Math.max(...values),
});

function rowsOf(name: string, ours: Work[], baseline: Work[], baselineName: string): BenchRow[] {
  const a = statsOf(ours.map((work) => work.cpu));
  const b = statsOf(baseline.map((work) => work.cpu));
  return (['p50', 'p95', 'max'] as const).map((stat) => ({
    name: `manual web: ${name}, main-thread CPU ${stat} of ${ours.length} (baseline: ${baselineName})`,
    unit: 'ms',
    ours: a[stat],
    baseline: b[stat],
    target: `under ${TARGET_MS} ms`,
    met: a[stat] < TARGET_MS,
  }));
}

const CASE_ROW = 'table[aria-label="Manual test cases"] tbody tr';
const RUN_OPTION = '[role="listbox"][aria-label="Cases of the run"] [role="option"]';

/** First render of `url`, from a cold cache: navigation until `ready` shows, each sample a new person. */
async function firstRenders(
  browser: Browser,
  verdict: Embedded,
  tokens: () => string,
  url: string,
  ready: string,
): Promise<Work[]> {
  const samples: Work[] = [];
  for (let sample = 0; sample < SAMPLES; sample += 1) {
    const tester = await Tester.signIn(browser, verdict, tokens());
    try {
      samples.push(
        await tester.measure(async () => {
          await tester.page.goto(url, { waitUntil: 'commit' });
          await tester.page.locator(ready).first().waitFor();
        }),
      );
    } finally {
      await tester.close();
    }
  }
  return samples;
}

/**
 * Typing in the library's search box until the list shows the answer: a word of the titles (ours, rows
 * listed) alternating with a word nothing matches (the baseline, the empty state).
 */
async function filters(browser: Browser, verdict: Embedded, token: string) {
  const tester = await Tester.signIn(browser, verdict, token);
  const { page } = tester;
  const listed: Work[] = [];
  const empty: Work[] = [];
  const words = ['payment', 'checkout report', 'invoice', 'login cart', 'search', 'admin export', 'profile'];
  try {
    await page.goto(`${verdict.url}/projects/${verdict.projectId}/cases`);
    await page.locator(CASE_ROW).first().waitFor();
    await tester.profile('filter');
    const search = page.getByRole('textbox', { name: 'Search' });
    const type = async (text: string, answered: () => Promise<unknown>) => {
      await search.click();
      await page.keyboard.press('Control+A');
      await search.pressSequentially(text);
      await page.waitForURL((url) => url.searchParams.get('search') === text);
      await answered();
    };
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      empty.push(
        await tester.measure(() =>
          type(`zz-nothing-${sample}`, () => page.locator(CASE_ROW).first().waitFor({ state: 'detached' })),
        ),
      );
      listed.push(
        await tester.measure(() =>
          type(words[sample % words.length] as string, () => page.locator(CASE_ROW).first().waitFor()),
        ),
      );
    }
  } finally {
    await tester.close();
  }
  return { listed, empty, throttled: tester.throttled };
}

/**
 * `count` verdicts recorded with the keyboard (P F B S R in turn; each moves on to the next case still to
 * test), each measured until the server answered it and the page showed the answer. One person records
 * VERDICTS_PER_PERSON of them, then the next signs in, so that no token passes its write limit.
 */
async function verdicts(
  browser: Browser,
  verdict: Embedded,
  tokens: () => string,
  runUrl: string,
  count: number,
) {
  const samples: Work[] = [];
  let throttled = 0;
  for (let done = 0; done < count;) {
    const tester = await Tester.signIn(browser, verdict, tokens());
    const { page } = tester;
    try {
      await page.goto(runUrl);
      await page.locator(`${RUN_OPTION}[aria-selected="true"]`).waitFor();
      await tester.measure(() => Promise.resolve());
      if (done === 0) await tester.profile(`verdicts-${count}`);
      for (let i = 0; i < VERDICTS_PER_PERSON && done < count; i += 1, done += 1) {
        const started = Date.now();
        const key = 'pfbsr'[done % 5] as string;
        samples.push(
          await tester.measure(async () => {
            const answered = page.waitForResponse(
              (response) =>
                response.request().method() !== 'GET' &&
                response.url().includes('/manual-runs/') &&
                response.status() !== 429,
            );
            await page.keyboard.press(key);
            const response = await answered;
            if (!response.ok()) throw new Error(`verdict ${done}: ${response.status()}`);
          }),
        );
        await sleep(Math.max(0, VERDICT_PACE_MS - (Date.now() - started)));
      }
    } finally {
      throttled += tester.throttled;
      await tester.close();
    }
  }
  return { samples, throttled };
}

/** Verdict on a data folder of its own: six suites through the API, then 10,000 cases in its store. */
async function seededVerdict(dataDir: string) {
  const first = await startEmbedded(dataDir);
  const api = apiOf(first, first.token);
  let userId: string;
  const suites: string[] = [];
  try {
    userId = (await api<{ data: { user: { id: string } } }>('GET', '/session')).data.user.id;
    for (const name of SUITES) {
      suites.push(
        (await api<{ data: { _id: string } }>('POST', `/${first.projectId}/manual-suites`, { name })).data
          ._id,
      );
    }
  } finally {
    await first.stop();
  }
  const db = await createPGliteDatabase({ dataDir: path.join(dataDir, 'pglite') });
  let caseIds: string[];
  try {
    const store = createSqlEventStore({ db, schema: STORE_SCHEMA });
    await store.init();
    const started = Date.now();
    caseIds = await appendCases(store, {
      projectId: first.projectId,
      userId,
      suites,
      count: CASES,
      concurrency: 1,
    });
    progress(`${CASES} cases appended in ${Date.now() - started} ms`);
  } finally {
    await db.close();
  }
  const second = await startEmbedded(dataDir);
  const verdict: Embedded = {
    ...second,
    token: first.token,
    projectId: first.projectId,
    adminKey: first.adminKey,
  };
  const started = Date.now();
  const secondApi = apiOf(verdict, verdict.token);
  for (let total = 0; total < CASES;) {
    if (Date.now() - started > 600_000) throw new Error('the read model did not catch up in 10 minutes');
    await sleep(1_000);
    total = (
      await secondApi<{ pagination: { total: number } }>('GET', `/${verdict.projectId}/manual-tests?limit=1`)
    ).pagination.total;
  }
  progress(`read model caught up in ${Date.now() - started} ms`);
  return { verdict, userId, caseIds };
}

export async function benchManualWeb(): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-manual-web-bench-'));
  let verdict: Embedded | undefined;
  let browser: Browser | undefined;
  try {
    const seeded = await seededVerdict(dataDir);
    verdict = seeded.verdict;
    const { projectId } = verdict;
    const api = apiOf(verdict, verdict.token);
    const createRun = async (name: string, caseIds: string[]) =>
      (await api<{ data: { _id: string } }>('POST', `/${projectId}/manual-runs`, { name, caseIds })).data._id;
    const bigRun = await createRun(`Regression ${RUN_CASES}`, seeded.caseIds.slice(0, RUN_CASES));
    const smallRun = await createRun(`Smoke ${SMALL_RUN_CASES}`, seeded.caseIds.slice(0, SMALL_RUN_CASES));
    const people = await issueTokens(verdict, seeded.userId, 16);
    let next = 0;
    const tokens = () => people[next++ % people.length] as string;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });

    const library = `${verdict.url}/projects/${projectId}/cases`;
    const libraryFull = await firstRenders(browser, verdict, tokens, library, CASE_ROW);
    const libraryOne = await firstRenders(
      browser,
      verdict,
      tokens,
      `${library}?search=case%20${CASES - 1}`,
      CASE_ROW,
    );
    progress(`library first render ${p50(libraryFull)} (1 case: ${p50(libraryOne)})`);
    const filtered = await filters(browser, verdict, tokens());
    progress(`search ${p50(filtered.listed)} (nothing found: ${p50(filtered.empty)})`);
    const runUrl = (runId: string) => `${verdict?.url}/projects/${projectId}/manual-runs/${runId}`;
    const bigRunFirst = await firstRenders(browser, verdict, tokens, runUrl(bigRun), RUN_OPTION);
    const smallRunFirst = await firstRenders(browser, verdict, tokens, runUrl(smallRun), RUN_OPTION);
    progress(`run page first render ${p50(bigRunFirst)} (20 cases: ${p50(smallRunFirst)})`);
    const big = await verdicts(browser, verdict, tokens, runUrl(bigRun), VERDICTS);
    const small = await verdicts(browser, verdict, tokens, runUrl(smallRun), SMALL_RUN_VERDICTS);
    progress(
      `verdict ${p50(big.samples)} (20-case run: ${p50(small.samples)}); answers throttled (429, retried): ${big.throttled + small.throttled + filtered.throttled}`,
    );
    const thousands = (n: number) => n.toLocaleString('en-US');
    return [
      ...rowsOf(
        `case library of ${thousands(CASES)} cases, first render (navigation to rows)`,
        libraryFull,
        libraryOne,
        'the library filtered to 1 case',
      ),
      ...rowsOf(
        'case library, search typed until the list shows the matches',
        filtered.listed,
        filtered.empty,
        'a search nothing matches',
      ),
      ...rowsOf(
        `manual run of ${thousands(RUN_CASES)} cases, first render (navigation to cases listed)`,
        bigRunFirst,
        smallRunFirst,
        `a run of ${SMALL_RUN_CASES} cases`,
      ),
      ...rowsOf(
        `manual run of ${thousands(RUN_CASES)} cases, ${VERDICTS} verdicts by keyboard (key to answer shown)`,
        big.samples,
        small.samples,
        `${SMALL_RUN_VERDICTS} on a run of ${SMALL_RUN_CASES} cases`,
      ),
    ];
  } finally {
    await browser?.close();
    await verdict?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
