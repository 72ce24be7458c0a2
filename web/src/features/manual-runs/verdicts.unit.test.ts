import { formatElapsed, nextToTest, step } from './verdicts';

describe('moving through a manual run', () => {
  it('when moving past either end, then the first or the last case stays current', () => {
    expect(step(0, -1, 3)).toBe(0);
    expect(step(2, 1, 3)).toBe(2);
    expect(step(1, 1, 3)).toBe(2);
  });

  it('when a verdict is given, then the next case still to test (untested or retest) comes next', () => {
    expect(nextToTest(['passed', 'passed', 'untested', 'retest'], 0)).toBe(2);
    expect(nextToTest(['untested', 'passed', 'failed', 'retest'], 0)).toBe(3);
    expect(nextToTest(['untested', 'passed', 'failed'], 0)).toBe(1);
  });

  it('when time passes, then it reads as a stopwatch does', () => {
    expect(formatElapsed(65)).toBe('1:05');
    expect(formatElapsed(43_207)).toBe('12:00:07');
  });
});
