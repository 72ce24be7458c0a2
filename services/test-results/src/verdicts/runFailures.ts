/**
 * The facts behind each failure's verdict (verdict.ts), gathered for a run's failed tests in one statement
 * over the run list (runs, run_tests) and the test cases; served as the run detail's include=failures and
 * summed up into run.finished when the run finishes.
 */
import {
  DEFAULT_BASE_BRANCH,
  VERDICT_WINDOW_DAYS,
  type RunFailure,
  type RunFailures,
  type RunFinishedFailures,
} from '@verdict/contracts';
import { platformOrNull, type TestResultsReadStore } from '../readStore';
import { countVerdicts, verdictOf } from './verdict';

/** The most new failures run.finished lists. */
export const MAX_NEW_FAILURES = 20;

interface FailureRow {
  base_branch: string;
  base_run_id: string | null;
  test_case_id: string | null;
  project: string;
  file: string;
  title: string;
  title_path: string[];
  error_signature: string | null;
  error_signature_text: string | null;
  error_message: string | null;
  fails_in_base_run: boolean;
  flaky_in_window: boolean;
  failed_on_base_with_signature: boolean;
  quarantine_id: string | null;
  quarantine_owner_id: string | null;
  quarantine_expires_at: Date | string | null;
  quarantine_forgives: boolean | null;
}

/**
 * Each failed test of the run with its verdict against the run's base branch; null when the project has no
 * such run. A run with no finished run on its base before it still gets verdicts (none is failing-on-base).
 * A test's quarantine is the one active when the run finished (`now` while it runs), so a finished run's
 * verdicts stay as they were when a quarantine is made, lifted or expires later.
 *
 * @example const failures = await runFailures(store, projectId, runId, clock.now());
 */
export async function runFailures(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  runId: string,
  now: Date,
): Promise<RunFailures | null> {
  const list = schemas.runList;
  // In the window: runs of the project that started before R, at most VERDICT_WINDOW_DAYS days before it.
  const inWindow = (alias: string) =>
    `${alias}.project_id = r.project_id AND ${alias}.started_at < r.started_at
       AND ${alias}.started_at >= r.started_at - ($4::int * interval '1 day')`;
  const { rows } = await db.query<FailureRow>(
    `WITH r AS (
       SELECT id, project_id, started_at, coalesce(base_branch, $3) AS base_branch,
         coalesce(finished_at, $5::timestamptz) AS at
       FROM ${list}.runs WHERE id = $2 AND project_id = $1
     ),
     base AS (
       SELECT b.id FROM ${list}.runs b, r
       WHERE b.project_id = r.project_id AND b.branch = r.base_branch AND b.status = 'finished'
         AND b.started_at < r.started_at
       ORDER BY b.started_at DESC, b.id DESC LIMIT 1
     )
     SELECT r.base_branch, (SELECT id FROM base) AS base_run_id, f.test_case_id, f.project, f.file,
       c.title, c.title_path, f.error_signature, f.error_signature_text, f.error_message,
       EXISTS (SELECT 1 FROM ${list}.run_tests b
         WHERE b.run_id = (SELECT id FROM base) AND b.test_case_id = f.test_case_id
           AND b.project = f.project AND b.outcome = 'failed') AS fails_in_base_run,
       EXISTS (SELECT 1 FROM ${list}.run_tests h JOIN ${list}.runs w ON w.id = h.run_id
         WHERE h.project_id = r.project_id AND h.test_case_id = f.test_case_id AND h.project = f.project
           AND h.outcome = 'flaky' AND ${inWindow('w')}) AS flaky_in_window,
       EXISTS (SELECT 1 FROM ${list}.run_tests h JOIN ${list}.runs w ON w.id = h.run_id
         WHERE h.project_id = r.project_id AND h.test_case_id = f.test_case_id AND h.project = f.project
           AND h.outcome = 'failed' AND h.error_signature IS NOT DISTINCT FROM f.error_signature
           AND w.branch = r.base_branch AND ${inWindow('w')}) AS failed_on_base_with_signature,
       q.quarantine_id, q.owner_id AS quarantine_owner_id, q.expires_at AS quarantine_expires_at,
       q.forgives AS quarantine_forgives
     FROM r
     LEFT JOIN ${list}.run_tests f ON f.run_id = r.id AND f.outcome = 'failed'
     LEFT JOIN ${schemas.caseHistory}.test_cases c ON c.project_id = r.project_id AND c.id = f.test_case_id
     -- The test's quarantine then (one forgiving this signature first): made before, not yet ended.
     LEFT JOIN LATERAL (
       SELECT q.quarantine_id, q.owner_id, q.expires_at,
         coalesce(f.error_signature = ANY(q.signature_ids), false) AS forgives
       FROM ${schemas.quarantines}.quarantines q
       WHERE q.project_id = r.project_id AND q.test_case_id = f.test_case_id
         AND (q.platform IS NULL OR q.platform = f.project)
         AND q.created_at <= r.at AND q.expires_at > r.at AND (q.ended_at IS NULL OR q.ended_at > r.at)
       ORDER BY forgives DESC, q.created_at DESC LIMIT 1
     ) q ON true
     ORDER BY f.file, c.title_path, f.project`,
    [projectId, runId, DEFAULT_BASE_BRANCH, VERDICT_WINDOW_DAYS, now.toISOString()],
  );
  const [first] = rows;
  if (!first) return null;
  const items = rows.filter((row) => row.test_case_id !== null).map(failureOf);
  return {
    baseBranch: first.base_branch,
    baseRunId: first.base_run_id,
    windowDays: VERDICT_WINDOW_DAYS,
    counts: countVerdicts(items.map((item) => item.verdict)),
    items,
  };
}

function failureOf(row: FailureRow): RunFailure {
  const titlePath = row.title_path ?? [];
  return {
    testCaseId: row.test_case_id ?? '',
    title: row.title ?? titlePath.at(-1) ?? '',
    titlePath,
    file: row.file,
    project: platformOrNull(row.project),
    verdict: verdictOf({
      quarantined: row.quarantine_forgives === true,
      failsInBaseRun: row.fails_in_base_run,
      flakyInWindow: row.flaky_in_window,
      failedOnBaseWithSignature: row.failed_on_base_with_signature,
    }),
    signature:
      row.error_signature === null ? null : { id: row.error_signature, text: row.error_signature_text ?? '' },
    errorMessage: row.error_message,
    quarantine:
      row.quarantine_id === null
        ? null
        : {
            id: row.quarantine_id,
            ownerId: row.quarantine_owner_id ?? '',
            expiresAt: new Date(row.quarantine_expires_at ?? 0).toISOString(),
            forgives: row.quarantine_forgives === true,
          },
  };
}

/**
 * What run.finished carries of a run's failures: the base, the counts, and the first new failures.
 *
 * @example const summary = failuresSummary(await runFailures(store, projectId, runId));
 */
export function failuresSummary(failures: RunFailures): RunFinishedFailures {
  return {
    baseBranch: failures.baseBranch,
    baseRunId: failures.baseRunId,
    counts: failures.counts,
    newFailures: failures.items
      .filter((item) => item.verdict === 'new')
      .slice(0, MAX_NEW_FAILURES)
      .map((item) => ({
        testCaseId: item.testCaseId,
        title: item.title,
        file: item.file,
        project: item.project,
        signatureId: item.signature?.id ?? null,
      })),
  };
}

/** What a debug bundle shows of a failed test: its verdict and signature. */
export interface FailureVerdictOf {
  verdict: RunFailure['verdict'];
  signature: RunFailure['signature'];
  quarantine: RunFailure['quarantine'];
}

/**
 * The verdict and signature of each failed test of the run, by test case id and platform (`platformOrNull`).
 *
 * @example const of = await failureVerdicts(store, projectId, runId, clock.now()); of(caseId, 'chromium')?.verdict;
 */
export async function failureVerdicts(
  store: TestResultsReadStore,
  projectId: string,
  runId: string,
  now: Date,
): Promise<(testCaseId: string, project: string | null) => FailureVerdictOf | null> {
  const failures = await runFailures(store, projectId, runId, now);
  const key = (testCaseId: string, project: string | null) => JSON.stringify([testCaseId, project]);
  const found = new Map(
    (failures?.items ?? []).map((item) => [
      key(item.testCaseId, item.project),
      { verdict: item.verdict, signature: item.signature, quarantine: item.quarantine },
    ]),
  );
  return (testCaseId, project) => found.get(key(testCaseId, project)) ?? null;
}
