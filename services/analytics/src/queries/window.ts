import { daysOfRange, type AnalyticsDateRange } from '@verdict/contracts';

/** A span of whole UTC days: `from` at midnight, `to` the midnight after its last day (exclusive). */
export interface DayWindow {
  from: Date;
  to: Date;
  days: number;
  /** First and last day, `YYYY-MM-DD`. */
  firstDay: string;
  lastDay: string;
}

const DAY_MS = 86_400_000;

export const startOfUtcDay = (at: Date): Date =>
  new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));

const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** The last `days` UTC days, today included. */
export function lastDays(now: Date, days: number): DayWindow {
  const to = new Date(startOfUtcDay(now).getTime() + DAY_MS);
  const from = new Date(to.getTime() - days * DAY_MS);
  return { from, to, days, firstDay: dayOf(from), lastDay: dayOf(new Date(to.getTime() - DAY_MS)) };
}

/** `startDate`..`endDate`, both days included. */
export function betweenDays(start: string, end: string): DayWindow {
  const from = startOfUtcDay(new Date(start));
  const to = new Date(startOfUtcDay(new Date(end)).getTime() + DAY_MS);
  const days = Math.max(1, Math.round((to.getTime() - from.getTime()) / DAY_MS));
  return { from, to, days, firstDay: dayOf(from), lastDay: dayOf(new Date(to.getTime() - DAY_MS)) };
}

/**
 * Spec §4.10: `dateRange` wins; else `startDate` + `endDate`; else the last `fallbackDays` days.
 *
 * @example const window = dateWindow(now, { dateRange: '7d' }, 30);
 */
export function dateWindow(
  now: Date,
  query: {
    dateRange?: AnalyticsDateRange | undefined;
    startDate?: string | undefined;
    endDate?: string | undefined;
  },
  fallbackDays: number,
): DayWindow {
  if (query.dateRange !== undefined) return lastDays(now, daysOfRange(query.dateRange));
  if (query.startDate !== undefined && query.endDate !== undefined) {
    return betweenDays(query.startDate, query.endDate);
  }
  return lastDays(now, fallbackDays);
}

/** A percentage with two decimals; 0 of 0 is 0. */
export const percent = (part: number, whole: number): number =>
  whole > 0 ? Math.round((10_000 * part) / whole) / 100 : 0;

export const round2 = (value: number): number => Math.round(value * 100) / 100;

/** The last segment of a path, separated by slashes or backslashes; a summary names thousands of them. */
export const fileNameOf = (path: string): string =>
  path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);

/** The Monday (UTC) of the week a day falls in, `YYYY-MM-DD`: the key of the weekly totals. */
export function weekOf(day: string): string {
  const at = new Date(`${day}T00:00:00Z`);
  return dayOf(new Date(at.getTime() - ((at.getUTCDay() + 6) % 7) * DAY_MS));
}

/** Days `first`..`last`, both included, `YYYY-MM-DD`. */
export interface DaySpan {
  first: string;
  last: string;
}

/**
 * A window as the whole weeks inside it (Mondays `weeks.first`..`weeks.last`) and the days at either end
 * outside them, so a sum over the window reads one weekly row per test case and week instead of seven. A
 * window without a whole week is all days.
 *
 * @example weeksOf({ firstDay: '2026-11-01', lastDay: '2026-11-30', ... }) // weeks 11-02..11-23, days 11-01 and 11-30
 */
export function weeksOf(window: Pick<DayWindow, 'firstDay' | 'lastDay'>): {
  weeks: DaySpan | null;
  days: DaySpan[];
} {
  const first = new Date(`${window.firstDay}T00:00:00Z`).getTime();
  const last = new Date(`${window.lastDay}T00:00:00Z`).getTime();
  const firstMonday = first + ((8 - new Date(first).getUTCDay()) % 7) * DAY_MS;
  const lastMonday = new Date(`${weekOf(window.lastDay)}T00:00:00Z`).getTime();
  // The last week is whole when the window reaches its Sunday.
  const lastWholeMonday = last - lastMonday === 6 * DAY_MS ? lastMonday : lastMonday - 7 * DAY_MS;
  if (lastWholeMonday < firstMonday)
    return { weeks: null, days: [{ first: window.firstDay, last: window.lastDay }] };
  const day = (ms: number) => dayOf(new Date(ms));
  const days: DaySpan[] = [];
  if (firstMonday > first) days.push({ first: window.firstDay, last: day(firstMonday - DAY_MS) });
  const afterWeeks = lastWholeMonday + 7 * DAY_MS;
  if (afterWeeks <= last) days.push({ first: day(afterWeeks), last: window.lastDay });
  return { weeks: { first: day(firstMonday), last: day(lastWholeMonday) }, days };
}
