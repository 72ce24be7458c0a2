/**
 * Commit conflicts: the failed executions of a test case that also passed on the same commit in another
 * run, and those passes, so that a window can ask for both sides in it (the summary's flaky list). Decided
 * again, from the executions, for every (test case, commit) a batch touched with a failure or a pass.
 */
import type { SqlExecutor } from '@verdict/platform';
import { unique, type ExecutionKey } from './executions';

/** The commit conflicts table and its indexes, in schema `s`. */
export function commitConflictTables(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.commit_conflicts (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       project_id text NOT NULL,
       commit_sha text NOT NULL,
       environment text NOT NULL,
       branch text NOT NULL,
       day date NOT NULL,
       -- Both sides of a conflict: the failed executions and the passes (in other runs) they contradict,
       -- so that a window can ask for both in it.
       failed boolean NOT NULL DEFAULT true,
       PRIMARY KEY (run_id, case_id, platform)
     )`,
    `CREATE INDEX IF NOT EXISTS commit_conflicts_commit ON ${s}.commit_conflicts (project_id, case_id, commit_sha)`,
    `CREATE INDEX IF NOT EXISTS commit_conflicts_day ON ${s}.commit_conflicts (project_id, day)`,
  ];
}

/** Re-decides, for every touched (case, commit), which failed executions contradict a pass on that commit. */
export async function recomputeCommitConflicts(
  tx: SqlExecutor,
  s: string,
  keys: ExecutionKey[],
): Promise<void> {
  if (keys.length === 0) return;
  const commits = unique(
    keys.filter((k) => k.commit_sha !== null),
    (k) => [k.project_id, k.case_id, k.commit_sha].join('\u0000'),
  ).map(({ project_id, case_id, commit_sha }) => ({ project_id, case_id, commit_sha }));
  // Executions moved off a commit (run.created after its results) leave conflicts keyed by run to clear.
  const runs = unique(keys, (k) => [k.run_id, k.case_id, k.platform].join('\u0000')).map(
    ({ run_id, case_id, platform }) => ({ run_id, case_id, platform }),
  );
  await tx.query(
    `DELETE FROM ${s}.commit_conflicts c USING jsonb_to_recordset($1::jsonb) AS d(run_id text, case_id text, platform text)
     WHERE (c.run_id, c.case_id, c.platform) = (d.run_id, d.case_id, d.platform)`,
    [JSON.stringify(runs)],
  );
  if (commits.length === 0) return;
  const json = JSON.stringify(commits);
  const dirty = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, case_id text, commit_sha text)`;
  await tx.query(
    `DELETE FROM ${s}.commit_conflicts c USING (${dirty}) d
     WHERE (c.project_id, c.case_id, c.commit_sha) = (d.project_id, d.case_id, d.commit_sha)`,
    [json],
  );
  await tx.query(
    `WITH failures AS (
       SELECT c.run_id, c.case_id, c.platform, c.project_id, c.commit_sha, c.environment, c.branch, c.day
       FROM (${dirty}) d
       -- Looked up per commit (OFFSET 0 keeps it a lookup): the failures of a project are too many to hash.
       CROSS JOIN LATERAL (
         SELECT * FROM ${s}.case_runs c WHERE c.project_id = d.project_id AND c.case_id = d.case_id
           AND c.commit_sha = d.commit_sha AND c.outcome = 'failed' OFFSET 0
       ) c
     ),
     passes AS (
       SELECT p.run_id, p.case_id, p.platform, p.project_id, p.commit_sha, p.environment, p.branch, p.day
       FROM (SELECT DISTINCT project_id, case_id, commit_sha FROM failures) d
       JOIN ${s}.runs r ON r.project_id = d.project_id AND r.commit_sha = d.commit_sha
       JOIN ${s}.case_runs p ON p.run_id = r.id AND p.case_id = d.case_id AND p.commit_sha = d.commit_sha
       WHERE p.outcome IN ('passed', 'flaky')
     )
     INSERT INTO ${s}.commit_conflicts (run_id, case_id, platform, project_id, commit_sha, environment, branch,
       day, failed)
     -- A failure and a pass in different runs: a pass and a failure within one run (two platforms) are not
     -- a conflict.
     SELECT f.*, true FROM failures f
     WHERE EXISTS (SELECT 1 FROM passes p WHERE (p.project_id, p.case_id, p.commit_sha) = (f.project_id,
       f.case_id, f.commit_sha) AND p.run_id <> f.run_id)
     UNION ALL
     SELECT p.*, false FROM passes p
     WHERE EXISTS (SELECT 1 FROM failures f WHERE (p.project_id, p.case_id, p.commit_sha) = (f.project_id,
       f.case_id, f.commit_sha) AND p.run_id <> f.run_id)
     ON CONFLICT DO NOTHING`,
    [json],
  );
}
