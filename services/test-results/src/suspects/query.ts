/**
 * Suspect commits of a test's new failure (issue 31), from the run list: the test's executions on a branch,
 * one per run (its platforms added up: failed if any failed, else flaky, else passed, else skipped).
 *
 * When the test's latest non-skipped execution on the branch failed, its failing streak is where to look:
 * `firstFail` is the streak's first run, `lastPass` the passing (or flaky) run before it (null when the test
 * never passed there), `between` the runs on the branch between the two that skipped the test (the 50
 * nearest the failure, oldest first) and `failingRuns` the streak's length. The failure is new when the
 * streak is one run long.
 */
import {
  keptInstant,
  type Outcome,
  type RunCommit,
  type SuspectCommits,
  type SuspectRun,
} from '@verdict/contracts';
import { NotFoundError } from '@verdict/platform';
import type { TestResultsReadStore, Timestamp } from '../readStore';

/** The most runs `between` lists. */
export const MAX_BETWEEN = 50;

interface ExecutionRow {
  run_id: string;
  counter: number;
  commit: RunCommit | null;
  started_at: Timestamp;
  outcome: Outcome;
}

const suspectRunOf = (row: ExecutionRow): SuspectRun => ({
  runId: row.run_id,
  counter: row.counter,
  outcome: row.outcome,
  commit: row.commit,
  startedAt: keptInstant(row.started_at),
});

/** The test's executions on the branch, one per run; `where` narrows them, `columns` adds to them. */
function executions(store: TestResultsReadStore, where: string, columns = '') {
  const list = store.schemas.runList;
  return `WITH executions AS (
      SELECT r.id AS run_id, r.counter, r.commit, r.started_at,
        CASE WHEN bool_or(t.outcome = 'failed') THEN 'failed' WHEN bool_or(t.outcome = 'flaky') THEN 'flaky'
             WHEN bool_or(t.outcome = 'passed') THEN 'passed' ELSE 'skipped' END AS outcome
      FROM ${list}.run_tests t JOIN ${list}.runs r ON r.id = t.run_id AND r.project_id = t.project_id
      WHERE t.project_id = $1 AND t.test_case_id = $2 AND r.branch IS NOT DISTINCT FROM $3
      GROUP BY r.id
    )
    SELECT *${columns} FROM executions WHERE ${where}`;
}

/** The branch of the test's latest execution; undefined when it never ran. */
async function latestBranch(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  caseId: string,
): Promise<string | null | undefined> {
  const { rows } = await db.query<{ branch: string | null }>(
    `SELECT r.branch FROM ${schemas.runList}.run_tests t
     JOIN ${schemas.runList}.runs r ON r.id = t.run_id AND r.project_id = t.project_id
     WHERE t.project_id = $1 AND t.test_case_id = $2
     ORDER BY r.started_at DESC, r.id DESC LIMIT 1`,
    [projectId, caseId],
  );
  return rows[0]?.branch;
}

const notNew = (branch: string | null): SuspectCommits => ({
  branch,
  newFailure: false,
  failingRuns: 0,
  lastPass: null,
  firstFail: null,
  between: [],
});

/**
 * The suspects of the test's failure on the branch (default: the branch of its latest execution); 404
 * TEST_CASE_NOT_FOUND when the project has no such test.
 *
 * @example const suspects = await suspectCommits(store, projectId, caseId, {});
 */
export async function suspectCommits(
  store: TestResultsReadStore,
  projectId: string,
  caseId: string,
  query: { branch?: string | null },
): Promise<SuspectCommits> {
  const { db, schemas } = store;
  const known = await db.query(
    `SELECT 1 FROM ${schemas.caseHistory}.test_cases WHERE project_id = $1 AND id = $2`,
    [projectId, caseId],
  );
  if (known.rows.length === 0) throw new NotFoundError('Test case not found', 'TEST_CASE_NOT_FOUND');
  // null: the runs without a branch.
  const latest = query.branch !== undefined ? query.branch : await latestBranch(store, projectId, caseId);
  if (latest === undefined) return notNew(null);
  const branch = latest;
  const { rows: latestRows } = await db.query<ExecutionRow>(
    `${executions(store, "outcome <> 'skipped'")} ORDER BY started_at DESC, run_id DESC LIMIT 1`,
    [projectId, caseId, branch],
  );
  if (latestRows[0]?.outcome !== 'failed') return notNew(branch);
  const { rows: passes } = await db.query<ExecutionRow>(
    `${executions(store, "outcome IN ('passed', 'flaky')")} ORDER BY started_at DESC, run_id DESC LIMIT 1`,
    [projectId, caseId, branch],
  );
  const before = passes[0];
  const { rows: streak } = await db.query<ExecutionRow & { streak: number }>(
    `${executions(
      store,
      "outcome = 'failed' AND ($4::timestamptz IS NULL OR (started_at, run_id) > ($4, $5::text))",
      ', count(*) OVER ()::int AS streak',
    )} ORDER BY started_at, run_id LIMIT 1`,
    [projectId, caseId, branch, before?.started_at ?? null, before?.run_id ?? null],
  );
  const failing = streak[0];
  if (!failing) return notNew(branch);
  const between = before
    ? (
        await db.query<ExecutionRow>(
          `${executions(store, "outcome = 'skipped' AND started_at > $4 AND started_at < $5")}
           ORDER BY started_at DESC, run_id DESC LIMIT ${MAX_BETWEEN}`,
          [projectId, caseId, branch, before.started_at, failing.started_at],
        )
      ).rows.reverse()
    : [];
  return {
    branch,
    newFailure: failing.streak === 1,
    failingRuns: failing.streak,
    lastPass: before ? suspectRunOf(before) : null,
    firstFail: suspectRunOf(failing),
    between: between.map(suspectRunOf),
  };
}
