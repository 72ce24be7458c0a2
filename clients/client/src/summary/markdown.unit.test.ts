import type { RunComparison, RunDetail, RunFailure } from '../types';
import { cell, code, errorGroupUrl, renderComparison, renderRunSummary, testPageUrl } from './markdown';

const runUrl = 'https://verdict.example.com/projects/shop/runs/r2';

const failure = (overrides: Partial<RunFailure> = {}): RunFailure => ({
  testCaseId: 'c1',
  title: 'pays by card',
  titlePath: ['checkout', 'pays by card'],
  file: 'tests/checkout.spec.ts',
  project: 'chromium',
  verdict: 'new',
  quarantine: null,
  signature: { id: '0123456789ab', text: 'Expected <n>, received <n> at tests/checkout.spec.ts › pays' },
  errorMessage: 'Expected 200, received 500',
  ...overrides,
});

const run = (overrides: Partial<RunDetail> = {}): RunDetail =>
  ({
    id: 'r2',
    projectId: 'shop',
    counter: 12,
    status: 'finished',
    outcome: 'failed',
    ciRunId: 'ci-1',
    title: null,
    branch: 'feature/cart',
    environment: null,
    commit: { sha: 'abcdef1234567890' },
    ci: null,
    framework: null,
    tags: [],
    startedAt: '2026-11-28T10:00:00.000Z',
    finishedAt: '2026-11-28T10:05:00.000Z',
    durationMs: 300_000,
    stats: { total: 5, passed: 3, failed: 2, flaky: 0, skipped: 0 },
    shards: null,
    failures: {
      baseBranch: 'main',
      baseRunId: 'r1',
      windowDays: 14,
      counts: { new: 1, failingOnBase: 1, knownFlaky: 0, quarantined: 0 },
      items: [
        failure(),
        failure({
          testCaseId: 'c2',
          title: 'lists | items',
          titlePath: ['cart', 'lists | items'],
          project: null,
          verdict: 'failing-on-base',
          signature: null,
        }),
      ],
    },
    ...overrides,
  }) as RunDetail;

const empty = { count: 0, items: [] };
const compareRun = (id: string, counter: number, branch: string) => ({
  id,
  counter,
  status: 'finished' as const,
  outcome: 'failed' as const,
  branch,
  commit: { sha: '1234567abcdef' },
  startedAt: '2026-11-28T09:00:00.000Z',
});
const comparison = (overrides: Partial<RunComparison> = {}): RunComparison => ({
  run: compareRun('r2', 12, 'feature/cart'),
  base: compareRun('r1', 11, 'main'),
  baseBranch: 'main',
  noBaseReason: null,
  thresholds: { durationRatio: 1.5, durationFloorMs: 1000 },
  newFailures: {
    count: 1,
    items: [
      {
        testCaseId: 'c1',
        title: 'pays by card',
        titlePath: ['checkout', 'pays by card'],
        file: 'tests/checkout.spec.ts',
        project: 'chromium',
        outcome: 'failed',
        baseOutcome: 'passed',
        durationMs: 900,
        baseDurationMs: 800,
        signature: { id: '0123456789ab', text: 'Expected <n>' },
      },
    ],
  },
  fixed: empty,
  stillFailing: empty,
  newlyFlaky: empty,
  added: empty,
  removed: empty,
  slower: {
    count: 3,
    items: [
      {
        testCaseId: 'c3',
        title: 'searches',
        titlePath: ['search'],
        file: 'tests/search.spec.ts',
        project: null,
        outcome: 'passed',
        baseOutcome: 'passed',
        durationMs: 4_000,
        baseDurationMs: 1_000,
        signature: null,
      },
    ],
  },
  ...overrides,
});

describe('renderRunSummary', () => {
  it('when a run has failures with verdicts, then the counts, each verdict, signature and test link are in it', () => {
    const markdown = renderRunSummary({ run: run(), comparison: comparison(), runUrl });
    expect(markdown).toContain('### ❌ Verdict run #12: failed');
    expect(markdown).toContain(`[Open run #12 in Verdict](${runUrl})`);
    expect(markdown).toContain('branch `feature/cart` · commit `abcdef1`');
    expect(markdown).toContain('| 3 | 2 | 0 | 0 | 5 |');
    expect(markdown).toContain(
      '**2 failures** against `main`: 1 new · 1 failing on base · 0 known flaky · 0 quarantined',
    );
    expect(markdown).toContain(
      `| **new** | [checkout › pays by card](${runUrl}/tests/c1?project=chromium) [chromium]<br>\`tests/checkout.spec.ts\` | \`Expected <n>, received <n> at tests/checkout.spec.ts › pays\` <sub>[0123456789ab](https://verdict.example.com/projects/shop/errors/0123456789ab)</sub> |`,
    );
    expect(markdown).toContain(`| **failing on base** | [cart › lists \\| items](${runUrl}/tests/c2)`);
  });

  it('when there are more failures than listed, then the rest are counted with a link to the run', () => {
    const items = Array.from({ length: 5 }, (_, index) => failure({ testCaseId: `c${index}` }));
    const many = run({ failures: { ...run().failures!, items } });
    const markdown = renderRunSummary({ run: many, comparison: comparison(), runUrl }, { maxFailures: 2 });
    expect(markdown.match(/\| \*\*new\*\* \|/g)).toHaveLength(2);
    expect(markdown).toContain(`… and 3 more failures: [open the run](${runUrl}).`);
  });

  it('when the server gives no verdicts, then the failed tests are counted and the summary still renders', () => {
    const markdown = renderRunSummary({
      run: run({ failures: undefined }),
      comparison: null,
      comparisonProblem: 'Verdict answered 404 NOT_FOUND: no such route',
      runUrl,
    });
    expect(markdown).toContain('2 failed tests; this Verdict gives no verdicts per failure.');
    expect(markdown).toContain('Not compared: Verdict answered 404 NOT_FOUND: no such route.');
  });

  it('when the run passed, then it says so and lists no failure table', () => {
    const passed = run({
      outcome: 'passed',
      stats: { total: 3, passed: 3, failed: 0, flaky: 0, skipped: 0 },
      failures: {
        ...run().failures!,
        counts: { new: 0, failingOnBase: 0, knownFlaky: 0, quarantined: 0 },
        items: [],
      },
    });
    const markdown = renderRunSummary({ run: passed, comparison: comparison(), runUrl });
    expect(markdown).toContain('### ✅ Verdict run #12: passed');
    expect(markdown).toContain('No failed tests.');
    expect(markdown).not.toContain('| Verdict | Test |');
  });
});

describe('renderComparison', () => {
  it('when there is a base, then every category is counted and the non-empty ones list their items', () => {
    const markdown = renderComparison(comparison(), runUrl, { maxItems: 1 });
    expect(markdown).toContain(
      'Run #12 compared with run #11 on `main` at `1234567`: 1 new failure · 0 fixed · 0 still failing · 0 newly flaky · 0 added · 0 removed · 3 slower',
    );
    expect(markdown).toContain('<details><summary>New failures (1)</summary>');
    expect(markdown).toContain(
      `- [checkout › pays by card](${runUrl}/tests/c1?project=chromium) [chromium] \`tests/checkout.spec.ts\` — \`Expected <n>\``,
    );
    expect(markdown).toContain('`tests/search.spec.ts` — 1.0 s → 4.0 s');
    expect(markdown).toContain('- … and 2 more');
    expect(markdown).not.toContain('<summary>Fixed');
  });

  it('when the run has no base, then the comparison says why instead of listing categories', () => {
    const markdown = renderComparison(
      comparison({ base: null, noBaseReason: 'no finished run on main started before this one' }),
      runUrl,
    );
    expect(markdown).toContain('No base to compare with: no finished run on main started before this one.');
    expect(markdown).not.toContain('<details>');
  });
});

describe('Markdown pieces', () => {
  it('when text holds pipes, newlines or backticks, then cells and code spans stay intact', () => {
    expect(cell('a | b\nc')).toBe('a \\| b c');
    expect(code('plain')).toBe('`plain`');
    expect(code('uses `x` here')).toBe('`` uses `x` here ``');
    expect(errorGroupUrl(`${runUrl}/`, 'abc')).toBe('https://verdict.example.com/projects/shop/errors/abc');
    expect(testPageUrl(`${runUrl}/`, 'a b', 'mobile safari')).toBe(
      `${runUrl}/tests/a%20b?project=mobile+safari`,
    );
  });
});
