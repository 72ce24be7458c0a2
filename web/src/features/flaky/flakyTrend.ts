/** The days of a window and, for a test, which of them it was flaky on: the flaky view's trend strip. */

/** Every UTC day from `from` to `to` (inclusive), as YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${to.slice(0, 10)}T00:00:00Z`);
  for (
    let at = Date.parse(`${from.slice(0, 10)}T00:00:00Z`);
    at <= end && days.length < 400;
    at += 86_400_000
  ) {
    days.push(new Date(at).toISOString().slice(0, 10));
  }
  return days;
}

/** The key the explorer and the analytics summary share for a test: its file and its title. */
export const flakyKey = (filePath: string, title: string) => `${filePath}\n${title}`;

/** The latest day of a list of dates, or null. */
export const lastDay = (dates: readonly string[]): string | null =>
  dates.length === 0 ? null : [...dates].sort().at(-1)!.slice(0, 10);
