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

export const fileNameOf = (path: string): string => path.split(/[\\/]/).at(-1) ?? path;
