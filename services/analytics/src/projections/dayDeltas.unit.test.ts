import { dayDeltas, type ExecutionDelta } from './dayDeltas';

const execution = (
  run_id: string,
  started_at: string,
  outcome: string,
  duration_ms: number,
  before: { outcome: string; duration: number } | null = null,
): ExecutionDelta & { day: string; case_id: string } => ({
  run_id,
  started_at,
  outcome,
  duration_ms,
  old_outcome: before?.outcome ?? null,
  old_duration: before?.duration ?? null,
  day: started_at.slice(0, 10),
  case_id: 'A',
});

describe('per-day deltas of a batch', () => {
  it('when new executions of one day come in, then each counts once and the latest start is the last', () => {
    const [row, ...rest] = dayDeltas(
      [
        execution('r1', '2026-03-09T10:00:00.000000Z', 'passed', 100),
        execution('r2', '2026-03-09T12:00:00.000000Z', 'failed', 300),
        execution('r3', '2026-03-09T11:00:00.000000Z', 'flaky', 200),
      ],
      (c) => [c.day, c.case_id],
    );
    expect(rest).toEqual([]);
    expect(row).toEqual({
      key: ['2026-03-09', 'A'],
      executions: 3,
      passed: 1,
      failed: 1,
      flaky: 1,
      skipped: 0,
      duration_sum: 600,
      duration_max: 300,
      last_at: '2026-03-09T12:00:00.000000Z',
      last_run_id: 'r2',
      last_duration: 300,
      last_outcome: 'failed',
    });
  });

  it('when a known execution gains an attempt, then its outcome moves and only its duration growth adds', () => {
    const [row] = dayDeltas(
      [
        execution('r1', '2026-03-09T10:00:00.000000Z', 'flaky', 500, {
          outcome: 'failed',
          duration: 200,
        }),
      ],
      (c) => [c.day],
    );
    expect(row).toMatchObject({ executions: 0, failed: -1, flaky: 1, passed: 0, duration_sum: 300 });
  });

  it('when two executions start at the same instant, then the greater run id is the latest', () => {
    const [row] = dayDeltas(
      [
        execution('r2', '2026-03-09T10:00:00.000000Z', 'failed', 1),
        execution('r1', '2026-03-09T10:00:00.000000Z', 'passed', 2),
      ],
      (c) => [c.day],
    );
    expect(row).toMatchObject({ last_run_id: 'r2', last_outcome: 'failed', last_duration: 1 });
  });

  it('when executions fall on several days, then there is one row per day, in key order', () => {
    const rows = dayDeltas(
      [
        execution('r2', '2026-03-10T10:00:00.000000Z', 'passed', 1),
        execution('r1', '2026-03-09T10:00:00.000000Z', 'passed', 1),
      ],
      (c) => [c.day],
    );
    expect(rows.map((r) => r.key)).toEqual([['2026-03-09'], ['2026-03-10']]);
  });
});
