/**
 * What the webhooks service knows of runs, from the test-results topic: each run's lifecycle and each
 * test's outcome so far, enough for `data.run` (stats and outcome) of a delivery.
 */
import { createHash } from 'node:crypto';
import { keptInstant, keptInstantOrNull, type ResultItem, type WebhookRun } from '@verdict/contracts';
import type { SqlExecutor } from '@verdict/platform';

/** A test within a run: (file, titlePath, platform), as the test-results read model counts them. */
function testKeyOf(item: ResultItem): string {
  return createHash('sha256')
    .update(JSON.stringify([item.file, item.titlePath, item.project ?? '']))
    .digest('hex')
    .slice(0, 32);
}

/** The link of a run in the Verdict UI (the same form as the debug bundle's `links.uiUrl`). */
export function runUrl(publicUrl: string, projectId: string, runId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/projects/${encodeURIComponent(projectId)}/runs/${encodeURIComponent(runId)}`;
}

export interface RunRow {
  id: string;
  project_id: string;
  counter: number;
  branch: string | null;
  environment: string | null;
  commit: WebhookRun['commit'];
  started_at: Date;
  finished_at: Date | null;
  reported_status: string | null;
  status: string;
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
}

export async function setupRunTables(tx: SqlExecutor, schema: string): Promise<void> {
  await tx.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.runs (
       id text PRIMARY KEY,
       project_id text NOT NULL,
       counter integer NOT NULL,
       branch text,
       environment text,
       commit jsonb,
       started_at timestamptz NOT NULL,
       finished_at timestamptz,
       reported_status text,
       status text NOT NULL
     )`,
  );
  // One row per test: whether an attempt went as expected, and whether one did not. OR-ing keeps it
  // exact whatever order or repetition the attempts arrive in.
  await tx.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.run_tests (
       run_id text NOT NULL,
       test_key text NOT NULL,
       went_right boolean NOT NULL,
       went_wrong boolean NOT NULL,
       PRIMARY KEY (run_id, test_key)
     )`,
  );
}

export async function applyResults(
  tx: SqlExecutor,
  schema: string,
  results: { runId: string; item: ResultItem }[],
) {
  if (results.length === 0) return;
  const rows = results.map(({ runId, item }) => {
    const counted = item.status !== 'skipped';
    const expected = item.status === (item.expectedStatus ?? 'passed');
    return {
      run_id: runId,
      test_key: testKeyOf(item),
      right: counted && expected,
      wrong: counted && !expected,
    };
  });
  await tx.query(
    `INSERT INTO ${schema}.run_tests (run_id, test_key, went_right, went_wrong)
     SELECT run_id, test_key, bool_or("right"), bool_or(wrong)
     FROM jsonb_to_recordset($1::jsonb) AS r(run_id text, test_key text, "right" boolean, wrong boolean)
     GROUP BY run_id, test_key
     ON CONFLICT (run_id, test_key) DO UPDATE SET
       went_right = run_tests.went_right OR EXCLUDED.went_right,
       went_wrong = run_tests.went_wrong OR EXCLUDED.went_wrong`,
    [JSON.stringify(rows)],
  );
}

/** The runs with their stats so far, by id: one statement for the whole batch. */
export async function runsOf(
  tx: SqlExecutor,
  schema: string,
  runIds: string[],
): Promise<Map<string, RunRow>> {
  const { rows } = await tx.query<RunRow>(
    `SELECT r.*,
       count(t.test_key)::int AS total,
       count(*) FILTER (WHERE t.went_right AND NOT t.went_wrong)::int AS passed,
       count(*) FILTER (WHERE t.went_wrong AND NOT t.went_right)::int AS failed,
       count(*) FILTER (WHERE t.went_right AND t.went_wrong)::int AS flaky,
       count(*) FILTER (WHERE NOT t.went_right AND NOT t.went_wrong)::int AS skipped
     FROM ${schema}.runs r LEFT JOIN ${schema}.run_tests t ON t.run_id = r.id
     WHERE r.id = ANY($1::text[])
     GROUP BY r.id`,
    [runIds],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

export function webhookRunOf(row: RunRow, publicUrl: string): WebhookRun {
  const finished = row.status === 'finished';
  const failed = Number(row.failed);
  return {
    id: row.id,
    counter: Number(row.counter),
    status: finished ? 'finished' : 'running',
    // As the runs read model judges it: failed when a test failed or the runner reported anything else.
    outcome: !finished
      ? null
      : failed > 0 || (row.reported_status ?? 'passed') !== 'passed'
        ? 'failed'
        : 'passed',
    branch: row.branch,
    environment: row.environment,
    commit: row.commit,
    stats: {
      total: Number(row.total),
      passed: Number(row.passed),
      failed,
      flaky: Number(row.flaky),
      skipped: Number(row.skipped),
    },
    startedAt: keptInstant(row.started_at),
    finishedAt: keptInstantOrNull(row.finished_at),
    url: runUrl(publicUrl, row.project_id, row.id),
  };
}

/** Runs created in the batch, each once. */
export async function applyCreated(
  tx: SqlExecutor,
  schema: string,
  created: {
    runId: string;
    projectId: string;
    counter: number;
    branch: string | null;
    environment: string | null;
    commit: WebhookRun['commit'];
    startedAt: string;
  }[],
): Promise<void> {
  if (created.length === 0) return;
  await tx.query(
    `INSERT INTO ${schema}.runs (id, project_id, counter, branch, environment, commit, started_at, status)
     SELECT id, project_id, counter, branch, environment, commit, started_at, 'running'
     FROM jsonb_to_recordset($1::jsonb) AS r(id text, project_id text, counter integer, branch text,
       environment text, commit jsonb, started_at timestamptz)
     ON CONFLICT (id) DO NOTHING`,
    [
      JSON.stringify(
        created.map((d) => ({
          id: d.runId,
          project_id: d.projectId,
          counter: d.counter,
          branch: d.branch,
          environment: d.environment,
          commit: d.commit,
          started_at: keptInstant(d.startedAt),
        })),
      ),
    ],
  );
}

/** Runs finished in the batch: the last finish of a run wins, as it would applied one by one. */
export async function applyFinished(
  tx: SqlExecutor,
  schema: string,
  finishes: { runId: string; finishedAt: string; status: string | null }[],
): Promise<void> {
  const finished = new Map<string, { finished_at: string; reported_status: string | null }>();
  for (const f of finishes)
    finished.set(f.runId, { finished_at: keptInstant(f.finishedAt), reported_status: f.status });
  if (finished.size === 0) return;
  await tx.query(
    `UPDATE ${schema}.runs r SET status = 'finished', finished_at = f.finished_at,
       reported_status = f.reported_status
     FROM jsonb_to_recordset($1::jsonb) AS f(id text, finished_at timestamptz, reported_status text)
     WHERE r.id = f.id`,
    [JSON.stringify([...finished].map(([id, f]) => ({ id, ...f })))],
  );
}
