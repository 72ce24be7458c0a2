import type { RunSpecTest } from '../../api/queries';
import { sortTests } from './sortTests';

const test = (outcome: string, title: string) => ({ outcome, titlePath: [title] }) as unknown as RunSpecTest;

describe('sortTests', () => {
  it('lists failures first, then flaky, passed and skipped, each by title, leaving the given list alone', () => {
    const given = [
      test('passed', 'b'),
      test('skipped', 'a'),
      test('failed', 'z'),
      test('passed', 'a'),
      test('flaky', 'c'),
    ];
    expect(sortTests(given).map((one) => `${one.outcome} ${one.titlePath[0]}`)).toEqual([
      'failed z',
      'flaky c',
      'passed a',
      'passed b',
      'skipped a',
    ]);
    expect(given[0]!.outcome).toBe('passed');
  });
});
