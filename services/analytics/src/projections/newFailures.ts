/**
 * New failures: failed executions whose previous execution in the same environment, branch and platform
 * passed (or was flaky), or that had none. Decided again, from the executions, only where a batch touched a
 * failure or its neighbours.
 */
import type { SqlExecutor } from '@verdict/platform';
import type { ExecutionKey } from './executions';

/** The new failures table and its indexes, in schema `s`. */
export function newFailureTables(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.new_failures (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       project_id text NOT NULL,
       environment text NOT NULL,
       branch text NOT NULL,
       started_at timestamptz NOT NULL,
       day date NOT NULL,
       PRIMARY KEY (run_id, case_id, platform)
     )`,
    `CREATE INDEX IF NOT EXISTS new_failures_group ON ${s}.new_failures
       (project_id, case_id, environment, branch, platform, started_at)`,
    `CREATE INDEX IF NOT EXISTS new_failures_day ON ${s}.new_failures (project_id, day)`,
  ];
}

/**
 * Re-decides new failures in every touched (case, environment, branch, platform) group from the earliest
 * touched execution on: each failed execution whose previous non-skipped execution of the group passed
 * (or was flaky), or that has none, is a new failure.
 */
export async function recomputeNewFailures(tx: SqlExecutor, s: string, keys: ExecutionKey[]): Promise<void> {
  const groups = new Map<string, ExecutionKey>();
  for (const k of keys) {
    const id = [k.project_id, k.case_id, k.environment, k.branch, k.platform].join('\u0000');
    const seen = groups.get(id);
    if (!seen || k.started_at < seen.started_at) groups.set(id, k);
  }
  if (groups.size === 0) return;
  const json = JSON.stringify(
    [...groups.values()].map(({ project_id, case_id, environment, branch, platform, started_at }) => ({
      project_id,
      case_id,
      environment,
      branch,
      platform,
      since: started_at,
    })),
  );
  const dirty = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, case_id text,
    environment text, branch text, platform text, since timestamptz)`;
  const sameGroup = `c.project_id = d.project_id AND c.case_id = d.case_id AND c.environment = d.environment
    AND c.branch = d.branch AND c.platform = d.platform`;
  await tx.query(
    `DELETE FROM ${s}.new_failures c USING (${dirty}) d WHERE ${sameGroup} AND c.started_at >= d.since`,
    [json],
  );
  await tx.query(
    `INSERT INTO ${s}.new_failures (run_id, case_id, platform, project_id, environment, branch, started_at, day)
     SELECT run_id, case_id, platform, project_id, environment, branch, started_at, day
     FROM (
       SELECT c.*, d.since,
         lag(c.outcome) OVER (PARTITION BY c.project_id, c.case_id, c.environment, c.branch, c.platform
                              ORDER BY c.started_at, c.run_id) AS previous
       FROM (${dirty}) d
       -- Only a group that failed since then can hold a new failure; most groups stop at this lookup.
       CROSS JOIN LATERAL (
         SELECT 1 FROM ${s}.case_runs c WHERE ${sameGroup} AND c.outcome = 'failed' AND c.started_at >= d.since
         LIMIT 1
       ) failed
       CROSS JOIN LATERAL (
         (SELECT c.* FROM ${s}.case_runs c WHERE ${sameGroup} AND c.outcome <> 'skipped' AND c.started_at < d.since
          ORDER BY c.started_at DESC, c.run_id DESC LIMIT 1)
         UNION ALL
         (SELECT c.* FROM ${s}.case_runs c WHERE ${sameGroup} AND c.outcome <> 'skipped' AND c.started_at >= d.since)
       ) c
     ) ordered
     WHERE started_at >= since AND outcome = 'failed' AND (previous IS NULL OR previous IN ('passed', 'flaky'))
     ON CONFLICT DO NOTHING`,
    [json],
  );
}
