/**
 * A quarantine's expiry as a day picked in a date field: the API takes an instant in the future, at most
 * 90 days ahead. The picked day's instant is now plus whole days, so "90 days from today" is allowed.
 */
const DAY_MS = 86_400_000;

const midnight = (date: Date) => new Date(date.getFullYear(), date.getMonth(), date.getDate());
const pad = (value: number) => String(value).padStart(2, '0');

/** A date field's value (local day): "2026-12-13". */
export function dayValue(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The day `days` after today, as a date field's value. */
export const dayAfter = (now: Date, days: number) =>
  dayValue(new Date(midnight(now).getTime() + days * DAY_MS + DAY_MS / 2));

/** Whole days from today to a date field's value; null when it is not a day. */
export function daysAhead(day: string, now: Date): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return null;
  const picked = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (Number.isNaN(picked.getTime())) return null;
  return Math.round((picked.getTime() - midnight(now).getTime()) / DAY_MS);
}

/** The instant sent for a picked day: now plus its whole days. */
export function expiryOf(day: string, now: Date): string {
  return new Date(now.getTime() + (daysAhead(day, now) ?? 0) * DAY_MS).toISOString();
}

/** Why a picked day cannot be the expiry, or null; `after`: the current expiry an extension must pass. */
export function expiryProblem(day: string, now: Date, maxDays: number, after?: string): string | null {
  const days = daysAhead(day, now);
  if (days === null) return 'Pick the day it expires';
  if (days < 1) return 'Pick a day after today';
  if (days > maxDays) return `At most ${maxDays} days from today`;
  if (after !== undefined && Date.parse(expiryOf(day, now)) <= Date.parse(after))
    return 'Pick a day after the current expiry';
  return null;
}
