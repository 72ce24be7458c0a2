import { daysBetween, lastDay } from './flakyTrend';

describe('the flaky trend strip', () => {
  it('when a window spans a month end, then every day is listed once, in order', () => {
    expect(daysBetween('2026-01-30', '2026-02-02T10:00:00Z')).toEqual([
      '2026-01-30',
      '2026-01-31',
      '2026-02-01',
      '2026-02-02',
    ]);
  });

  it('when the window is reversed, then it has no day', () => {
    expect(daysBetween('2026-02-02', '2026-02-01')).toEqual([]);
  });

  it('when a test was flaky on several days, then its last flaky day is the latest of them', () => {
    expect(lastDay(['2026-02-01', '2026-02-09T12:00:00Z', '2026-02-03'])).toBe('2026-02-09');
    expect(lastDay([])).toBeNull();
  });
});
