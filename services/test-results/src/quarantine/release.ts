/**
 * A quarantine's release rule (issue 32): lifted by itself after N clean runs in a row on the default
 * branch. Judged when a run on its own base branch (the project's default, unless the run named another)
 * finishes: the last N finished runs of that branch that ran the test since the quarantine was made must
 * each have passed it (every platform it covers; skips do not count as runs of the test).
 */
import { DEFAULT_BASE_BRANCH } from '@verdict/contracts';
import type { TestResultsReadStore } from '../readStore';

export interface Release {
  quarantineId: string;
  cleanRuns: number;
  branch: string;
}

/**
 * The quarantines of the project that the finish of this run releases.
 *
 * @example for (const release of await releasedBy(store, projectId, runId, clock.now())) …
 */
export async function releasedBy(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  runId: string,
  now: Date,
): Promise<Release[]> {
  const list = schemas.runList;
  const { rows } = await db.query<{ quarantine_id: string; release_clean_runs: number; branch: string }>(
    `WITH r AS (
       SELECT project_id, branch FROM ${list}.runs
       WHERE id = $2 AND project_id = $1 AND status = 'finished' AND branch = coalesce(base_branch, $3)
     )
     SELECT q.quarantine_id, q.release_clean_runs, r.branch
     FROM ${schemas.quarantines}.quarantines q JOIN r ON r.project_id = q.project_id
     CROSS JOIN LATERAL (
       SELECT count(*)::int AS runs, count(*) FILTER (WHERE last.clean)::int AS clean
       FROM (
         SELECT bool_and(t.outcome = 'passed') AS clean
         FROM ${list}.run_tests t JOIN ${list}.runs w ON w.id = t.run_id
         WHERE t.project_id = q.project_id AND t.test_case_id = q.test_case_id
           AND (q.platform IS NULL OR t.project = q.platform) AND t.outcome <> 'skipped'
           AND w.branch = r.branch AND w.status = 'finished' AND w.started_at >= q.created_at
         GROUP BY w.id, w.started_at
         ORDER BY w.started_at DESC, w.id DESC
         LIMIT q.release_clean_runs
       ) last
     ) seen
     WHERE q.status = 'active' AND q.expires_at > $4 AND q.release_clean_runs IS NOT NULL
       AND seen.runs = q.release_clean_runs AND seen.clean = q.release_clean_runs`,
    [projectId, runId, DEFAULT_BASE_BRANCH, now.toISOString()],
  );
  return rows.map((row) => ({
    quarantineId: row.quarantine_id,
    cleanRuns: row.release_clean_runs,
    branch: row.branch,
  }));
}
