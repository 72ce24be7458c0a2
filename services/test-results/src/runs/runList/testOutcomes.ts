/**
 * How a batch of attempts moves the run list: each attempt new to it is added up into its test's run_tests
 * row, and each run's stats move by the difference between those rows' outcomes before and after.
 */
import { keptInstant } from '@verdict/contracts';
import type { SqlExecutor } from '@verdict/platform';
import { NO_PLATFORM, signatureOf, type RecordedResult } from '../../readStore';

/**
 * A test's outcome in a run from what its attempts so far add up to. An attempt went as expected when its
 * status is the expected one (passed unless the runner said otherwise, e.g. Playwright's test.fail());
 * skipped attempts count for nothing but a test that was only skipped.
 */
const OUTCOME_OF = (asExpected: string, unexpected: string) => `CASE
    WHEN ${asExpected} THEN CASE WHEN ${unexpected} THEN 'flaky' ELSE 'passed' END
    WHEN ${unexpected} THEN 'failed'
    ELSE 'skipped' END`;

const OUTCOMES = ['passed', 'failed', 'flaky', 'skipped'] as const;

/** A finished run failed when a test failed or its runner reported anything but passed; running: null. */
export const RUN_OUTCOME = (failed: string) => `CASE WHEN run.status <> 'finished' THEN NULL
                      WHEN ${failed} > 0 OR coalesce(run.reported_status, 'passed') <> 'passed' THEN 'failed'
                      ELSE 'passed' END`;

/** What the statement needs of each attempt: its key and the facts run_tests adds up. */
function attemptRows(results: readonly RecordedResult[]) {
  return results.map(({ projectId, runId, testCaseId, item }) => ({
    run_id: runId,
    test_case_id: testCaseId,
    project: item.project ?? NO_PLATFORM,
    attempt: item.attempt,
    project_id: projectId,
    file: item.file,
    status: item.status,
    expected_status: item.expectedStatus ?? null,
    duration_ms: item.durationMs,
    started_at: keptInstant(item.startedAt),
    failed: item.error !== undefined && item.error !== null,
    error_message: item.error?.message ?? null,
    error_file: item.error?.location?.file ?? null,
    error_line: item.error?.location?.line ?? null,
    ...signatureColumns(item),
  }));
}

/** The error signature of a failed attempt (id and readable form); nulls for an attempt without an error. */
function signatureColumns(item: RecordedResult['item']) {
  const signature = signatureOf(item);
  return { error_signature: signature?.id ?? null, error_signature_text: signature?.text ?? null };
}

/**
 * Records the batch's attempts and folds the ones that are new into their tests' run_tests rows, then moves
 * each run's stats by the difference between those rows' outcomes before and after, in one statement
 * whatever the batch's size: a batch costs the same at the 500th result of a run as at its 50,000th. A
 * run_tests row keeps what its attempts add up to, and each of those merges without the other attempts: an
 * attempt already recorded is not returned by the insert, so a batch applied twice or attempts in any order
 * end in the same row. The batch holds its runs' locks (lockRuns): a concurrent batch of the same run has
 * committed before this statement takes its snapshot, so "before" is exact.
 */
export async function recordAttempts(
  tx: SqlExecutor,
  s: string,
  results: readonly RecordedResult[],
): Promise<void> {
  if (results.length === 0) return;
  const counts = OUTCOMES.map((outcome) => `sum(sign) FILTER (WHERE outcome = '${outcome}') AS ${outcome}`);
  const asExpected = `run_tests.as_expected OR EXCLUDED.as_expected`;
  const unexpected = `run_tests.unexpected OR EXCLUDED.unexpected`;
  const latestError = (column: string) =>
    `CASE WHEN EXCLUDED.error_attempt > run_tests.error_attempt THEN EXCLUDED.${column} ELSE run_tests.${column} END`;
  // The same result sent twice carries the same data (its event id is derived from its key): keep the first.
  await tx.query(
    `WITH batch AS (
       SELECT DISTINCT ON (run_id, test_case_id, project, attempt) *
       FROM json_to_recordset($1::json) AS r(run_id text, test_case_id text, project text, attempt integer,
         project_id text, file text, status text, expected_status text, duration_ms double precision,
         started_at timestamptz, failed boolean, error_message text, error_file text, error_line integer,
         error_signature text, error_signature_text text)
     ),
     inserted AS (
       INSERT INTO ${s}.run_attempts (run_id, test_case_id, project, attempt)
       SELECT run_id, test_case_id, project, attempt FROM batch
       ON CONFLICT (run_id, test_case_id, project, attempt) DO NOTHING
       RETURNING run_id, test_case_id, project, attempt
     ),
     fresh AS (
       SELECT i.run_id, i.test_case_id, i.project, min(b.project_id) AS project_id, min(b.file) AS file,
         bool_or(b.status <> 'skipped' AND b.status = coalesce(b.expected_status, 'passed')) AS as_expected,
         bool_or(b.status <> 'skipped' AND b.status <> coalesce(b.expected_status, 'passed')) AS unexpected,
         count(*)::int AS attempts, sum(b.duration_ms) AS duration_ms, min(b.started_at) AS started_at,
         coalesce(max(b.attempt) FILTER (WHERE b.failed), -1) AS error_attempt,
         (array_agg(b.error_message ORDER BY b.attempt DESC) FILTER (WHERE b.failed))[1] AS error_message,
         (array_agg(b.error_file ORDER BY b.attempt DESC) FILTER (WHERE b.failed))[1] AS error_file,
         (array_agg(b.error_line ORDER BY b.attempt DESC) FILTER (WHERE b.failed))[1] AS error_line,
         (array_agg(b.error_signature ORDER BY b.attempt DESC) FILTER (WHERE b.failed))[1] AS error_signature,
         (array_agg(b.error_signature_text ORDER BY b.attempt DESC) FILTER (WHERE b.failed))[1]
           AS error_signature_text
       FROM inserted i JOIN batch b USING (run_id, test_case_id, project, attempt)
       GROUP BY i.run_id, i.test_case_id, i.project
     ),
     before AS (
       -- One index lookup per test: the planner cannot tell how few rows "fresh" holds.
       SELECT f.run_id, b.outcome FROM fresh f CROSS JOIN LATERAL (
         SELECT rt.outcome FROM ${s}.run_tests rt
         WHERE rt.run_id = f.run_id AND rt.test_case_id = f.test_case_id AND rt.project = f.project
       ) b
     ),
     after AS (
       INSERT INTO ${s}.run_tests AS run_tests (run_id, test_case_id, project, project_id, file, outcome,
         as_expected, unexpected, attempts, duration_ms, started_at, error_attempt, error_message, error_file,
         error_line, error_signature, error_signature_text)
       SELECT run_id, test_case_id, project, project_id, file, ${OUTCOME_OF('as_expected', 'unexpected')},
         as_expected, unexpected, attempts, duration_ms, started_at, error_attempt, error_message, error_file,
         error_line, error_signature, error_signature_text
       FROM fresh
       ON CONFLICT (run_id, test_case_id, project) DO UPDATE SET
         outcome = ${OUTCOME_OF(`(${asExpected})`, `(${unexpected})`)},
         as_expected = ${asExpected},
         unexpected = ${unexpected},
         attempts = run_tests.attempts + EXCLUDED.attempts,
         duration_ms = run_tests.duration_ms + EXCLUDED.duration_ms,
         started_at = LEAST(run_tests.started_at, EXCLUDED.started_at),
         error_message = ${latestError('error_message')},
         error_file = ${latestError('error_file')},
         error_line = ${latestError('error_line')},
         error_signature = ${latestError('error_signature')},
         error_signature_text = ${latestError('error_signature_text')},
         error_attempt = GREATEST(run_tests.error_attempt, EXCLUDED.error_attempt)
       RETURNING run_id, outcome
     ),
     delta AS (
       SELECT run_id, sum(sign) AS total, ${counts.join(', ')}
       FROM (SELECT run_id, outcome, 1 AS sign FROM after UNION ALL SELECT run_id, outcome, -1 FROM before) AS moves
       GROUP BY run_id
     )
     UPDATE ${s}.runs AS run SET
       total = run.total + d.total,
       ${OUTCOMES.map((o) => `${o} = run.${o} + coalesce(d.${o}, 0)`).join(',\n       ')},
       outcome = ${RUN_OUTCOME('run.failed + coalesce(d.failed, 0)')}
     FROM delta d
     WHERE run.id = d.run_id`,
    [JSON.stringify(attemptRows(results))],
  );
}
