import { FREE_PLAN, type Plan } from '@verdict/contracts';
import { billingPeriod } from './usage';
import { dateWindow } from './window';

const plan = (periodStart: string, periodEnd: string): Plan => ({
  name: 'team',
  testCaseLimit: 100,
  projectLimit: 2,
  periodStart,
  periodEnd,
});
const iso = ({ start, end }: { start: Date; end: Date }) => [start.toISOString(), end.toISOString()];

describe('billing periods', () => {
  it('when there is no plan period, then the period is the calendar month in UTC', () => {
    expect(iso(billingPeriod(FREE_PLAN, new Date('2026-02-28T23:59:59Z')))).toEqual([
      '2026-02-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
  });

  it('when now is within the plan period, then that is the period', () => {
    const period = billingPeriod(
      plan('2026-03-15T00:00:00Z', '2026-04-15T00:00:00Z'),
      new Date('2026-04-14T23:00:00Z'),
    );
    expect(iso(period)).toEqual(['2026-03-15T00:00:00.000Z', '2026-04-15T00:00:00.000Z']);
  });

  it('when the plan period is over, then it rolls over month by month from its end', () => {
    const period = billingPeriod(
      plan('2026-03-15T00:00:00Z', '2026-04-15T00:00:00Z'),
      new Date('2026-06-20T00:00:00Z'),
    );
    expect(iso(period)).toEqual(['2026-06-15T00:00:00.000Z', '2026-07-15T00:00:00.000Z']);
  });

  it('when the period ends on the 31st, then shorter months end on their last day', () => {
    const period = billingPeriod(
      plan('2026-01-01T00:00:00Z', '2026-01-31T00:00:00Z'),
      new Date('2026-02-10T00:00:00Z'),
    );
    expect(iso(period)).toEqual(['2026-01-31T00:00:00.000Z', '2026-02-28T00:00:00.000Z']);
  });

  it('when the plan period has not started yet, then the calendar month applies', () => {
    const period = billingPeriod(
      plan('2026-05-01T00:00:00Z', '2026-06-01T00:00:00Z'),
      new Date('2026-04-10T00:00:00Z'),
    );
    expect(iso(period)).toEqual(['2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z']);
  });
});

describe('date windows', () => {
  const now = new Date('2026-03-10T15:00:00Z');

  it('when dateRange is 7d, then the window is the last 7 UTC days, today included', () => {
    const window = dateWindow(now, { dateRange: '7d', startDate: '2020-01-01', endDate: '2020-01-02' }, 30);
    expect([window.firstDay, window.lastDay, window.days]).toEqual(['2026-03-04', '2026-03-10', 7]);
  });

  it('when startDate and endDate are given without dateRange, then both days are included', () => {
    const window = dateWindow(now, { startDate: '2026-02-27', endDate: '2026-03-01' }, 30);
    expect([window.firstDay, window.lastDay, window.days]).toEqual(['2026-02-27', '2026-03-01', 3]);
  });

  it('when nothing is given, then the last 30 days', () => {
    const window = dateWindow(now, {}, 30);
    expect([window.firstDay, window.lastDay, window.days]).toEqual(['2026-02-09', '2026-03-10', 30]);
  });
});
