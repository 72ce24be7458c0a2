import type { Pagination, TestStep } from '@verdict/contracts';
import { failureWindow } from './failureWindow';
import { retryCommand } from './retryCommand';
import { renderMarkdown } from './markdown';
import type {
  BundleEnvironment,
  BundleMeta,
  DebugBundle,
  RunBundle,
  RunBundleItem,
  SuiteBundle,
  SuiteBundleItem,
  TestBundle,
} from './types';
import { applyView } from './views';

// ——— realistic bundles ———

const environment: BundleEnvironment = {
  branch: 'feature/login',
  environment: 'staging',
  commit: { sha: '3f9c2a1b7d4e5f60718293a4b5c6d7e8f9012345', message: 'Fix login', author: 'Ann' },
  ci: { provider: 'github', buildId: '812', url: 'https://ci.example/812' },
  framework: { name: 'playwright', version: '1.50.0' },
};
const meta: BundleMeta = {
  projectId: 'p1',
  runId: 'run-42',
  runTitle: 'CI #812',
  startedAt: '2025-03-01T10:00:00Z',
  finishedAt: '2025-03-01T10:07:00Z',
  durationMs: 420_000,
  stats: { total: 480, passed: 455, failed: 12, flaky: 3, skipped: 10 },
  view: 'full',
  generatedAt: '2025-03-01T10:08:00Z',
};
const ansiError =
  '\u001b[31mError: Timed out 5000ms waiting for expect(locator).toBeVisible()\u001b[39m\n\nLocator: getByText(`Welcome`)\nExpected: visible\nReceived: <element(s) not found>';

/** A step tree like Playwright's: hooks, API calls, a test.step holding the failed expect. */
function stepTree(index: number): TestStep[] {
  const calls = (count: number, prefix: string): TestStep[] =>
    Array.from({ length: count }, (_, n) => ({
      title: `${prefix} locator.click(getByRole('button', { name: 'Next ${n}' }))`,
      category: 'pw:api',
      durationMs: 20 + n,
      location: { file: `tests/flow-${index}.spec.ts`, line: 10 + n },
    }));
  return [
    {
      title: 'Before Hooks',
      category: 'hook',
      durationMs: 400,
      steps: [{ title: 'fixture: page', durationMs: 300 }],
    },
    ...calls(8, 'setup'),
    {
      title: 'log in',
      category: 'test.step',
      durationMs: 5200,
      error: { message: ansiError },
      steps: [
        ...calls(4, 'login'),
        {
          title: 'expect(getByText(`Welcome`)).toBeVisible()',
          category: 'expect',
          durationMs: 5000,
          location: { file: `tests/flow-${index}.spec.ts`, line: 42, column: 7 },
          error: {
            message: ansiError,
            location: { file: `tests/flow-${index}.spec.ts`, line: 42, column: 7 },
          },
        },
      ],
    },
    ...calls(6, 'teardown'),
    { title: 'After Hooks', category: 'hook', durationMs: 80 },
  ];
}

function testItem(index: number) {
  const file = `tests/flow-${index % 3}.spec.ts`;
  const titlePath = [`flow ${index % 3}`, `user can finish step ${index} with "quotes" & $vars`];
  return {
    caseId: `case-${index}`,
    title: titlePath[1] ?? '',
    titlePath,
    file,
    line: 20 + index,
    project: 'chromium',
    outcome: index % 4 === 3 ? ('flaky' as const) : ('failed' as const),
    status: 'failed' as const,
    attempts: 3,
    durationMs: 5600 + index,
    error: {
      message: 'Error: Timed out 5000ms waiting for expect(locator).toBeVisible()',
      location: { file, line: 42 },
    },
    retryCommand: retryCommand({ framework: 'playwright', file, line: 20 + index, project: 'chromium' }),
  };
}

const runItems: RunBundleItem[] = Array.from({ length: 10 }, (_, n) => ({
  ...testItem(n),
  suiteId: `suite-${n % 3}`,
  alsoFailedIn: n % 2 === 0 ? ['firefox', 'webkit'] : [],
}));
const specOf = (n: number) => ({
  suiteId: `suite-${n}`,
  file: `tests/flow-${n}.spec.ts`,
  title: `flow ${n}`,
  status: 'failed' as const,
  stats: { total: 40, passed: 34, failed: 4, flaky: 1, skipped: 1 },
});

const runBundle: RunBundle = {
  scope: 'run',
  runId: 'run-42',
  runStatus: 'failed',
  suites: [specOf(0), specOf(1), specOf(2)],
  items: runItems,
  meta,
  environment,
  links: {
    uiUrl: 'https://verdict.example/projects/p1/runs/run-42',
    retryCommand:
      'npx playwright test tests/flow-0.spec.ts:20 tests/flow-1.spec.ts:21 tests/flow-2.spec.ts:22',
  },
};
const runPagination: Pagination = { page: 1, limit: 10, total: 12, hasNext: true, hasPrev: false };

const suiteItems: SuiteBundleItem[] = Array.from({ length: 6 }, (_, n) => ({
  ...testItem(n * 3),
  failureWindow: failureWindow(stepTree(0)),
}));
const suiteBundle: SuiteBundle = {
  scope: 'suite',
  spec: specOf(0),
  suiteStatus: 'failed',
  items: suiteItems,
  meta,
  environment,
  links: {
    uiUrl: 'https://verdict.example/projects/p1/runs/run-42/suites/suite-0',
    retryCommand: 'npx playwright test tests/flow-0.spec.ts',
  },
};

const artifact = (n: number, name: string, contentType: string) => ({
  name,
  contentType,
  artifactId: `art-${n}`,
  url: `https://verdict.example/artifacts/art-${n}?expires=1740823680&signature=9f8e7d6c5b4a`,
});
const steps = stepTree(0);
const testBundle: TestBundle = {
  scope: 'test',
  spec: specOf(0),
  test: {
    caseId: 'case-0',
    title: 'user can finish step 0',
    titlePath: ['flow 0', 'user can finish step 0'],
    file: 'tests/flow-0.spec.ts',
    line: 20,
    project: 'chromium',
    status: 'failed',
    outcome: 'failed',
    durationMs: 5600,
    startedAt: '2025-03-01T10:01:00Z',
    tags: ['@login'],
    annotations: [],
  },
  error: {
    message: ansiError,
    stack: `Error: Timed out 5000ms\n${Array.from({ length: 25 }, (_, n) => `    at frame${n} (/app/node_modules/pkg/lib/file-${n}.js:${n + 1}:${n + 10})`).join('\n')}`,
    snippet:
      '  40 |   await page.getByRole("button").click();\n  41 |\n> 42 |   await expect(page.getByText(`Welcome`)).toBeVisible();\n     |                                           ^',
    location: { file: 'tests/flow-0.spec.ts', line: 42, column: 7 },
  },
  attemptHistory: [
    {
      attempt: 0,
      status: 'failed',
      durationMs: 5500,
      error: { message: 'Error: Timed out 5000ms', location: null },
    },
    {
      attempt: 1,
      status: 'timedOut',
      durationMs: 30000,
      error: { message: 'Test timeout of 30000ms exceeded.', location: null },
    },
  ],
  traceLink: 'https://verdict.example/artifacts/art-30?expires=1&signature=x',
  failureWindow: failureWindow(steps),
  steps,
  stdout: Array.from(
    { length: 200 },
    (_, n) => `[server] GET /api/items/${n} 200 in ${n} ms ${n % 50 === 0 ? '```' : ''}\n`,
  ),
  stderr: ['(node:123) Warning: something deprecated\n', 'at Object.<anonymous>\n'],
  artifacts: {
    screenshots: Array.from({ length: 7 }, (_, n) => artifact(n, `test-failed-${n}.png`, 'image/png')),
    videos: [artifact(20, 'video.webm', 'video/webm')],
    traces: [artifact(30, 'trace', 'application/zip')],
    other: [artifact(40, 'console.log', 'text/plain')],
  },
  meta: { ...meta, latestRun: true, attempt: 2, attempts: 3 },
  environment,
  links: {
    uiUrl: 'https://verdict.example/projects/p1/runs/run-42/tests/case-0?attempt=2',
    retryCommand: 'npx playwright test tests/flow-0.spec.ts:20 --project=chromium',
    traceViewerUrl:
      'https://verdict.example/trace-viewer/?trace=https%3A%2F%2Fverdict.example%2Fartifacts%2Fart-30',
  },
};

// ——— helpers ———

const headings = (markdown: string, level = '##') =>
  [...markdown.matchAll(new RegExp(`^${level} (.+)$`, 'gm'))].map((match) => match[1]);

/** Every fence that opens is closed by a fence of at least its length (CommonMark). */
function fencesBalanced(markdown: string): boolean {
  let open: string | null = null;
  for (const line of markdown.split('\n')) {
    const fence = /^(`{3,})/.exec(line)?.[1];
    if (fence === undefined) continue;
    if (open === null) open = fence;
    else if (line.trim() === line.trim().replace(/[^`]/g, '') && fence.length >= open.length) open = null;
  }
  return open === null;
}

const MARKER = /(\n\n… truncated: \d+ more characters( \(raise budgetChars or use as=json\))?|…)$/;
const LINE_CUT = ' [… line cut]';
const SECTION_CUT = '_[… section cut to fit budgetChars]_';

/** Each line of a cut document is a line of the whole one, or says it was cut. */
function linesAccountedFor(cut: string, full: string): string[] {
  const fullLines = new Set(full.split('\n'));
  const body = cut.replace(MARKER, '');
  return body.split('\n').filter((line, index) => {
    if (fullLines.has(line) || line === SECTION_CUT) return false;
    if (line.endsWith(LINE_CUT) && full.includes(line.slice(0, -LINE_CUT.length))) return false;
    if (index === 0 && full.startsWith(line)) return false; // the headline, hard-cut: the marker says so
    return true;
  });
}

const bundles: [string, DebugBundle, Pagination | undefined][] = [
  ['run', runBundle, runPagination],
  ['suite', suiteBundle, { page: 1, limit: 10, total: 6, hasNext: false, hasPrev: false }],
  ['test', testBundle, undefined],
];

// ——— tests ———

describe('renderMarkdown sections', () => {
  it('when the scope is run, then the sections are Failing suites, Failing tests, Actions', () => {
    const markdown = renderMarkdown(runBundle, { pagination: runPagination });
    expect(headings(markdown)).toEqual(['Failing suites', 'Failing tests', 'Actions']);
    expect(markdown).toContain('Page 1 of 2: tests 1 to 10 of 12.');
    expect(markdown).toContain('also failed in firefox, webkit');
    expect(markdown).toContain('- Next page: `page=2`');
  });

  it('when the scope is suite, then Failing tests (each with Error and Failure window) and Actions', () => {
    const markdown = renderMarkdown(suiteBundle);
    expect(headings(markdown)).toEqual(['Failing tests', 'Actions']);
    expect(headings(markdown, '###')).toHaveLength(6);
    expect(headings(markdown, '####')).toEqual(
      Array.from({ length: 6 }, () => ['Error', 'Failure window']).flat(),
    );
  });

  it('when the scope is test, then the eight sections come in the spec’s order', () => {
    expect(headings(renderMarkdown(testBundle))).toEqual([
      'Error',
      'Failure window',
      'Steps',
      'stdout',
      'stderr',
      'Attempt history',
      'Artifacts',
      'Actions',
    ]);
  });

  it('when rendered, then the first paragraph says what failed, where, and how to rerun', () => {
    const headline = renderMarkdown(testBundle).split('\n\n')[0] ?? '';
    expect(headline).not.toContain('\n');
    expect(headline).toMatch(
      /^\*\*FAILED\*\* `flow 0 › user can finish step 0` in `tests\/flow-0.spec.ts:20` \[chromium\]/,
    );
    expect(headline).toContain('Error: `Error: Timed out 5000ms waiting for expect(locator).toBeVisible()`');
    expect(headline).toContain('Rerun: `npx playwright test tests/flow-0.spec.ts:20 --project=chromium`');
    expect(headline).not.toContain('\u001b');
  });

  it('when the run and suite headlines are rendered, then they name the first failure and the rerun command', () => {
    const run = renderMarkdown(runBundle).split('\n\n')[0] ?? '';
    expect(run).toMatch(/^\*\*Run `run-42` failed\*\*: 12 failed, 3 flaky of 480 tests\. First failure: /);
    expect(run).toContain(`Rerun the failing tests: \`${runBundle.links.retryCommand}\``);
    const suite = renderMarkdown(suiteBundle).split('\n\n')[0] ?? '';
    expect(suite).toMatch(/^\*\*Suite `tests\/flow-0.spec.ts` failed\*\*/);
    expect(suite).toContain('Rerun the file: `npx playwright test tests/flow-0.spec.ts`');
  });

  it('when the failing tests span pages, then the run headline speaks of this page', () => {
    const first = renderMarkdown(runBundle, { pagination: { ...runPagination, page: 1 } }).split('\n\n')[0];
    expect(first).toContain('. First failure: ');
    expect(first).toContain(`Rerun the failing tests on this page: \`${runBundle.links.retryCommand}\``);
    const second = renderMarkdown(runBundle, { pagination: { ...runPagination, page: 2 } }).split('\n\n')[0];
    expect(second).toContain('. First failure on this page: ');
  });

  it('when the failure window is rendered, then the failed step is marked and colours are gone', () => {
    const markdown = renderMarkdown(testBundle);
    expect(markdown).toMatch(
      /^> {3}✗ expect\(getByText\(`Welcome`\)\)\.toBeVisible\(\) \(5\.0 s\) {2}tests\/flow-0\.spec\.ts:42:7 {2}— Error: Timed out/m,
    );
    expect(markdown).not.toContain('\u001b');
  });

  it('when stdout holds triple backticks, then its fence is longer and the fences stay balanced', () => {
    const markdown = renderMarkdown(testBundle);
    expect(markdown).toContain('````text\n[server] GET /api/items/0 200 in 0 ms ```');
    expect(fencesBalanced(markdown)).toBe(true);
  });

  it('when view=brief or headline, then the omitted sections stay and say how to get them', () => {
    const brief = renderMarkdown(applyView(testBundle, 'brief'));
    expect(brief).toContain('## Steps\n\n_Omitted under view=brief; ask with view=full._');
    expect(brief).toContain('## stdout\n\n````text');
    const headline = renderMarkdown(applyView(testBundle, 'headline'));
    expect(headline).toContain('## stdout\n\n_Omitted under view=headline; ask with view=full._');
    expect(headline).toContain('- Screenshots (5 of 7):');
    const suite = renderMarkdown(applyView(suiteBundle, 'brief'));
    expect(suite).toContain('#### Failure window\n\n_Omitted under view=brief; ask with view=full._');
  });

  it('when a title holds backticks and a newline, then it stays on one line in inline code that holds', () => {
    const titled = (title: string): TestBundle => ({
      ...testBundle,
      test: { ...testBundle.test, titlePath: [title] },
    });
    const headlineOf = (title: string) => renderMarkdown(titled(title)).split('\n\n')[0] ?? '';
    expect(headlineOf('renders `code`\nand more')).toContain('**FAILED** ``renders `code` and more`` in');
    expect(headlineOf('`x` y')).toContain('**FAILED** `` `x` y `` in');
  });

  it('when nothing failed, then the sections still appear and say so', () => {
    const passed: RunBundle = { ...runBundle, runStatus: 'passed', suites: [], items: [] };
    const markdown = renderMarkdown(passed);
    expect(headings(markdown)).toEqual(['Failing suites', 'Failing tests', 'Actions']);
    expect(markdown).toContain('## Failing tests\n\n_None._');
    expect(markdown).toContain('No failing tests.');
    expect(markdown).not.toContain('failing tests:');
    expect(markdown).not.toContain('failing tests of this page');
    expect(markdown).toContain(`- Rerun the run: \`${passed.links.retryCommand}\``);
  });
});

describe('renderMarkdown budgetChars', () => {
  it('when the budget is larger than the document, then the document is returned whole', () => {
    const full = renderMarkdown(testBundle);
    expect(renderMarkdown(testBundle, { budgetChars: 128_000 })).toBe(full);
    expect(renderMarkdown(testBundle, { budgetChars: full.length })).toBe(full);
  });

  it('when the budget is one character short, then the document is truncated and marked', () => {
    const full = renderMarkdown(testBundle);
    const cut = renderMarkdown(testBundle, { budgetChars: full.length - 1 });
    expect(cut.length).toBeLessThanOrEqual(full.length - 1);
    expect(cut).toMatch(/… truncated: \d+ more characters \(raise budgetChars or use as=json\)$/);
  });

  it('when the budget is tight, then higher-priority sections are kept and lower ones dropped whole', () => {
    const cut = renderMarkdown(testBundle, { budgetChars: 2_500 });
    expect(headings(cut).slice(0, 2)).toEqual(['Error', 'Failure window']);
    expect(headings(cut)).not.toContain('Steps');
    expect(headings(cut)).not.toContain('stdout');
  });

  it('when a code block is cut, then it is closed and the cut is noted', () => {
    const cut = renderMarkdown(testBundle, { budgetChars: 1_000 });
    expect(cut).toContain(SECTION_CUT);
    expect(fencesBalanced(cut)).toBe(true);
  });

  it('when the budget is smaller than the headline, then the headline is hard-cut and still marked', () => {
    const cut = renderMarkdown(testBundle, { budgetChars: 150 });
    expect(cut.length).toBeLessThanOrEqual(150);
    expect(cut.startsWith('**FAILED** `flow 0')).toBe(true);
    expect(cut).toMatch(/\n\n… truncated: \d+ more characters$/);
  });

  it('when the budget is 1, then the answer is a lone ellipsis', () => {
    expect(renderMarkdown(testBundle, { budgetChars: 1 })).toBe('…');
  });

  it('when the marker counts omitted characters, then the count is what the full document has more', () => {
    const full = renderMarkdown(runBundle);
    const cut = renderMarkdown(runBundle, { budgetChars: 1_200 });
    const omitted = Number(/… truncated: (\d+) more characters/.exec(cut)?.[1]);
    const body = cut.replace(MARKER, '');
    expect(omitted).toBe(full.length - body.length);
  });

  describe.each(bundles)('for any budget at %s scope', (_, bundle, pagination) => {
    const full = renderMarkdown(bundle, { pagination });
    const budgets = [
      ...Array.from({ length: 400 }, (_, n) => n + 1),
      ...Array.from({ length: 200 }, (_, n) => Math.round(((n + 1) * (full.length + 50)) / 200)),
      full.length - 1,
      full.length,
      full.length + 1,
      128_000,
    ];

    it('then the answer fits, its fences are balanced, no line is cut silently, and a cut is marked', () => {
      for (const budgetChars of budgets) {
        const markdown = renderMarkdown(bundle, { budgetChars, pagination });
        const context = `budgetChars=${budgetChars}`;
        expect([context, markdown.length <= budgetChars]).toEqual([context, true]);
        expect([context, fencesBalanced(markdown)]).toEqual([context, true]);
        if (full.length <= budgetChars) {
          expect([context, markdown === full]).toEqual([context, true]);
          continue;
        }
        expect([context, MARKER.test(markdown)]).toEqual([context, true]);
        expect([context, linesAccountedFor(markdown, full)]).toEqual([context, []]);
      }
    });
  });
});
