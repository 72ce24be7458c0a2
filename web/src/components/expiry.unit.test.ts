import { dayAfter, dayValue, daysAhead, expiryOf, expiryProblem } from './expiry';

const now = new Date(2026, 10, 29, 9, 30);

describe('a quarantine expiry picked as a day', () => {
  test('when a day is picked, then it is that many whole days from now', () => {
    expect(dayValue(now)).toBe('2026-11-29');
    expect(dayAfter(now, 14)).toBe('2026-12-13');
    expect(daysAhead('2026-12-13', now)).toBe(14);
    expect(Date.parse(expiryOf('2026-12-13', now)) - now.getTime()).toBe(14 * 86_400_000);
  });

  test('when the day is missing, today or past, or too far ahead, then it says why', () => {
    expect(expiryProblem('', now, 90)).toBe('Pick the day it expires');
    expect(expiryProblem('2026-11-29', now, 90)).toBe('Pick a day after today');
    expect(expiryProblem(dayAfter(now, 91), now, 90)).toBe('At most 90 days from today');
    expect(expiryProblem(dayAfter(now, 90), now, 90)).toBeNull();
  });

  test('when an extension is picked, then it must end after the current expiry', () => {
    const current = new Date(now.getTime() + 10 * 86_400_000).toISOString();
    expect(expiryProblem(dayAfter(now, 10), now, 90, current)).toBe('Pick a day after the current expiry');
    expect(expiryProblem(dayAfter(now, 11), now, 90, current)).toBeNull();
  });
});
