/** The run list's queries: one page of a project's runs, and one run. */
import { keptInstant, keptInstantOrNull } from '@verdict/contracts';
import type { RunHost, RunSettings, TestRunRecord, TestRunsQuery } from '@verdict/contracts';
import type { Page, TestResultsReadStore, Timestamp } from '../../readStore';

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
  /** NULL when the start sent none (and in rows written before these columns). */
  host?: RunHost | null;
  settings?: RunSettings | null;
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
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  query: TestRunsQuery,
): Promise<Page<TestRunRecord>> {
  const { where, params } = runFilters(projectId, query);
  const count = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${schemas.runList}.runs WHERE ${where}`,
    params,
  );
  const { rows } = await db.query<RunRow>(
    `SELECT * FROM ${schemas.runList}.runs WHERE ${where}
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
export async function findRun({ db, schemas }: TestResultsReadStore, projectId: string, runId: string) {
  const { rows } = await db.query<RunRow>(
    `SELECT * FROM ${schemas.runList}.runs WHERE id = $1 AND project_id = $2`,
    [runId, projectId],
  );
  const row = rows[0];
  return row ? { ...runOfRow(row), host: row.host ?? null, settings: row.settings ?? null } : null;
}
