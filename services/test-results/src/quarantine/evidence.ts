/**
 * What a new quarantine is decided on (issue 32): the test it covers, and its evidence — the error
 * signatures it forgives (by default those of the test's failed attempts in the last 30 days, as the error
 * groups count them) and the test's record in that window (flaky and fail rates, runs seen).
 */
import {
  QUARANTINE_EVIDENCE_DAYS,
  type ForgivenSignature,
  type QuarantineEvidence,
  type QuarantineTarget,
} from '@verdict/contracts';
import { NotFoundError, ValidationError } from '@verdict/platform';
import type { TestResultsReadStore } from '../readStore';

/** How the request names the test: its id, or its file and title path. */
export type TestRef = { testCaseId: string } | { file: string; titlePath: string[] };

/**
 * The test case a quarantine covers; TEST_CASE_NOT_FOUND when the project has no such test.
 *
 * @example const target = await targetOf(store, projectId, { testCaseId }, 'chromium');
 */
export async function targetOf(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  ref: TestRef,
  platform: string | null,
): Promise<QuarantineTarget> {
  const byId = 'testCaseId' in ref;
  const { rows } = await db.query<{ id: string; file: string; title_path: string[] }>(
    `SELECT id, file, title_path FROM ${schemas.caseHistory}.test_cases
     WHERE project_id = $1 AND ${byId ? 'id = $2' : 'file = $2 AND title_path = $3::text[]'}`,
    byId ? [projectId, ref.testCaseId] : [projectId, ref.file, ref.titlePath],
  );
  const [row] = rows;
  if (!row) throw new NotFoundError('Test case not found', 'TEST_CASE_NOT_FOUND');
  return { testCaseId: row.id, file: row.file, titlePath: row.title_path, project: platform };
}

/**
 * The evidence of a quarantine of the target made at `now`: the signatures named (each with the failed
 * attempts seen with it in the window), else every signature the test failed with in the window.
 *
 * @example const evidence = await evidenceOf(store, projectId, target, undefined, clock.now());
 */
export async function evidenceOf(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  target: QuarantineTarget,
  named: readonly string[] | undefined,
  now: Date,
): Promise<QuarantineEvidence> {
  const since = new Date(now.getTime() - QUARANTINE_EVIDENCE_DAYS * 86_400_000).toISOString();
  const platform = target.project;
  const { rows: seen } = await db.query<{ id: string; text: string | null; occurrences: number }>(
    `SELECT h.signature_id AS id, s.text, count(*)::int AS occurrences
     FROM ${schemas.errors}.error_hits h
     LEFT JOIN ${schemas.errors}.error_signatures s
       ON s.project_id = h.project_id AND s.signature_id = h.signature_id
     WHERE h.project_id = $1 AND h.test_case_id = $2 AND h.occurred_at >= $3
       AND ($4::text IS NULL OR h.project = $4::text)
     GROUP BY h.signature_id, s.text
     ORDER BY occurrences DESC, h.signature_id`,
    [projectId, target.testCaseId, since, platform],
  );
  let signatures: ForgivenSignature[];
  if (named === undefined) {
    if (seen.length === 0) {
      throw new ValidationError(
        `signatures: the test has no failure in the last ${QUARANTINE_EVIDENCE_DAYS} days; name the error signatures to forgive`,
      );
    }
    signatures = seen.map(({ id, text, occurrences }) => ({ id, text: text ?? '', occurrences }));
  } else {
    const ids = [...new Set(named)];
    const { rows: texts } = await db.query<{ signature_id: string; text: string }>(
      `SELECT signature_id, text FROM ${schemas.errors}.error_signatures
       WHERE project_id = $1 AND signature_id = ANY($2::text[])`,
      [projectId, ids],
    );
    signatures = ids.map((id) => ({
      id,
      text: texts.find((row) => row.signature_id === id)?.text ?? '',
      occurrences: seen.find((row) => row.id === id)?.occurrences ?? 0,
    }));
  }
  const { rows } = await db.query<{ runs: number; flaky: number; failed: number; executions: number }>(
    `SELECT count(DISTINCT run_id)::int AS runs, count(*)::int AS executions,
       count(*) FILTER (WHERE outcome = 'flaky')::int AS flaky,
       count(*) FILTER (WHERE outcome = 'failed')::int AS failed
     FROM ${schemas.runList}.run_tests
     WHERE project_id = $1 AND test_case_id = $2 AND started_at >= $3 AND outcome <> 'skipped'
       AND ($4::text IS NULL OR project = $4::text)`,
    [projectId, target.testCaseId, since, platform],
  );
  const record = rows[0] ?? { runs: 0, flaky: 0, failed: 0, executions: 0 };
  const rate = (part: number) => (record.executions === 0 ? 0 : part / record.executions);
  return {
    signatures,
    flakyRate: rate(record.flaky),
    failRate: rate(record.failed),
    runsSeen: record.runs,
  };
}
