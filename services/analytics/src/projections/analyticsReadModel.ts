/**
 * The analytics read model, fed only by the test-results events. Base rows: `runs`, `attempts` (one per
 * result), `test_cases`, and `case_runs` (one execution: a test case on one platform in one run, with its
 * outcome over all attempts and its run's environment, branch and commit). Derived rows, so that queries over
 * a million results stay small: `case_days` (executions per test case, platform, environment, branch and UTC
 * day, and `case_day_totals` over every platform, environment and branch of the day), `new_failures` (failed executions whose previous execution in the same environment, branch and
 * platform passed, or that had none), `commit_conflicts` (failed executions of a test case that also
 * passed on the same commit) and `usage_hours` (executions per project and hour, for billing periods).
 *
 * Invariants: base rows are upserts by natural key; every derived row is recomputed from the base rows of
 * the keys a batch touched (before and after the batch), never incremented. So an event applied twice,
 * results before their run.created, or attempts out of order all end in the same tables.
 */
import { createHash } from 'node:crypto';
import {
  parseTestResultsEvent,
  testCaseKey,
  type ResultItem,
  type TestResultsEvent,
} from '@verdict/contracts';
import type { Projection, SqlExecutor, StoredEvent } from '@verdict/platform';

/** The default name of the projection, hence of the schema that holds its tables. */
export const ANALYTICS_READ_MODEL = 'analytics';

/** Platform of a result sent without `project`, environment or branch of a run without one. */
export const NONE = '';

/** The id of a test case across runs: the same hash of (file, titlePath) the test-results service uses. */
export function testCaseIdOf(item: Pick<ResultItem, 'file' | 'titlePath'>): string {
  return createHash('sha256').update(testCaseKey(item)).digest('hex').slice(0, 32);
}

function tableDefinitions(s: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${s}.runs (
       id text PRIMARY KEY,
       project_id text NOT NULL,
       created boolean NOT NULL DEFAULT false,
       counter integer NOT NULL DEFAULT 0,
       title text,
       branch text NOT NULL DEFAULT '',
       environment text NOT NULL DEFAULT '',
       commit_sha text,
       started_at timestamptz,
       finished_at timestamptz,
       reported_status text,
       total integer NOT NULL DEFAULT 0,
       passed integer NOT NULL DEFAULT 0,
       failed integer NOT NULL DEFAULT 0,
       flaky integer NOT NULL DEFAULT 0,
       skipped integer NOT NULL DEFAULT 0
     )`,
    `CREATE INDEX IF NOT EXISTS runs_project_started ON ${s}.runs (project_id, started_at DESC)`,
    `CREATE TABLE IF NOT EXISTS ${s}.attempts (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       attempt integer NOT NULL,
       status text NOT NULL,
       expected_status text,
       duration_ms double precision NOT NULL,
       started_at timestamptz NOT NULL,
       PRIMARY KEY (run_id, case_id, platform, attempt)
     )`,
    `CREATE TABLE IF NOT EXISTS ${s}.test_cases (
       project_id text NOT NULL,
       case_id text NOT NULL,
       file text NOT NULL,
       title text NOT NULL,
       full_title text NOT NULL,
       platforms text[] NOT NULL,
       tags text[] NOT NULL,
       PRIMARY KEY (project_id, case_id)
     )`,
    `CREATE TABLE IF NOT EXISTS ${s}.case_runs (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       project_id text NOT NULL,
       outcome text NOT NULL,
       attempts integer NOT NULL,
       duration_ms double precision NOT NULL,
       started_at timestamptz NOT NULL,
       day date NOT NULL,
       environment text NOT NULL,
       branch text NOT NULL,
       commit_sha text,
       PRIMARY KEY (run_id, case_id, platform)
     )`,
    `CREATE INDEX IF NOT EXISTS case_runs_group ON ${s}.case_runs
       (project_id, case_id, environment, branch, platform, started_at, run_id)`,
    `CREATE INDEX IF NOT EXISTS case_runs_commit ON ${s}.case_runs (project_id, case_id, commit_sha)`,
    // Failures are a few percent of executions: these small indexes answer "did it fail there?" cheaply.
    `CREATE INDEX IF NOT EXISTS case_runs_failed_commit ON ${s}.case_runs (project_id, case_id, commit_sha)
       WHERE outcome = 'failed'`,
    `CREATE INDEX IF NOT EXISTS case_runs_failed_group ON ${s}.case_runs
       (project_id, case_id, environment, branch, platform, started_at) WHERE outcome = 'failed'`,
    `CREATE INDEX IF NOT EXISTS case_runs_started ON ${s}.case_runs (project_id, started_at)`,
    `CREATE TABLE IF NOT EXISTS ${s}.case_days (
       project_id text NOT NULL,
       day date NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       environment text NOT NULL,
       branch text NOT NULL,
       executions integer NOT NULL,
       passed integer NOT NULL,
       failed integer NOT NULL,
       flaky integer NOT NULL,
       skipped integer NOT NULL,
       duration_sum double precision NOT NULL,
       duration_max double precision NOT NULL,
       last_at timestamptz NOT NULL,
       last_run_id text NOT NULL,
       last_duration double precision NOT NULL,
       last_outcome text NOT NULL,
       PRIMARY KEY (project_id, day, case_id, platform, environment, branch)
     )`,
    `CREATE TABLE IF NOT EXISTS ${s}.case_day_totals (
       project_id text NOT NULL,
       day date NOT NULL,
       case_id text NOT NULL,
       executions integer NOT NULL,
       passed integer NOT NULL,
       failed integer NOT NULL,
       flaky integer NOT NULL,
       skipped integer NOT NULL,
       duration_sum double precision NOT NULL,
       duration_max double precision NOT NULL,
       last_at timestamptz NOT NULL,
       last_outcome text NOT NULL,
       PRIMARY KEY (project_id, day, case_id)
     )`,
    `CREATE TABLE IF NOT EXISTS ${s}.new_failures (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       project_id text NOT NULL,
       environment text NOT NULL,
       branch text NOT NULL,
       started_at timestamptz NOT NULL,
       day date NOT NULL,
       PRIMARY KEY (run_id, case_id, platform)
     )`,
    `CREATE INDEX IF NOT EXISTS new_failures_group ON ${s}.new_failures
       (project_id, case_id, environment, branch, platform, started_at)`,
    `CREATE INDEX IF NOT EXISTS new_failures_day ON ${s}.new_failures (project_id, day)`,
    `CREATE TABLE IF NOT EXISTS ${s}.commit_conflicts (
       run_id text NOT NULL,
       case_id text NOT NULL,
       platform text NOT NULL,
       project_id text NOT NULL,
       commit_sha text NOT NULL,
       environment text NOT NULL,
       branch text NOT NULL,
       day date NOT NULL,
       PRIMARY KEY (run_id, case_id, platform)
     )`,
    `CREATE INDEX IF NOT EXISTS commit_conflicts_commit ON ${s}.commit_conflicts (project_id, case_id, commit_sha)`,
    `CREATE INDEX IF NOT EXISTS commit_conflicts_day ON ${s}.commit_conflicts (project_id, day)`,
    `CREATE TABLE IF NOT EXISTS ${s}.usage_hours (
       project_id text NOT NULL,
       hour timestamptz NOT NULL,
       executions integer NOT NULL,
       PRIMARY KEY (project_id, hour)
     )`,
  ];
}

type Of<T extends TestResultsEvent['type']> = Extract<TestResultsEvent, { type: T }>;

interface ResultRow {
  run_id: string;
  case_id: string;
  platform: string;
  attempt: number;
  project_id: string;
  file: string;
  title: string;
  full_title: string;
  status: string;
  expected_status: string | null;
  duration_ms: number;
  started_at: string;
  tags: string[];
}

/** What a batch changed: executions, by key, whose derived rows must be recomputed. */
interface ExecutionKey {
  run_id: string;
  case_id: string;
  platform: string;
  project_id: string;
  environment: string;
  branch: string;
  commit_sha: string | null;
  started_at: string;
  day: string;
}

function projectOf(event: StoredEvent): string {
  if (event.projectId === null) throw new Error(`Event ${event.eventId} (${event.type}) has no projectId`);
  return event.projectId;
}

const EXECUTION_KEY_COLUMNS = `run_id, case_id, platform, project_id, environment, branch, commit_sha,
  to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS started_at, day::text AS day`;

async function keysOfExecutions(
  tx: SqlExecutor,
  s: string,
  where: string,
  params: unknown[],
): Promise<ExecutionKey[]> {
  const { rows } = await tx.query<ExecutionKey>(
    `SELECT ${EXECUTION_KEY_COLUMNS} FROM ${s}.case_runs WHERE ${where}`,
    params,
  );
  return rows;
}

async function applyRunCreated(
  tx: SqlExecutor,
  s: string,
  data: Of<'run.created'>['data'],
): Promise<ExecutionKey[]> {
  await tx.query(
    `INSERT INTO ${s}.runs (id, project_id, created, counter, title, branch, environment, commit_sha, started_at)
     VALUES ($1, $2, true, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (id) DO UPDATE SET created = true, counter = EXCLUDED.counter, title = EXCLUDED.title,
       branch = EXCLUDED.branch, environment = EXCLUDED.environment, commit_sha = EXCLUDED.commit_sha,
       started_at = EXCLUDED.started_at`,
    [
      data.runId,
      data.projectId,
      data.counter,
      data.title,
      data.branch ?? NONE,
      data.environment ?? NONE,
      data.commit?.sha ?? null,
      data.startedAt,
    ],
  );
  // Results that came before their run.created were filed without environment, branch and commit.
  const before = await keysOfExecutions(tx, s, 'run_id = $1', [data.runId]);
  if (before.length === 0) return [];
  await tx.query(
    `UPDATE ${s}.case_runs SET environment = $2, branch = $3, commit_sha = $4
     WHERE run_id = $1 AND (environment, branch, commit_sha) IS DISTINCT FROM ($2, $3, $4)`,
    [data.runId, data.environment ?? NONE, data.branch ?? NONE, data.commit?.sha ?? null],
  );
  return [...before, ...(await keysOfExecutions(tx, s, 'run_id = $1', [data.runId]))];
}

async function applyRunFinished(
  tx: SqlExecutor,
  s: string,
  projectId: string,
  data: Of<'run.finished'>['data'],
) {
  await tx.query(
    `INSERT INTO ${s}.runs (id, project_id, finished_at, reported_status) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET finished_at = EXCLUDED.finished_at, reported_status = EXCLUDED.reported_status`,
    [data.runId, projectId, data.finishedAt, data.status],
  );
}

/**
 * The outcome of an execution from its attempts: as the runner expected (passed unless it said otherwise)
 * at some attempt → passed, or flaky when another attempt went wrong; only wrong attempts → failed; only
 * skipped attempts → skipped.
 */
const OUTCOME_OF_ATTEMPTS = `CASE
    WHEN bool_or(a.status <> 'skipped' AND a.status = coalesce(a.expected_status, 'passed'))
      THEN CASE WHEN bool_or(a.status <> 'skipped' AND a.status <> coalesce(a.expected_status, 'passed'))
        THEN 'flaky' ELSE 'passed' END
    WHEN bool_or(a.status <> 'skipped') THEN 'failed'
    ELSE 'skipped' END`;

async function applyResults(tx: SqlExecutor, s: string, rows: ResultRow[]): Promise<ExecutionKey[]> {
  if (rows.length === 0) return [];
  const json = JSON.stringify(rows);
  await tx.query(
    `INSERT INTO ${s}.attempts (run_id, case_id, platform, attempt, status, expected_status, duration_ms, started_at)
     SELECT run_id, case_id, platform, attempt, status, expected_status, duration_ms, started_at
     FROM jsonb_to_recordset($1::jsonb) AS r(run_id text, case_id text, platform text, attempt integer,
       status text, expected_status text, duration_ms double precision, started_at timestamptz)
     ON CONFLICT DO NOTHING`,
    [json],
  );
  await tx.query(
    `INSERT INTO ${s}.test_cases (project_id, case_id, file, title, full_title, platforms, tags)
     SELECT project_id, case_id, min(file), min(title), min(full_title),
       ARRAY(SELECT DISTINCT p FROM unnest(array_agg(platform)) AS p WHERE p <> '' ORDER BY 1),
       ARRAY(SELECT DISTINCT t FROM jsonb_array_elements(jsonb_agg(tags)) AS j(x),
             jsonb_array_elements_text(j.x) AS t ORDER BY 1)
     FROM jsonb_to_recordset($1::jsonb) AS r(project_id text, case_id text, file text, title text,
       full_title text, platform text, tags jsonb)
     GROUP BY project_id, case_id
     ON CONFLICT (project_id, case_id) DO UPDATE SET
       platforms = ARRAY(SELECT DISTINCT p FROM unnest(test_cases.platforms || EXCLUDED.platforms) AS p ORDER BY 1),
       tags = ARRAY(SELECT DISTINCT t FROM unnest(test_cases.tags || EXCLUDED.tags) AS t ORDER BY 1)
     WHERE NOT (test_cases.platforms @> EXCLUDED.platforms AND test_cases.tags @> EXCLUDED.tags)`,
    [json],
  );
  const touched = JSON.stringify(
    [...new Map(rows.map((r) => [`${r.run_id}\u0000${r.case_id}\u0000${r.platform}`, r])).values()].map(
      (r) => ({ run_id: r.run_id, case_id: r.case_id, platform: r.platform, project_id: r.project_id }),
    ),
  );
  const before = await keysOfExecutions(
    tx,
    s,
    `(run_id, case_id, platform) IN (SELECT run_id, case_id, platform
       FROM jsonb_to_recordset($1::jsonb) AS t(run_id text, case_id text, platform text))`,
    [touched],
  );
  const { rows: after } = await tx.query<ExecutionKey>(
    `WITH touched AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(run_id text, case_id text, platform text, project_id text)
     ),
     computed AS (
       SELECT a.run_id, a.case_id, a.platform, min(t.project_id) AS project_id, ${OUTCOME_OF_ATTEMPTS} AS outcome,
         count(*)::int AS attempts, sum(a.duration_ms) AS duration_ms, min(a.started_at) AS started_at
       FROM ${s}.attempts a JOIN touched t USING (run_id, case_id, platform)
       GROUP BY a.run_id, a.case_id, a.platform
     )
     INSERT INTO ${s}.case_runs AS c (run_id, case_id, platform, project_id, outcome, attempts, duration_ms,
       started_at, day, environment, branch, commit_sha)
     SELECT x.run_id, x.case_id, x.platform, x.project_id, x.outcome, x.attempts, x.duration_ms, x.started_at,
       (x.started_at AT TIME ZONE 'UTC')::date, coalesce(r.environment, ''), coalesce(r.branch, ''), r.commit_sha
     FROM computed x LEFT JOIN ${s}.runs r ON r.id = x.run_id
     ON CONFLICT (run_id, case_id, platform) DO UPDATE SET outcome = EXCLUDED.outcome,
       attempts = EXCLUDED.attempts, duration_ms = EXCLUDED.duration_ms, started_at = EXCLUDED.started_at,
       day = EXCLUDED.day
     RETURNING ${EXECUTION_KEY_COLUMNS}`,
    [touched],
  );
  return [...before, ...after];
}

function unique<T>(items: T[], key: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [key(item), item])).values()];
}

/** Recounts case_days of every (project, day, case, platform, environment, branch) touched. */
async function recomputeCaseDays(tx: SqlExecutor, s: string, keys: ExecutionKey[]): Promise<void> {
  const days = unique(keys, (k) =>
    [k.project_id, k.day, k.case_id, k.platform, k.environment, k.branch].join('\u0000'),
  );
  if (days.length === 0) return;
  const json = JSON.stringify(
    days.map(({ project_id, day, case_id, platform, environment, branch }) => ({
      project_id,
      day,
      case_id,
      platform,
      environment,
      branch,
    })),
  );
  const dirty = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, day date, case_id text,
    platform text, environment text, branch text)`;
  await tx.query(
    `DELETE FROM ${s}.case_days c USING (${dirty}) d
     WHERE (c.project_id, c.day, c.case_id, c.platform, c.environment, c.branch)
         = (d.project_id, d.day, d.case_id, d.platform, d.environment, d.branch)`,
    [json],
  );
  await tx.query(
    `INSERT INTO ${s}.case_days (project_id, day, case_id, platform, environment, branch, executions, passed,
       failed, flaky, skipped, duration_sum, duration_max, last_at, last_run_id, last_duration, last_outcome)
     SELECT d.project_id, d.day, d.case_id, d.platform, d.environment, d.branch, count(*)::int,
       count(*) FILTER (WHERE c.outcome = 'passed')::int, count(*) FILTER (WHERE c.outcome = 'failed')::int,
       count(*) FILTER (WHERE c.outcome = 'flaky')::int, count(*) FILTER (WHERE c.outcome = 'skipped')::int,
       sum(c.duration_ms), max(c.duration_ms), max(c.started_at),
       (array_agg(c.run_id ORDER BY c.started_at DESC, c.run_id DESC))[1],
       (array_agg(c.duration_ms ORDER BY c.started_at DESC, c.run_id DESC))[1],
       (array_agg(c.outcome ORDER BY c.started_at DESC, c.run_id DESC))[1]
     FROM (${dirty}) d
     JOIN ${s}.case_runs c ON c.project_id = d.project_id AND c.case_id = d.case_id
       AND c.environment = d.environment AND c.branch = d.branch AND c.platform = d.platform
       AND c.started_at >= d.day::timestamp AT TIME ZONE 'UTC'
       AND c.started_at < (d.day + 1)::timestamp AT TIME ZONE 'UTC'
     GROUP BY d.project_id, d.day, d.case_id, d.platform, d.environment, d.branch`,
    [json],
  );
  const totals = JSON.stringify(
    unique(days, (k) => [k.project_id, k.day, k.case_id].join('\u0000')).map(
      ({ project_id, day, case_id }) => ({
        project_id,
        day,
        case_id,
      }),
    ),
  );
  const dirtyTotals = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, day date, case_id text)`;
  await tx.query(
    `DELETE FROM ${s}.case_day_totals c USING (${dirtyTotals}) d
     WHERE c.project_id = d.project_id AND c.day = d.day AND c.case_id = d.case_id`,
    [totals],
  );
  await tx.query(
    `INSERT INTO ${s}.case_day_totals (project_id, day, case_id, executions, passed, failed, flaky, skipped,
       duration_sum, duration_max, last_at, last_outcome)
     SELECT c.project_id, c.day, c.case_id, sum(c.executions), sum(c.passed), sum(c.failed), sum(c.flaky),
       sum(c.skipped), sum(c.duration_sum), max(c.duration_max), max(c.last_at),
       (array_agg(c.last_outcome ORDER BY c.last_at DESC, c.last_run_id DESC))[1]
     FROM (${dirtyTotals}) d
     JOIN ${s}.case_days c ON c.project_id = d.project_id AND c.day = d.day AND c.case_id = d.case_id
     GROUP BY c.project_id, c.day, c.case_id`,
    [totals],
  );
}

/**
 * Re-decides new failures in every touched (case, environment, branch, platform) group from the earliest
 * touched execution on: each failed execution whose previous non-skipped execution of the group passed
 * (or was flaky), or that has none, is a new failure.
 */
async function recomputeNewFailures(tx: SqlExecutor, s: string, keys: ExecutionKey[]): Promise<void> {
  const groups = new Map<string, ExecutionKey>();
  for (const k of keys) {
    const id = [k.project_id, k.case_id, k.environment, k.branch, k.platform].join('\u0000');
    const seen = groups.get(id);
    if (!seen || k.started_at < seen.started_at) groups.set(id, k);
  }
  if (groups.size === 0) return;
  const json = JSON.stringify(
    [...groups.values()].map(({ project_id, case_id, environment, branch, platform, started_at }) => ({
      project_id,
      case_id,
      environment,
      branch,
      platform,
      since: started_at,
    })),
  );
  const dirty = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, case_id text,
    environment text, branch text, platform text, since timestamptz)`;
  const sameGroup = `c.project_id = d.project_id AND c.case_id = d.case_id AND c.environment = d.environment
    AND c.branch = d.branch AND c.platform = d.platform`;
  await tx.query(
    `DELETE FROM ${s}.new_failures c USING (${dirty}) d WHERE ${sameGroup} AND c.started_at >= d.since`,
    [json],
  );
  await tx.query(
    `INSERT INTO ${s}.new_failures (run_id, case_id, platform, project_id, environment, branch, started_at, day)
     SELECT run_id, case_id, platform, project_id, environment, branch, started_at, day
     FROM (
       SELECT c.*, d.since,
         lag(c.outcome) OVER (PARTITION BY c.project_id, c.case_id, c.environment, c.branch, c.platform
                              ORDER BY c.started_at, c.run_id) AS previous
       FROM (${dirty}) d
       -- Only a group that failed since then can hold a new failure; most groups stop at this lookup.
       CROSS JOIN LATERAL (
         SELECT 1 FROM ${s}.case_runs c WHERE ${sameGroup} AND c.outcome = 'failed' AND c.started_at >= d.since
         LIMIT 1
       ) failed
       CROSS JOIN LATERAL (
         (SELECT c.* FROM ${s}.case_runs c WHERE ${sameGroup} AND c.outcome <> 'skipped' AND c.started_at < d.since
          ORDER BY c.started_at DESC, c.run_id DESC LIMIT 1)
         UNION ALL
         (SELECT c.* FROM ${s}.case_runs c WHERE ${sameGroup} AND c.outcome <> 'skipped' AND c.started_at >= d.since)
       ) c
     ) ordered
     WHERE started_at >= since AND outcome = 'failed' AND (previous IS NULL OR previous IN ('passed', 'flaky'))
     ON CONFLICT DO NOTHING`,
    [json],
  );
}

/** Re-decides, for every touched (case, commit), which failed executions contradict a pass on that commit. */
async function recomputeCommitConflicts(tx: SqlExecutor, s: string, keys: ExecutionKey[]): Promise<void> {
  const commits = unique(
    keys.filter((k) => k.commit_sha !== null),
    (k) => [k.project_id, k.case_id, k.commit_sha].join('\u0000'),
  ).map(({ project_id, case_id, commit_sha }) => ({ project_id, case_id, commit_sha }));
  // Executions moved off a commit (run.created after its results) leave conflicts keyed by run to clear.
  const runs = unique(keys, (k) => [k.run_id, k.case_id, k.platform].join('\u0000')).map(
    ({ run_id, case_id, platform }) => ({ run_id, case_id, platform }),
  );
  await tx.query(
    `DELETE FROM ${s}.commit_conflicts c USING jsonb_to_recordset($1::jsonb) AS d(run_id text, case_id text, platform text)
     WHERE (c.run_id, c.case_id, c.platform) = (d.run_id, d.case_id, d.platform)`,
    [JSON.stringify(runs)],
  );
  if (commits.length === 0) return;
  const json = JSON.stringify(commits);
  const dirty = `SELECT * FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, case_id text, commit_sha text)`;
  await tx.query(
    `DELETE FROM ${s}.commit_conflicts c USING (${dirty}) d
     WHERE (c.project_id, c.case_id, c.commit_sha) = (d.project_id, d.case_id, d.commit_sha)`,
    [json],
  );
  await tx.query(
    `INSERT INTO ${s}.commit_conflicts (run_id, case_id, platform, project_id, commit_sha, environment, branch, day)
     SELECT c.run_id, c.case_id, c.platform, c.project_id, c.commit_sha, c.environment, c.branch, c.day
     FROM (${dirty}) d
     JOIN ${s}.case_runs c ON c.project_id = d.project_id AND c.case_id = d.case_id AND c.commit_sha = d.commit_sha
       AND c.outcome = 'failed'
     WHERE EXISTS (
       SELECT 1 FROM ${s}.case_runs p
       WHERE (p.project_id, p.case_id, p.commit_sha) = (d.project_id, d.case_id, d.commit_sha)
         AND p.outcome IN ('passed', 'flaky'))
     ON CONFLICT DO NOTHING`,
    [json],
  );
}

/** Recounts the executions of every touched (project, hour). */
async function recomputeUsage(tx: SqlExecutor, s: string, keys: ExecutionKey[]): Promise<void> {
  const hours = unique(
    keys.map((k) => ({ project_id: k.project_id, hour: `${k.started_at.slice(0, 13)}:00:00Z` })),
    (h) => `${h.project_id}\u0000${h.hour}`,
  );
  if (hours.length === 0) return;
  await tx.query(
    `INSERT INTO ${s}.usage_hours (project_id, hour, executions)
     SELECT d.project_id, d.hour,
       (SELECT count(*)::int FROM ${s}.case_runs c WHERE c.project_id = d.project_id
          AND c.started_at >= d.hour AND c.started_at < d.hour + interval '1 hour')
     FROM jsonb_to_recordset($1::jsonb) AS d(project_id text, hour timestamptz)
     ON CONFLICT (project_id, hour) DO UPDATE SET executions = EXCLUDED.executions`,
    [JSON.stringify(hours)],
  );
}

/** Recounts the stats of every touched run from its executions. */
async function recomputeRunStats(tx: SqlExecutor, s: string, runIds: string[]): Promise<void> {
  if (runIds.length === 0) return;
  await tx.query(
    `UPDATE ${s}.runs AS run SET total = x.total, passed = x.passed, failed = x.failed, flaky = x.flaky,
       skipped = x.skipped
     FROM (
       SELECT ids.id, count(c.outcome)::int AS total,
         count(*) FILTER (WHERE c.outcome = 'passed')::int AS passed,
         count(*) FILTER (WHERE c.outcome = 'failed')::int AS failed,
         count(*) FILTER (WHERE c.outcome = 'flaky')::int AS flaky,
         count(*) FILTER (WHERE c.outcome = 'skipped')::int AS skipped
       FROM unnest($1::text[]) AS ids(id) LEFT JOIN ${s}.case_runs c ON c.run_id = ids.id
       GROUP BY ids.id
     ) AS x
     WHERE run.id = x.id`,
    [runIds],
  );
}

function resultRow(projectId: string, data: Of<'test.result-recorded'>['data']): ResultRow {
  const { item } = data;
  return {
    run_id: data.runId,
    case_id: testCaseIdOf(item),
    platform: item.project ?? NONE,
    attempt: item.attempt,
    project_id: projectId,
    file: item.file,
    title: item.titlePath.at(-1) ?? '',
    full_title: item.titlePath.join(' > '),
    status: item.status,
    expected_status: item.expectedStatus ?? null,
    duration_ms: item.durationMs,
    started_at: item.startedAt,
    tags: item.tags ?? [],
  };
}

/**
 * The projection, for createProjector. An event that is not a test-results event fails the batch, so the
 * bus dead-letters it instead of the model silently skipping it.
 *
 * @example const projector = createProjector({ db, projection: analyticsProjection(), logger });
 */
export function analyticsProjection(name: string = ANALYTICS_READ_MODEL): Projection {
  return {
    name,
    async setup(tx, schema) {
      for (const statement of tableDefinitions(schema)) await tx.query(statement);
    },
    async apply(tx, events, schema) {
      const keys: ExecutionKey[] = [];
      const runIds = new Set<string>();
      let results: ResultRow[] = [];
      // Lifecycle events apply in order, after the results before them, so a run.created later in the
      // batch finds those results' executions.
      const flush = async () => {
        keys.push(...(await applyResults(tx, schema, results)));
        results = [];
      };
      for (const stored of events) {
        const event = parseTestResultsEvent(stored);
        switch (event.type) {
          case 'test.result-recorded':
            results.push(resultRow(projectOf(stored), event.data));
            runIds.add(event.data.runId);
            break;
          case 'run.created':
            await flush();
            keys.push(...(await applyRunCreated(tx, schema, event.data)));
            runIds.add(event.data.runId);
            break;
          case 'run.finished':
            await flush();
            await applyRunFinished(tx, schema, projectOf(stored), event.data);
            break;
          default:
            break;
        }
      }
      await flush();
      await recomputeCaseDays(tx, schema, keys);
      await recomputeNewFailures(tx, schema, keys);
      await recomputeCommitConflicts(tx, schema, keys);
      await recomputeUsage(tx, schema, keys);
      await recomputeRunStats(tx, schema, [...runIds].sort());
    },
  };
}
