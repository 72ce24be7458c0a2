/**
 * The run coverage: the latest coverage report of each run. A report of the same instant as the stored one
 * replaces it, so applying one again changes nothing.
 */
import type { CoverageReport } from '@verdict/contracts';
import { eventProjectId, type Projection, type SqlExecutor } from '@verdict/platform';
import { testResultsEventOf, type TestResultsReadStore } from '../readStore';

async function setup(tx: SqlExecutor, s: string): Promise<void> {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.coverage (
    run_id text PRIMARY KEY, project_id text NOT NULL, report jsonb NOT NULL, added_at timestamptz NOT NULL)`);
}

/** @example createProjector({ db, projections: [runCoverageProjection('test_results_read_coverage'), …], … }); */
export function runCoverageProjection(name: string): Projection {
  return {
    name,
    canHandle: ['run.coverage-added'],
    setup,
    async apply(tx, events, s) {
      for (const stored of events) {
        const event = testResultsEventOf(stored);
        if (event.type !== 'run.coverage-added') continue;
        const { data } = event;
        await tx.query(
          `INSERT INTO ${s}.coverage (run_id, project_id, report, added_at) VALUES ($1, $2, $3::jsonb, $4)
           ON CONFLICT (run_id) DO UPDATE SET report = EXCLUDED.report, added_at = EXCLUDED.added_at
           WHERE coverage.added_at <= EXCLUDED.added_at`,
          [data.runId, eventProjectId(stored), JSON.stringify(data.coverage), data.addedAt],
        );
      }
    },
  };
}

/**
 * The latest coverage report of the run, or null.
 *
 * @example const coverage = await runCoverage(store, runId);
 */
export async function runCoverage(
  { db, schemas }: TestResultsReadStore,
  runId: string,
): Promise<CoverageReport | null> {
  const { rows } = await db.query<{ report: CoverageReport }>(
    `SELECT report FROM ${schemas.runCoverage}.coverage WHERE run_id = $1`,
    [runId],
  );
  return rows[0]?.report ?? null;
}
