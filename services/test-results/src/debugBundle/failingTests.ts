/** The failed and flaky tests of a run (or of one of its spec files), as the run and suite scopes list them. */
import type { Outcome, ResultStatus, TestError, TestStep } from '@verdict/contracts';
import { summarizeError } from './failureWindow';
import { retryCommand } from './retryCommand';
import { platformOrNull, type BundleSources } from './sources';

export interface FailingRow {
  test_case_id: string;
  file: string;
  project: string;
  outcome: Outcome;
  attempts: number;
  title: string;
  title_path: string[];
  last_status: ResultStatus;
  last_duration: number;
  location: { line?: number } | null;
  error: TestError | null;
  steps: TestStep[] | null;
}

/**
 * The run's failed and flaky tests, one row per test case and platform, failed first, then by file, title
 * and platform. Steps (for the failure window) are read only when asked for, as they are the bulk.
 */
export async function failingTests(
  sources: BundleSources,
  runId: string,
  { file, withSteps }: { file?: string; withSteps: boolean },
): Promise<FailingRow[]> {
  const { rows } = await sources.db.query<FailingRow>(
    `SELECT * FROM (
       SELECT t.test_case_id, t.file, t.project, t.outcome, t.attempts,
         c.title, c.title_path, last.status AS last_status, last.duration_ms AS last_duration,
         last.location, failed.error, ${withSteps ? 'failed.steps' : 'NULL::jsonb'} AS steps
       FROM ${sources.schemas.runList}.run_tests t
       JOIN ${sources.schemas.caseHistory}.test_cases c ON c.project_id = t.project_id AND c.id = t.test_case_id
       JOIN LATERAL (
         SELECT r.status, r.duration_ms, r.location FROM ${sources.schemas.runResults}.results r
         WHERE r.run_id = t.run_id AND r.test_case_id = t.test_case_id AND r.project = t.project
         ORDER BY r.attempt DESC LIMIT 1
       ) last ON true
       LEFT JOIN LATERAL (
         SELECT r.error, r.steps FROM ${sources.schemas.runResults}.results r
         WHERE r.run_id = t.run_id AND r.test_case_id = t.test_case_id AND r.project = t.project
           AND r.error IS NOT NULL
         ORDER BY r.attempt DESC LIMIT 1
       ) failed ON true
       WHERE t.run_id = $1 AND t.outcome IN ('failed', 'flaky') AND ($2::text IS NULL OR t.file = $2)
     ) failing
     ORDER BY (outcome = 'failed') DESC, file, title_path, project`,
    [runId, file ?? null],
  );
  return rows;
}

/** The fields run and suite items share. */
export function testItemOf(row: FailingRow, framework: string | null) {
  const project = platformOrNull(row.project);
  const line = row.location?.line ?? null;
  return {
    caseId: row.test_case_id,
    title: row.title,
    titlePath: row.title_path,
    file: row.file,
    line,
    project,
    outcome: row.outcome,
    status: row.last_status,
    attempts: row.attempts,
    durationMs: Number(row.last_duration),
    error: row.error ? summarizeError(row.error) : null,
    retryCommand: retryCommand({ framework, file: row.file, line, project, titlePath: row.title_path }),
  };
}

/** One page of a list already read whole. */
export const pageOf = <T>(items: readonly T[], page: number, limit: number): T[] =>
  items.slice((page - 1) * limit, page * limit);
