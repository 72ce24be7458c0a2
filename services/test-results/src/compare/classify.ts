/**
 * What changed for each test between a run and its base: one pure rule per category, applied to the rows
 * of the two runs' run_tests joined by (test case, platform). A test lands in at most one category; the
 * counts take every row, the items only the first `limit` of each category in the order given.
 */
import {
  COMPARE_CATEGORIES,
  type CompareCategory,
  type CompareItem,
  type Outcome,
  type RunComparison,
} from '@verdict/contracts';
import { byCodePoint } from '@verdict/platform';

/** A test (one platform) in the run, the base or both: the FULL OUTER JOIN of their run_tests. */
export interface ComparedTest {
  item: Omit<CompareItem, 'outcome' | 'baseOutcome' | 'durationMs' | 'baseDurationMs'>;
  /** Null when the test is not in the run (removed). */
  outcome: Outcome | null;
  /** Null when the test is not in the base (added). */
  baseOutcome: Outcome | null;
  durationMs: number | null;
  baseDurationMs: number | null;
}

export interface Thresholds {
  durationRatio: number;
  durationFloorMs: number;
}

/** Slower only by more than both the ratio and the floor: 10 ms → 30 ms is not a regression, nor 60 s → 61 s. */
export function isSlower(durationMs: number, baseDurationMs: number, thresholds: Thresholds): boolean {
  return (
    durationMs > baseDurationMs * thresholds.durationRatio &&
    durationMs - baseDurationMs > thresholds.durationFloorMs
  );
}

/** The test's category, or null when nothing worth telling changed (passed in both at the same pace, …). */
export function categoryOf(test: ComparedTest, thresholds: Thresholds): CompareCategory | null {
  const { outcome, baseOutcome } = test;
  if (baseOutcome === null) return outcome === null ? null : 'added';
  if (outcome === null) return 'removed';
  if (outcome === 'failed') return baseOutcome === 'failed' ? 'stillFailing' : 'newFailures';
  if (baseOutcome === 'failed') return outcome === 'skipped' ? null : 'fixed';
  if (outcome === 'flaky' && baseOutcome === 'passed') return 'newlyFlaky';
  if (outcome === 'passed' && baseOutcome === 'passed') {
    const slower =
      test.durationMs !== null &&
      test.baseDurationMs !== null &&
      isSlower(test.durationMs, test.baseDurationMs, thresholds);
    return slower ? 'slower' : null;
  }
  return null;
}

export type Categories = Pick<RunComparison, CompareCategory>;

/** Every category empty: a comparison without a base. */
export function emptyCategories(): Categories {
  const empty = (): Categories[CompareCategory] => ({ count: 0, items: [] });
  return Object.fromEntries(COMPARE_CATEGORIES.map((category) => [category, empty()])) as Categories;
}

/**
 * The tests in their categories: complete counts, and each category's first `limit` items in the order
 * the tests came in.
 *
 * @example const categories = classify(rows, { durationRatio: 1.5, durationFloorMs: 1000 }, 100);
 */
export function classify(tests: Iterable<ComparedTest>, thresholds: Thresholds, limit: number): Categories {
  const categories = emptyCategories();
  for (const test of tests) {
    const category = categoryOf(test, thresholds);
    if (category === null) continue;
    const entry = categories[category];
    entry.count += 1;
    if (entry.items.length < limit) {
      entry.items.push({
        ...test.item,
        outcome: test.outcome,
        baseOutcome: test.baseOutcome,
        durationMs: test.durationMs,
        baseDurationMs: test.baseDurationMs,
      });
    }
  }
  return categories;
}

function compareTitlePaths(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const order = byCodePoint(a[i] as string, b[i] as string);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** The order of a category's items: file, title path, platform, test case id. */
export function byFileAndTitle(a: ComparedTest, b: ComparedTest): number {
  return (
    byCodePoint(a.item.file, b.item.file) ||
    compareTitlePaths(a.item.titlePath, b.item.titlePath) ||
    byCodePoint(a.item.project ?? '', b.item.project ?? '') ||
    byCodePoint(a.item.testCaseId, b.item.testCaseId)
  );
}

/**
 * The tests that can be among the first `limit` items of their category once titled: by file alone, the
 * first `limit` of each category and every other test of the last one's file (titles order tests within a
 * file). Only these need their titles read; the rest only count.
 */
export function titleCandidates(
  tests: readonly ComparedTest[],
  thresholds: Thresholds,
  limit: number,
): Set<ComparedTest> {
  const byCategory = new Map<CompareCategory, ComparedTest[]>();
  for (const test of tests) {
    const category = categoryOf(test, thresholds);
    if (category === null) continue;
    const inCategory = byCategory.get(category);
    if (inCategory) inCategory.push(test);
    else byCategory.set(category, [test]);
  }
  const candidates = new Set<ComparedTest>();
  for (const inCategory of byCategory.values()) {
    inCategory.sort((a, b) => byCodePoint(a.item.file, b.item.file));
    const lastFile = inCategory[Math.min(limit, inCategory.length) - 1]?.item.file;
    for (const test of inCategory) {
      if (lastFile === undefined || test.item.file > lastFile) break;
      candidates.add(test);
    }
  }
  return candidates;
}
