import { weeksOf, type DayWindow } from './window';

/**
 * Positional parameters of one statement: `param(value)` binds a value and names its placeholder, after
 * the values already in `params`.
 *
 * @example const { params, param } = bindings([projectId]); const sql = `day >= ${param(day)}`;
 */
export function bindings(first: unknown[]): { params: unknown[]; param: (value: unknown) => string } {
  const params = [...first];
  return {
    params,
    param: (value) => {
      params.push(value);
      return `$${params.length}`;
    },
  };
}

/**
 * SQL of the per-test-case totals rows over a window, every platform, environment and branch together: the
 * weekly totals of the whole weeks inside it and the daily totals of the days at its ends. Columns: case_id,
 * executions, failed, flaky, skipped, duration_sum, last_at, last_outcome, last_run_id; several rows per test case,
 * to be summed. `param` binds a value and names its placeholder; the project is `$1`.
 *
 * @example const source = caseTotalsOver(schema, window, param);
 */
export function caseTotalsOver(
  schema: string,
  window: Pick<DayWindow, 'firstDay' | 'lastDay'>,
  param: (value: unknown) => string,
): string {
  const { weeks, days } = weeksOf(window);
  const columns =
    'case_id, executions, failed, flaky, skipped, duration_sum, last_at, last_outcome, last_run_id';
  const parts = [];
  if (weeks !== null) {
    parts.push(`SELECT ${columns} FROM ${schema}.case_week_totals
      WHERE project_id = $1 AND week >= ${param(weeks.first)}::date AND week <= ${param(weeks.last)}::date`);
  }
  for (const span of days) {
    parts.push(`SELECT ${columns} FROM ${schema}.case_day_totals
      WHERE project_id = $1 AND day >= ${param(span.first)}::date AND day <= ${param(span.last)}::date`);
  }
  return parts.join(' UNION ALL ');
}
