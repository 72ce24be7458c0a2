/**
 * What a batch adds to the per-day aggregate rows (case_days, case_day_totals), computed here rather than in
 * SQL: the batch's executions are already in memory, and grouping them in the statement cost as much as the
 * upsert itself. Pure: no I/O.
 */
import { byCodePoint } from '@verdict/platform';

/** One execution as the batch left it, and as it was before (old_* null when it is new). */
export interface ExecutionDelta {
  run_id: string;
  /** ISO 8601 in UTC with microseconds, as the read model formats it: ordered as text. */
  started_at: string;
  outcome: string;
  duration_ms: number;
  old_outcome: string | null;
  old_duration: number | null;
}

/** The difference a batch makes to one aggregate row, and the batch's latest execution in it. */
export interface DayDelta {
  /** The row's key columns, in the order they were asked for. */
  key: string[];
  executions: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
  duration_sum: number;
  duration_max: number;
  last_at: string;
  last_run_id: string;
  last_duration: number;
  last_outcome: string;
}

const OUTCOMES = ['passed', 'failed', 'flaky', 'skipped'] as const;

/** Later start first, then the greater run id: the order the read model calls "latest". */
function isLater(a: ExecutionDelta, than: { last_at: string; last_run_id: string }): boolean {
  if (a.started_at !== than.last_at) return a.started_at > than.last_at;
  return a.run_id > than.last_run_id;
}

/**
 * Groups executions by `keyOf` and sums what each changed: a new execution counts once, an outcome that
 * changed moves one count from the old outcome to the new, durations add their growth. Sorted by key, so
 * concurrent batches lock the rows they upsert in the same order.
 *
 * @example const rows = dayDeltas(changes, (c) => [c.project_id, c.day, c.case_id]);
 */
export function dayDeltas<C extends ExecutionDelta>(
  changes: C[],
  keyOf: (change: C) => string[],
): DayDelta[] {
  const groups = new Map<string, DayDelta>();
  for (const change of changes) {
    const key = keyOf(change);
    const id = key.join('\u0000');
    let group = groups.get(id);
    if (group === undefined) {
      group = {
        key,
        executions: 0,
        passed: 0,
        failed: 0,
        flaky: 0,
        skipped: 0,
        duration_sum: 0,
        duration_max: change.duration_ms,
        last_at: change.started_at,
        last_run_id: change.run_id,
        last_duration: change.duration_ms,
        last_outcome: change.outcome,
      };
      groups.set(id, group);
    }
    if (change.old_outcome === null) group.executions += 1;
    for (const outcome of OUTCOMES) {
      group[outcome] += Number(change.outcome === outcome) - Number(change.old_outcome === outcome);
    }
    group.duration_sum += change.duration_ms - (change.old_duration ?? 0);
    group.duration_max = Math.max(group.duration_max, change.duration_ms);
    if (isLater(change, group)) {
      group.last_at = change.started_at;
      group.last_run_id = change.run_id;
      group.last_duration = change.duration_ms;
      group.last_outcome = change.outcome;
    }
  }
  return [...groups.entries()].sort(([a], [b]) => byCodePoint(a, b)).map(([, group]) => group);
}
