/**
 * Queries over the runs read model (runs/runsReadModel.ts). Each takes the project it reads for and
 * never returns a row of another project, so a run or test case of another project reads as absent.
 */
import { keptInstant, keptInstantOrNull } from '@verdict/contracts';
import type {
  CoverageReport,
  Outcome,
  OutcomeStats,
  RunErrors,
  RunSpec,
  SpecSummary,
  TestCaseExecution,
  TestCaseRecord,
  TestRunRecord,
  TestRunsQuery,
} from '@verdict/contracts';
import type { ReadStore } from '@verdict/platform';
import { NO_PLATFORM } from '../runs/runsReadModel';

export interface Page<T> {
  items: T[];
  total: number;
}

type Timestamp = Date | string;
const platformOrNull = (project: string): string | null => (project === NO_PLATFORM ? null : project);

/** Escapes LIKE's wildcards so a search for "50%" finds "50%", not everything after "50". */
const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

interface RunRow {
  id: string;
  project_id: string;
  counter: number;
  status: 'running' | 'finished';
  outcome: 'passed' | 'failed' | null;
  ci_run_id: string | null;
  title: string | null;
  branch: string | null;
  environment: string | null;
  commit: TestRunRecord['commit'];
  ci: TestRunRecord['ci'];
  framework: TestRunRecord['framework'];
  tags: string[];
  started_at: Timestamp;
  finished_at: Timestamp | null;
  duration_ms: string | number | null;
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
  /** NULL in rows written before the shard columns, and for runs without shards. */
  shard_total?: number | null;
  shards_started?: number[] | null;
  shards_finished?: number[] | null;
}

function runOfRow(row: RunRow): TestRunRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    counter: row.counter,
    status: row.status,
    outcome: row.outcome,
    ciRunId: row.ci_run_id,
    title: row.title,
    branch: row.branch,
    environment: row.environment,
    commit: row.commit,
    ci: row.ci,
    framework: row.framework,
    tags: row.tags,
    startedAt: keptInstant(row.started_at),
    finishedAt: keptInstantOrNull(row.finished_at),
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    stats: {
      total: row.total,
      passed: row.passed,
      failed: row.failed,
      flaky: row.flaky,
      skipped: row.skipped,
    },
    shards:
      row.shard_total === null || row.shard_total === undefined
        ? null
        : { total: row.shard_total, started: row.shards_started ?? [], finished: row.shards_finished ?? [] },
  };
}

/** The WHERE clause of the runs list and its parameters ($1 is the project). */
function runFilters(projectId: string, query: TestRunsQuery): { where: string; params: unknown[] } {
  const params: unknown[] = [projectId];
  const clauses = ['project_id = $1'];
  const add = (clause: (at: string) => string, value: unknown) => {
    params.push(value);
    clauses.push(clause(`$${params.length}`));
  };
  if (query.start_date !== undefined) add((at) => `started_at >= ${at}`, query.start_date);
  if (query.end_date !== undefined) add((at) => `started_at <= ${at}`, query.end_date);
  if (query.status === 'running' || query.status === 'finished') add((at) => `status = ${at}`, query.status);
  if (query.status === 'passed' || query.status === 'failed') add((at) => `outcome = ${at}`, query.status);
  if (query.branch !== undefined) add((at) => `branch = ${at}`, query.branch);
  if (query.environment !== undefined) add((at) => `environment = ${at}`, query.environment);
  if (query.search !== undefined) {
    add(
      (at) =>
        `(title ILIKE ${at} OR branch ILIKE ${at} OR commit->>'sha' ILIKE ${at} OR ci_run_id ILIKE ${at})`,
      likePattern(query.search),
    );
  }
  return { where: clauses.join(' AND '), params };
}

/**
 * One page of a project's runs, newest first.
 *
 * @example const { items, total } = await listRuns(store, projectId, { page: 1, limit: 20 });
 */
export async function listRuns(
  { db, schema }: ReadStore,
  projectId: string,
  query: TestRunsQuery,
): Promise<Page<TestRunRecord>> {
  const { where, params } = runFilters(projectId, query);
  const count = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${schema}.runs WHERE ${where}`,
    params,
  );
  const { rows } = await db.query<RunRow>(
    `SELECT * FROM ${schema}.runs WHERE ${where}
     ORDER BY started_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, query.limit, (query.page - 1) * query.limit],
  );
  return { items: rows.map(runOfRow), total: count.rows[0]?.total ?? 0 };
}

/**
 * A run of the project, or null.
 *
 * @example const run = await findRun(store, projectId, runId);
 */
export async function findRun({ db, schema }: ReadStore, projectId: string, runId: string) {
  const { rows } = await db.query<RunRow>(`SELECT * FROM ${schema}.runs WHERE id = $1 AND project_id = $2`, [
    runId,
    projectId,
  ]);
  return rows[0] ? runOfRow(rows[0]) : null;
}

const MAX_ERROR_GROUPS = 100;
const MAX_STACKS = 10;
const MAX_TESTS_PER_ERROR = 100;

/**
 * The run's failed attempts grouped by error message, most frequent first.
 *
 * @example const errors = await runErrors(store, runId);
 */
export async function runErrors({ db, schema }: ReadStore, runId: string): Promise<RunErrors> {
  const { rows } = await db.query<{
    message: string;
    count: number;
    stacks: string[] | null;
    tests: { testCaseId: string; title: string; file: string; project: string; attempts: number[] }[];
  }>(
    // An attempt is numbered as the debug bundle numbers it, by its order among the test's attempts on its
    // platform in the run (the runner's own numbers may skip), so `attempt=N` there shows this one.
    `WITH failing AS (
       SELECT r.error->>'message' AS message, r.error->>'stack' AS stack, r.test_case_id, r.project,
              (SELECT count(*)::int FROM ${schema}.results x
               WHERE x.run_id = r.run_id AND x.test_case_id = r.test_case_id AND x.project = r.project
                 AND x.attempt < r.attempt) AS attempt,
              c.title, c.file
       FROM ${schema}.results r
       JOIN ${schema}.test_cases c ON c.project_id = r.project_id AND c.id = r.test_case_id
       WHERE r.run_id = $1 AND r.error IS NOT NULL
     ),
     per_test AS (
       SELECT message, test_case_id, project, min(title) AS title, min(file) AS file,
              array_agg(attempt ORDER BY attempt) AS attempts
       FROM failing GROUP BY message, test_case_id, project
     )
     SELECT g.message, g.count,
       (SELECT array_agg(stack) FROM (SELECT DISTINCT stack FROM failing f
          WHERE f.message = g.message AND f.stack IS NOT NULL ORDER BY stack LIMIT ${MAX_STACKS}) s) AS stacks,
       (SELECT coalesce(jsonb_agg(jsonb_build_object('testCaseId', test_case_id, 'title', title, 'file', file,
                 'project', project, 'attempts', to_jsonb(attempts)) ORDER BY file, title, project), '[]'::jsonb)
        FROM (SELECT * FROM per_test p WHERE p.message = g.message
              ORDER BY file, title, project LIMIT ${MAX_TESTS_PER_ERROR}) t) AS tests
     FROM (SELECT message, count(*)::int AS count FROM failing GROUP BY message) g
     ORDER BY g.count DESC, g.message
     LIMIT ${MAX_ERROR_GROUPS}`,
    [runId],
  );
  const total = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${schema}.results WHERE run_id = $1 AND error IS NOT NULL`,
    [runId],
  );
  return {
    total: total.rows[0]?.total ?? 0,
    groups: rows.map((row) => ({
      message: row.message,
      count: row.count,
      stacks: row.stacks ?? [],
      tests: row.tests.map((test) => ({ ...test, project: platformOrNull(test.project) })),
    })),
  };
}

/**
 * The latest coverage report of the run, or null.
 *
 * @example const coverage = await runCoverage(store, runId);
 */
export async function runCoverage({ db, schema }: ReadStore, runId: string): Promise<CoverageReport | null> {
  const { rows } = await db.query<{ report: CoverageReport }>(
    `SELECT report FROM ${schema}.coverage WHERE run_id = $1`,
    [runId],
  );
  return rows[0]?.report ?? null;
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
export async function runSpecs({ db, schema }: ReadStore, runId: string): Promise<RunSpec[]> {
  // One JSON value instead of a row per test: a run of 20,000 tests costs half the time this way (the
  // driver's work per row, PGlite's especially, was most of it).
  const { rows: answer } = await db.query<{ tests: string }>(
    `SELECT coalesce(json_agg(x ORDER BY x.file, x.title_path, x.project), '[]'::json)::text AS tests
     FROM (
       SELECT t.test_case_id, t.file, c.title, c.title_path, t.project, t.outcome, t.attempts, t.duration_ms,
              t.error_message
       FROM ${schema}.run_tests t
       JOIN ${schema}.test_cases c ON c.project_id = t.project_id AND c.id = t.test_case_id
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

export interface ArtifactRow {
  id: string;
  name: string;
  contentType: string;
  size: number;
  blobKey: string;
  resultRef: string | null;
}

/** What a signer gets to build an authenticated, time-limited download URL. */
export interface ArtifactToSign extends ArtifactRow {
  projectId: string;
  runId: string;
}

/**
 * The run's artifacts whose id or name is one of `keys`, oldest first.
 *
 * @example const artifacts = await runArtifacts(store, runId, ['art-1', 'trace.zip']);
 */
export async function runArtifacts(
  { db, schema }: ReadStore,
  runId: string,
  keys: readonly string[],
): Promise<ArtifactRow[]> {
  const { rows } = await db.query<ArtifactColumns>(
    `SELECT ${ARTIFACT_COLUMNS} FROM ${schema}.artifacts
     WHERE run_id = $1 AND (id = ANY($2::text[]) OR name = ANY($2::text[]))
     ORDER BY added_at, id`,
    [runId, keys],
  );
  return rows.map(artifactOfRow);
}

/** The artifacts table's columns an ArtifactRow is read from (the debug bundle reads them too). */
export const ARTIFACT_COLUMNS = 'id, name, content_type, size, blob_key, result_ref';

export interface ArtifactColumns {
  id: string;
  name: string;
  content_type: string;
  size: string | number;
  blob_key: string;
  result_ref: string | null;
}

export function artifactOfRow(row: ArtifactColumns): ArtifactRow {
  return {
    id: row.id,
    name: row.name,
    contentType: row.content_type,
    size: Number(row.size),
    blobKey: row.blob_key,
    resultRef: row.result_ref,
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
  { db, schema }: ReadStore,
  projectId: string,
  caseId: string,
): Promise<TestCaseRecord | null> {
  const { rows } = await db.query<TestCaseRow>(
    `SELECT c.*,
       (SELECT count(*)::int FROM ${schema}.run_tests t WHERE t.project_id = c.project_id AND t.test_case_id = c.id) AS total,
       ${(['passed', 'failed', 'flaky', 'skipped'] as const)
         .map(
           (outcome) => `(SELECT count(*)::int FROM ${schema}.run_tests t
              WHERE t.project_id = c.project_id AND t.test_case_id = c.id AND t.outcome = '${outcome}') AS ${outcome}`,
         )
         .join(',\n')}
     FROM ${schema}.test_cases c WHERE c.project_id = $1 AND c.id = $2`,
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
  { db, schema }: ReadStore,
  projectId: string,
  caseId: string,
  options: { offset: number; limit: number; outcome?: Outcome },
): Promise<Page<TestCaseExecution>> {
  // Executions whose run is not (yet) in the model are left out: without it there is no counter to show.
  const from = `FROM ${schema}.run_tests t JOIN ${schema}.runs r ON r.id = t.run_id AND r.project_id = t.project_id
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
  }>(
    `SELECT t.run_id, r.counter, r.branch, r.environment, t.project, t.outcome, t.attempts, t.duration_ms,
            t.started_at, t.error_message
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
    })),
  };
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
  { db, schema }: ReadStore,
  projectId: string,
  query: { page: number; limit: number },
): Promise<Page<SpecSummary>> {
  const count = await db.query<{ total: number }>(
    `SELECT count(DISTINCT file)::int AS total FROM ${schema}.test_cases WHERE project_id = $1`,
    [projectId],
  );
  const { rows } = await db.query<{ file: string; test_count: number } & OutcomeStats>(
    `WITH files AS (
       SELECT file, count(*)::int AS test_count FROM ${schema}.test_cases WHERE project_id = $1
       GROUP BY file ORDER BY file LIMIT $2 OFFSET $3
     )
     SELECT f.file, f.test_count,
       count(t.outcome)::int AS total,
       count(*) FILTER (WHERE t.outcome = 'passed')::int AS passed,
       count(*) FILTER (WHERE t.outcome = 'failed')::int AS failed,
       count(*) FILTER (WHERE t.outcome = 'flaky')::int AS flaky,
       count(*) FILTER (WHERE t.outcome = 'skipped')::int AS skipped
     FROM files f LEFT JOIN ${schema}.run_tests t ON t.project_id = $1 AND t.file = f.file
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
