/**
 * The verdicts of a manual run (spec §4.4) as the execution page uses them: the key of each, and where the
 * next case to test is. No I/O.
 */
export const VERDICTS = [
  { result: 'passed', key: 'P', label: 'Passed' },
  { result: 'failed', key: 'F', label: 'Failed' },
  { result: 'blocked', key: 'B', label: 'Blocked' },
  { result: 'skipped', key: 'S', label: 'Skipped' },
  { result: 'retest', key: 'R', label: 'Retest' },
] as const;
export type Verdict = (typeof VERDICTS)[number]['result'];
export type RunCaseResult = Verdict | 'untested';

/** The index after `index` (or before, with -1), kept inside the list. */
export function step(index: number, by: 1 | -1, length: number): number {
  if (length === 0) return 0;
  return Math.min(length - 1, Math.max(0, index + by));
}

/** Where to go after a verdict: the next case still to test after `index`, else simply the next one. */
export function nextToTest(results: readonly RunCaseResult[], index: number): number {
  for (let i = index + 1; i < results.length; i += 1) {
    if (results[i] === 'untested' || results[i] === 'retest') return i;
  }
  return step(index, 1, results.length);
}

/** "1:05", "12:00:07": a stopwatch's reading of whole seconds. */
export function formatElapsed(seconds: number): string {
  const s = Math.floor(seconds % 60);
  const m = Math.floor(seconds / 60) % 60;
  const h = Math.floor(seconds / 3600);
  const two = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}
