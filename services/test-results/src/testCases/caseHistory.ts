/**
 * The case history: the project's test cases (file, title path, the platforms and tags they ran with, when
 * first and last seen), fed by the results. Serves a test case's detail and, joined with the run list's
 * run_tests and runs, its executions. Platforms and tags only grow and the dates only widen, so applying a
 * result again changes nothing.
 */
import { keptInstant } from '@verdict/contracts';
import type { Outcome, TestCaseExecution, TestCaseRecord } from '@verdict/contracts';
import { byCodePoint, type Projection, type SqlExecutor } from '@verdict/platform';
import {
  platformOrNull,
  resultsOf,
  type Page,
  type RecordedResult,
  type TestResultsReadStore,
  type Timestamp,
} from '../readStore';

async function setup(tx: SqlExecutor, s: string): Promise<void> {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.test_cases (
    project_id text NOT NULL, id text NOT NULL, file text NOT NULL, title_path text[] NOT NULL,
    title text NOT NULL, platforms text[] NOT NULL, tags text[] NOT NULL,
    first_seen_at timestamptz NOT NULL, last_seen_at timestamptz NOT NULL, PRIMARY KEY (project_id, id))`);
  await tx.query(`CREATE INDEX IF NOT EXISTS test_cases_file ON ${s}.test_cases (project_id, file)`);
}

interface SeenTestCase {
  projectId: string;
  id: string;
  file: string;
  titlePath: string[];
  platforms: Set<string>;
  tags: Set<string>;
  firstSeenAt: string;
  lastSeenAt: string;
}

/** The batch's test cases, one entry each: platforms and tags united, first and last seen widened. */
function testCasesOf(results: readonly RecordedResult[]): SeenTestCase[] {
  const seen = new Map<string, SeenTestCase>();
  for (const { projectId, testCaseId: id, item } of results) {
    const key = `${projectId}\u0000${id}`;
    const at = keptInstant(item.startedAt);
    let entry = seen.get(key);
    if (entry === undefined) {
      entry = {
        projectId,
        id,
        file: item.file,
        titlePath: item.titlePath,
        platforms: new Set(),
        tags: new Set(),
        firstSeenAt: at,
        lastSeenAt: at,
      };
      seen.set(key, entry);
    }
    if (item.project) entry.platforms.add(item.project);
    for (const tag of item.tags ?? []) entry.tags.add(tag);
    if (at < entry.firstSeenAt) entry.firstSeenAt = at;
    if (at > entry.lastSeenAt) entry.lastSeenAt = at;
  }
  // In key order: batches of two runs of a project, written inline by concurrent appends, then lock the
  // test cases they share in the same order and never wait on each other in a cycle.
  return [...seen.entries()].sort(([a], [b]) => byCodePoint(a, b)).map(([, entry]) => entry);
}

/** Test cases seen in the batch: platforms and tags grow, first/last seen widen; never shrink. */
async function upsertTestCases(
  tx: SqlExecutor,
  s: string,
  results: readonly RecordedResult[],
): Promise<void> {
  if (results.length === 0) return;
  const cases = testCasesOf(results).map((c) => ({
    project_id: c.projectId,
    id: c.id,
    file: c.file,
    title_path: c.titlePath,
    platforms: [...c.platforms].sort(),
    tags: [...c.tags].sort(),
    first_seen_at: c.firstSeenAt,
    last_seen_at: c.lastSeenAt,
  }));
  await tx.query(
    `INSERT INTO ${s}.test_cases (project_id, id, file, title_path, title, platforms, tags, first_seen_at, last_seen_at)
     SELECT c.project_id, c.id, c.file, c.title_path, c.title_path[cardinality(c.title_path)], c.platforms, c.tags,
       c.first_seen_at, c.last_seen_at
     FROM json_to_recordset($1::json) AS c(project_id text, id text, file text, title_path text[],
       platforms text[], tags text[], first_seen_at timestamptz, last_seen_at timestamptz)
     ON CONFLICT (project_id, id) DO UPDATE SET
       platforms = ARRAY(SELECT DISTINCT p FROM unnest(test_cases.platforms || EXCLUDED.platforms) AS p ORDER BY 1),
       tags = ARRAY(SELECT DISTINCT t FROM unnest(test_cases.tags || EXCLUDED.tags) AS t ORDER BY 1),
       first_seen_at = LEAST(test_cases.first_seen_at, EXCLUDED.first_seen_at),
       last_seen_at = GREATEST(test_cases.last_seen_at, EXCLUDED.last_seen_at)`,
    [JSON.stringify(cases)],
  );
}

/** @example createProjector({ db, projections: [caseHistoryProjection('test_results_read_test_cases'), …], … }); */
export function caseHistoryProjection(name: string): Projection {
  return {
    name,
    canHandle: ['test.result-recorded'],
    setup,
    apply: (tx, events, s) => upsertTestCases(tx, s, resultsOf(events)),
  };
}

interface TestCaseRow {
  id: string;
  file: string;
  title_path: string[];
  title: string;
  platforms: string[];
  tags: string[];
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
}

/**
 * A test case of the project with its outcome counts over every run, or null.
 *
 * @example const testCase = await findTestCase(store, projectId, caseId);
 */
export async function findTestCase(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  caseId: string,
): Promise<TestCaseRecord | null> {
  const { rows } = await db.query<TestCaseRow>(
    `SELECT c.*,
       (SELECT count(*)::int FROM ${schemas.runList}.run_tests t WHERE t.project_id = c.project_id AND t.test_case_id = c.id) AS total,
       ${(['passed', 'failed', 'flaky', 'skipped'] as const)
         .map(
           (outcome) => `(SELECT count(*)::int FROM ${schemas.runList}.run_tests t
              WHERE t.project_id = c.project_id AND t.test_case_id = c.id AND t.outcome = '${outcome}') AS ${outcome}`,
         )
         .join(',\n')}
     FROM ${schemas.caseHistory}.test_cases c WHERE c.project_id = $1 AND c.id = $2`,
    [projectId, caseId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    file: row.file,
    titlePath: row.title_path,
    title: row.title,
    platforms: row.platforms,
    tags: row.tags,
    firstSeenAt: keptInstant(row.first_seen_at),
    lastSeenAt: keptInstant(row.last_seen_at),
    stats: {
      total: row.total,
      passed: row.passed,
      failed: row.failed,
      flaky: row.flaky,
      skipped: row.skipped,
    },
  };
}

/**
 * Executions of a test case (one per run and platform), newest first, from `offset`.
 *
 * @example const { items, total } = await testCaseHistory(store, projectId, caseId, { offset: 0, limit: 20 });
 */
export async function testCaseHistory(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  caseId: string,
  options: { offset: number; limit: number; outcome?: Outcome },
): Promise<Page<TestCaseExecution>> {
  // Executions whose run is not (yet) in the model are left out: without it there is no counter to show.
  const from = `FROM ${schemas.runList}.run_tests t JOIN ${schemas.runList}.runs r ON r.id = t.run_id AND r.project_id = t.project_id
     WHERE t.project_id = $1 AND t.test_case_id = $2 AND ($3::text IS NULL OR t.outcome = $3)`;
  const params = [projectId, caseId, options.outcome ?? null];
  const count = await db.query<{ total: number }>(`SELECT count(*)::int AS total ${from}`, params);
  const { rows } = await db.query<{
    run_id: string;
    counter: number;
    branch: string | null;
    environment: string | null;
    project: string;
    outcome: Outcome;
    attempts: number;
    duration_ms: number;
    started_at: Timestamp;
    error_message: string | null;
    error_signature: string | null;
    error_signature_text: string | null;
  }>(
    `SELECT t.run_id, r.counter, r.branch, r.environment, t.project, t.outcome, t.attempts, t.duration_ms,
            t.started_at, t.error_message, t.error_signature, t.error_signature_text
     ${from}
     ORDER BY t.started_at DESC, t.run_id DESC, t.project LIMIT $4 OFFSET $5`,
    [...params, options.limit, options.offset],
  );
  return {
    total: count.rows[0]?.total ?? 0,
    items: rows.map((row) => ({
      runId: row.run_id,
      counter: row.counter,
      branch: row.branch,
      environment: row.environment,
      project: platformOrNull(row.project),
      outcome: row.outcome,
      attempts: row.attempts,
      durationMs: row.duration_ms,
      startedAt: keptInstant(row.started_at),
      errorMessage: row.error_message,
      errorSignature:
        row.error_signature === null
          ? null
          : { id: row.error_signature, text: row.error_signature_text ?? '' },
    })),
  };
}
