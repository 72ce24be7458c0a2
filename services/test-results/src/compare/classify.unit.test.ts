import type { Outcome } from '@verdict/contracts';
import {
  byFileAndTitle,
  categoryOf,
  classify,
  isSlower,
  titleCandidates,
  type ComparedTest,
} from './classify';

const thresholds = { durationRatio: 1.5, durationFloorMs: 1_000 };

function test(
  name: string,
  outcome: Outcome | null,
  baseOutcome: Outcome | null,
  durationMs: number | null = outcome === null ? null : 100,
  baseDurationMs: number | null = baseOutcome === null ? null : 100,
): ComparedTest {
  return {
    item: {
      testCaseId: name,
      title: name,
      titlePath: [name],
      file: 'a.spec.ts',
      project: null,
      signature: null,
    },
    outcome,
    baseOutcome,
    durationMs,
    baseDurationMs,
  };
}

describe('run comparison categories', () => {
  it.each([
    ['failed', 'passed', 'newFailures'],
    ['failed', 'flaky', 'newFailures'],
    ['failed', 'skipped', 'newFailures'],
    ['passed', 'failed', 'fixed'],
    ['flaky', 'failed', 'fixed'],
    ['failed', 'failed', 'stillFailing'],
    ['flaky', 'passed', 'newlyFlaky'],
    ['passed', null, 'added'],
    ['failed', null, 'added'],
    [null, 'passed', 'removed'],
    [null, 'failed', 'removed'],
  ] as const)('when the run says %s and the base %s, then the test is in %s', (outcome, base, category) => {
    expect(categoryOf(test('t', outcome, base), thresholds)).toBe(category);
  });

  it.each([
    ['passed', 'passed'],
    ['flaky', 'flaky'],
    ['passed', 'flaky'],
    ['skipped', 'failed'],
    ['skipped', 'passed'],
    ['passed', 'skipped'],
    ['flaky', 'skipped'],
  ] as const)('when the run says %s and the base %s at the same pace, then no category', (outcome, base) => {
    expect(categoryOf(test('t', outcome, base), thresholds)).toBeNull();
  });

  it('when a test passed in both and is slower by more than both the ratio and the floor, then it is slower', () => {
    expect(categoryOf(test('t', 'passed', 'passed', 4_000, 2_000), thresholds)).toBe('slower');
  });

  it.each([
    ['over the ratio but not the floor', 300, 100],
    ['over the floor but not the ratio', 61_000, 60_000],
    ['exactly at the ratio', 3_000, 2_000],
    ['exactly at the floor', 2_000, 1_000],
    ['faster', 1_000, 5_000],
  ])('when a passed test is %s, then it is not slower', (_case, duration, base) => {
    expect(categoryOf(test('t', 'passed', 'passed', duration, base), thresholds)).toBeNull();
  });

  it('when the floor is exactly reached but not passed, then it is not slower; one millisecond more is', () => {
    const wide = { durationRatio: 1.2, durationFloorMs: 1_000 };
    expect(isSlower(3_000, 2_000, wide)).toBe(false);
    expect(isSlower(3_001, 2_000, wide)).toBe(true);
  });

  it('when a failed test is slower, then it counts as a failure only', () => {
    expect(categoryOf(test('t', 'failed', 'failed', 9_000, 100), thresholds)).toBe('stillFailing');
    expect(categoryOf(test('t', 'flaky', 'passed', 9_000, 100), thresholds)).toBe('newlyFlaky');
  });

  it('when the thresholds are lowered, then a smaller slow-down counts', () => {
    const strict = { durationRatio: 1, durationFloorMs: 0 };
    expect(categoryOf(test('t', 'passed', 'passed', 101, 100), strict)).toBe('slower');
    expect(categoryOf(test('t', 'passed', 'passed', 100, 100), strict)).toBeNull();
  });

  it('when a category has more tests than the limit, then its count is complete and its items the first ones', () => {
    const tests = [
      ...Array.from({ length: 5 }, (_, i) => test(`new-${i}`, 'failed', 'passed')),
      test('fixed', 'passed', 'failed'),
      test('same', 'passed', 'passed'),
    ];
    const categories = classify(tests, thresholds, 2);
    expect(categories.newFailures.count).toBe(5);
    expect(categories.newFailures.items.map((item) => item.testCaseId)).toEqual(['new-0', 'new-1']);
    expect(categories.newFailures.items[0]).toMatchObject({ outcome: 'failed', baseOutcome: 'passed' });
    expect(categories.fixed).toMatchObject({ count: 1, items: [{ testCaseId: 'fixed' }] });
    for (const empty of ['stillFailing', 'newlyFlaky', 'added', 'removed', 'slower'] as const) {
      expect(categories[empty]).toEqual({ count: 0, items: [] });
    }
  });

  it('when a category has more tests than the limit, then only the first files up to the limit-th test, that file whole, need titles', () => {
    const inFile = (name: string, file: string, outcome: Outcome, baseOutcome: Outcome) => {
      const made = test(name, outcome, baseOutcome);
      return { ...made, item: { ...made.item, file } };
    };
    const tests = [
      inFile('c1', 'c.spec.ts', 'failed', 'passed'),
      inFile('a1', 'a.spec.ts', 'failed', 'passed'),
      inFile('b2', 'b.spec.ts', 'failed', 'passed'),
      inFile('b1', 'b.spec.ts', 'failed', 'passed'),
      inFile('fixed', 'z.spec.ts', 'passed', 'failed'),
      inFile('same', 'a.spec.ts', 'passed', 'passed'),
    ];
    const names = (set: Set<ComparedTest>) => [...set].map((t) => t.item.testCaseId).sort();
    // a1 and b2 reach the limit of 2; b1 shares b2's file, so its title may put it first.
    expect(names(titleCandidates(tests, thresholds, 2))).toEqual(['a1', 'b1', 'b2', 'fixed']);
    expect(names(titleCandidates(tests, thresholds, 10))).toEqual(['a1', 'b1', 'b2', 'c1', 'fixed']);
  });

  it('when items are ordered, then by file, then title path (a shorter path first), platform and id', () => {
    const at = (id: string, file: string, titlePath: string[], project: string | null = null) => {
      const made = test(id, 'failed', 'passed');
      return { ...made, item: { ...made.item, testCaseId: id, file, titlePath, project } };
    };
    const ordered = [
      at('4', 'b.spec.ts', ['A']),
      at('3', 'a.spec.ts', ['B', 'x']),
      at('2', 'a.spec.ts', ['B'], 'webkit'),
      at('1', 'a.spec.ts', ['B'], 'chromium'),
      at('0', 'a.spec.ts', ['A', 'z']),
    ].sort(byFileAndTitle);
    expect(ordered.map((t) => t.item.testCaseId)).toEqual(['0', '1', '2', '3', '4']);
  });
});
