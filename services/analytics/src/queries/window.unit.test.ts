import { fileNameOf, weekOf, weeksOf } from './window';

describe('weeks of a window', () => {
  it('when a day is given, then its week is the Monday on or before it', () => {
    expect(weekOf('2026-11-22')).toBe('2026-11-16'); // a Sunday
    expect(weekOf('2026-11-16')).toBe('2026-11-16'); // a Monday
    expect(weekOf('2026-11-17')).toBe('2026-11-16');
    expect(weekOf('2027-01-01')).toBe('2026-12-28'); // across the year
  });

  it('when the window has whole weeks, then they are weeks and the days at either end are days', () => {
    expect(weeksOf({ firstDay: '2026-10-24', lastDay: '2026-11-22' })).toEqual({
      weeks: { first: '2026-10-26', last: '2026-11-16' },
      days: [{ first: '2026-10-24', last: '2026-10-25' }],
    });
    expect(weeksOf({ firstDay: '2026-11-02', lastDay: '2026-11-25' })).toEqual({
      weeks: { first: '2026-11-02', last: '2026-11-16' },
      days: [{ first: '2026-11-23', last: '2026-11-25' }],
    });
    expect(weeksOf({ firstDay: '2026-11-01', lastDay: '2026-11-30' })).toEqual({
      weeks: { first: '2026-11-02', last: '2026-11-23' },
      days: [
        { first: '2026-11-01', last: '2026-11-01' },
        { first: '2026-11-30', last: '2026-11-30' },
      ],
    });
  });

  it('when the window is exactly one week from Monday to Sunday, then it is that week and no days', () => {
    expect(weeksOf({ firstDay: '2026-11-16', lastDay: '2026-11-22' })).toEqual({
      weeks: { first: '2026-11-16', last: '2026-11-16' },
      days: [],
    });
  });

  it('when the window holds no whole week, then it is all days', () => {
    expect(weeksOf({ firstDay: '2026-11-17', lastDay: '2026-11-23' })).toEqual({
      weeks: null,
      days: [{ first: '2026-11-17', last: '2026-11-23' }],
    });
    expect(weeksOf({ firstDay: '2026-11-22', lastDay: '2026-11-22' })).toEqual({
      weeks: null,
      days: [{ first: '2026-11-22', last: '2026-11-22' }],
    });
  });

  it('when weeks and days are put back together, then they cover every day of the window once', () => {
    const DAY = 86_400_000;
    const start = Date.UTC(2026, 0, 1);
    for (let offset = 0; offset < 14; offset += 1) {
      for (let length = 1; length <= 40; length += 1) {
        const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
        const firstDay = day(start + offset * DAY);
        const lastDay = day(start + (offset + length - 1) * DAY);
        const { weeks, days } = weeksOf({ firstDay, lastDay });
        const covered: string[] = [];
        for (const span of days) {
          for (let at = Date.parse(span.first); at <= Date.parse(span.last); at += DAY) covered.push(day(at));
        }
        if (weeks) {
          for (let monday = Date.parse(weeks.first); monday <= Date.parse(weeks.last); monday += 7 * DAY) {
            expect(weekOf(day(monday))).toBe(day(monday));
            for (let d = 0; d < 7; d += 1) covered.push(day(monday + d * DAY));
          }
        }
        expect(covered.sort()).toEqual(Array.from({ length }, (_, i) => day(start + (offset + i) * DAY)));
      }
    }
  });
});

describe('fileNameOf', () => {
  it('when a path has slashes or backslashes, then the name is what follows the last of them', () => {
    expect(fileNameOf('tests/cart/pay.spec.ts')).toBe('pay.spec.ts');
    expect(fileNameOf('tests\\cart\\pay.spec.ts')).toBe('pay.spec.ts');
    expect(fileNameOf('a\\b/c.spec.ts')).toBe('c.spec.ts');
    expect(fileNameOf('pay.spec.ts')).toBe('pay.spec.ts');
    expect(fileNameOf('tests/')).toBe('');
  });
});
