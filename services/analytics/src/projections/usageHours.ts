/** Executions per project and hour (`usage_hours`), for the usage of a billing period. */
import type { SqlExecutor } from '@verdict/platform';
import type { Change } from './executions';

/** The usage table, in schema `s`. */
export function usageHourTables(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.usage_hours (
       project_id text NOT NULL,
       hour timestamptz NOT NULL,
       executions integer NOT NULL,
       PRIMARY KEY (project_id, hour)
     )`,
  ];
}

/** Executions per project and hour move by the difference of every execution, whatever it changed. */
export async function countUsage(tx: SqlExecutor, s: string, changes: Change[]): Promise<void> {
  const fresh = changes.filter((c) => !c.existed);
  if (fresh.length > 0) {
    await tx.query(
      `INSERT INTO ${s}.usage_hours AS u (project_id, hour, executions)
       SELECT project_id, date_trunc('hour', started_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)::int
       FROM unnest($1::text[], $2::timestamptz[]) AS x(project_id, started_at)
       GROUP BY 1, 2 ORDER BY 1, 2
       ON CONFLICT (project_id, hour) DO UPDATE SET executions = u.executions + EXCLUDED.executions`,
      [fresh.map((c) => c.project_id), fresh.map((c) => c.started_at)],
    );
  }
  const moved = changes.filter(
    (c) => c.old_started_at !== null && c.old_started_at.slice(0, 13) !== c.started_at.slice(0, 13),
  );
  if (moved.length > 0) {
    // An attempt that started earlier than those counted can move its execution to an earlier hour.
    await tx.query(
      `INSERT INTO ${s}.usage_hours AS u (project_id, hour, executions)
       SELECT project_id, date_trunc('hour', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', sum(n)::int
       FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[]) AS x(project_id, before, after),
         LATERAL (VALUES (before, -1), (after, 1)) AS m(at, n)
       GROUP BY 1, 2 ORDER BY 1, 2
       ON CONFLICT (project_id, hour) DO UPDATE SET executions = u.executions + EXCLUDED.executions`,
      [moved.map((c) => c.project_id), moved.map((c) => c.old_started_at), moved.map((c) => c.started_at)],
    );
  }
}
