/**
 * The policy's facts for the tests flaky in a finished run on the default branch (policy.ts decides).
 */
import { DEFAULT_BASE_BRANCH, QUARANTINE_EVIDENCE_DAYS } from '@verdict/contracts';
import { platformOrNull, type TestResultsReadStore, type Timestamp } from '../readStore';
import type { PolicyFacts } from './policy';

export interface Candidate extends PolicyFacts {
  testCaseId: string;
  platform: string | null;
  branch: string;
}

/**
 * Each test flaky in the run, when the run is on its base branch (the project's default unless it named
 * another), with its record on that branch in the last 30 days.
 *
 * @example const candidates = await flakyCandidates(store, projectId, runId, clock.now());
 */
export async function flakyCandidates(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  runId: string,
  now: Date,
): Promise<Candidate[]> {
  const list = schemas.runList;
  const since = new Date(now.getTime() - QUARANTINE_EVIDENCE_DAYS * 86_400_000).toISOString();
  const { rows } = await db.query<{
    test_case_id: string;
    project: string;
    branch: string;
    executions: number;
    flaky: number;
    quarantined: boolean;
    lifted_at: Timestamp | null;
  }>(
    `WITH r AS (
       SELECT id, project_id, branch FROM ${list}.runs
       WHERE id = $2 AND project_id = $1 AND status = 'finished' AND branch = coalesce(base_branch, $3)
     )
     SELECT f.test_case_id, f.project, r.branch, seen.executions, seen.flaky,
       EXISTS (SELECT 1 FROM ${schemas.quarantines}.quarantines q
         WHERE q.project_id = r.project_id AND q.test_case_id = f.test_case_id AND q.status = 'active'
           AND q.expires_at > $5 AND (q.platform IS NULL OR q.platform = f.project)) AS quarantined,
       (SELECT max(q.ended_at) FROM ${schemas.quarantines}.quarantines q
         WHERE q.project_id = r.project_id AND q.test_case_id = f.test_case_id AND q.automatic
           AND q.status = 'lifted' AND q.ended_by <> 'verdict') AS lifted_at
     FROM r
     JOIN ${list}.run_tests f ON f.run_id = r.id AND f.outcome = 'flaky'
     CROSS JOIN LATERAL (
       SELECT count(*)::int AS executions, count(*) FILTER (WHERE h.outcome = 'flaky')::int AS flaky
       FROM ${list}.run_tests h JOIN ${list}.runs w ON w.id = h.run_id
       WHERE h.project_id = r.project_id AND h.test_case_id = f.test_case_id AND h.project = f.project
         AND h.outcome <> 'skipped' AND h.started_at >= $4 AND w.branch = r.branch AND w.status = 'finished'
     ) seen
     ORDER BY f.test_case_id, f.project`,
    [projectId, runId, DEFAULT_BASE_BRANCH, since, now.toISOString()],
  );
  return rows.map((row) => ({
    testCaseId: row.test_case_id,
    platform: platformOrNull(row.project),
    branch: row.branch,
    executions: row.executions,
    flaky: row.flaky,
    quarantined: row.quarantined,
    liftedByPersonAt: row.lifted_at === null ? null : new Date(row.lifted_at),
  }));
}
