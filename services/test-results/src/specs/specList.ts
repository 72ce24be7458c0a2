/**
 * The spec list: the project's spec files and the test cases in each, fed by the results. Serves the
 * project's specs (their outcome counts over every execution come from the run list's run_tests) and a
 * run's spec files (`include=specs`: the run list's run_tests with the case history's titles). A test case
 * is listed once by its key, so applying a result again changes nothing.
 */
import type { Outcome, OutcomeStats, RunSpec, SpecSummary } from '@verdict/contracts';
import { byCodePoint, type Projection, type SqlExecutor } from '@verdict/platform';
import {
  platformOrNull,
  resultsOf,
  type Page,
  type RecordedResult,
  type TestResultsReadStore,
} from '../readStore';

async function setup(tx: SqlExecutor, s: string): Promise<void> {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.spec_tests (
    project_id text NOT NULL, file text NOT NULL, test_case_id text NOT NULL,
    PRIMARY KEY (project_id, file, test_case_id))`);
}

/** The batch's test cases by file; in key order, so concurrent appends take their row locks in one order. */
async function addTests(tx: SqlExecutor, s: string, results: readonly RecordedResult[]): Promise<void> {
  if (results.length === 0) return;
  const keys = new Map(
    results.map(({ projectId, testCaseId, item }) => [
      `${projectId}\u0000${item.file}\u0000${testCaseId}`,
      { project_id: projectId, file: item.file, test_case_id: testCaseId },
    ]),
  );
  const rows = [...keys.entries()].sort(([a], [b]) => byCodePoint(a, b)).map(([, row]) => row);
  await tx.query(
    `INSERT INTO ${s}.spec_tests (project_id, file, test_case_id)
     SELECT project_id, file, test_case_id
     FROM json_to_recordset($1::json) AS t(project_id text, file text, test_case_id text)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(rows)],
  );
}

/** @example createProjector({ db, projections: [specListProjection('test_results_read_spec_list'), …], … }); */
export function specListProjection(name: string): Projection {
  return {
    name,
    canHandle: ['test.result-recorded'],
    setup,
    apply: (tx, events, s) => addTests(tx, s, resultsOf(events)),
  };
}

interface RunTestRow {
  test_case_id: string;
  file: string;
  title: string;
  title_path: string[];
  project: string;
  outcome: Outcome;
  attempts: number;
  duration_ms: number;
  error_message: string | null;
}

/**
 * The run's spec files, each with its tests (one per test and platform) and their outcomes.
 *
 * @example const specs = await runSpecs(store, runId);
 */
export async function runSpecs({ db, schemas }: TestResultsReadStore, runId: string): Promise<RunSpec[]> {
  // One JSON value instead of a row per test: a run of 20,000 tests costs half the time this way (the
  // driver's work per row, PGlite's especially, was most of it).
  const { rows: answer } = await db.query<{ tests: string }>(
    `SELECT coalesce(json_agg(x ORDER BY x.file, x.title_path, x.project), '[]'::json)::text AS tests
     FROM (
       SELECT t.test_case_id, t.file, c.title, c.title_path, t.project, t.outcome, t.attempts, t.duration_ms,
              t.error_message
       FROM ${schemas.runList}.run_tests t
       JOIN ${schemas.caseHistory}.test_cases c ON c.project_id = t.project_id AND c.id = t.test_case_id
       WHERE t.run_id = $1
     ) x`,
    [runId],
  );
  const rows = JSON.parse(answer[0]?.tests ?? '[]') as RunTestRow[];
  const specs = new Map<string, RunSpec>();
  for (const row of rows) {
    const spec = specs.get(row.file) ?? {
      file: row.file,
      ...emptyStats(),
      durationMs: 0,
      tests: [],
    };
    specs.set(row.file, spec);
    countOutcome(spec, row.outcome);
    spec.durationMs += row.duration_ms;
    spec.tests.push({
      testCaseId: row.test_case_id,
      title: row.title,
      titlePath: row.title_path,
      project: platformOrNull(row.project),
      outcome: row.outcome,
      attempts: row.attempts,
      durationMs: row.duration_ms,
      errorMessage: row.error_message,
    });
  }
  return [...specs.values()];
}

const emptyStats = (): OutcomeStats => ({ total: 0, passed: 0, failed: 0, flaky: 0, skipped: 0 });

function countOutcome(stats: OutcomeStats, outcome: Outcome): void {
  stats.total += 1;
  stats[outcome] += 1;
}

/** A percentage with two decimals, as the analytics rates are. */
const rate = (part: number, whole: number): number =>
  whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100;

/**
 * One page of the project's spec files: test cases per file and outcome counts over every execution.
 *
 * @example const { items, total } = await listSpecs(store, projectId, { page: 1, limit: 20 });
 */
export async function listSpecs(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  query: { page: number; limit: number },
): Promise<Page<SpecSummary>> {
  const count = await db.query<{ total: number }>(
    `SELECT count(DISTINCT file)::int AS total FROM ${schemas.specList}.spec_tests WHERE project_id = $1`,
    [projectId],
  );
  const { rows } = await db.query<{ file: string; test_count: number } & OutcomeStats>(
    `WITH files AS (
       SELECT file, count(*)::int AS test_count FROM ${schemas.specList}.spec_tests WHERE project_id = $1
       GROUP BY file ORDER BY file LIMIT $2 OFFSET $3
     )
     SELECT f.file, f.test_count,
       count(t.outcome)::int AS total,
       count(*) FILTER (WHERE t.outcome = 'passed')::int AS passed,
       count(*) FILTER (WHERE t.outcome = 'failed')::int AS failed,
       count(*) FILTER (WHERE t.outcome = 'flaky')::int AS flaky,
       count(*) FILTER (WHERE t.outcome = 'skipped')::int AS skipped
     FROM files f LEFT JOIN ${schemas.runList}.run_tests t ON t.project_id = $1 AND t.file = f.file
     GROUP BY f.file, f.test_count ORDER BY f.file`,
    [projectId, query.limit, (query.page - 1) * query.limit],
  );
  return {
    total: count.rows[0]?.total ?? 0,
    items: rows.map((row) => ({
      file: row.file,
      testCount: row.test_count,
      total: row.total,
      passed: row.passed,
      failed: row.failed,
      flaky: row.flaky,
      skipped: row.skipped,
      passRate: rate(row.passed, row.total),
      failRate: rate(row.failed, row.total),
      flakyRate: rate(row.flaky, row.total),
    })),
  };
}
