import type { SqlDatabase } from '@verdict/platform';
import { testDatabases } from '@verdict/platform/testing/databases';
import { projectionSpec } from '@verdict/platform/testing/projections';
import { result, runSpec } from '../fixtures';
import { analyticsProjection } from './analyticsReadModel';

const P = 'project-cd';
const runOf = (n: number, environment: string, at: string, durationMs: number) =>
  runSpec({
    projectId: P,
    runId: `cd-${n}`,
    counter: n,
    branch: 'main',
    environment,
    startedAt: at,
    results: [result('a.spec.ts', ['a'], n === 2 ? 'failed' : 'passed', durationMs, at)],
  });

describe.each(testDatabases())('case days and weeks on $name', (database) => {
  let db: SqlDatabase;
  beforeAll(async () => {
    db = await database.open();
  });
  afterAll(() => db.close());

  const rows = async (schema: string, table: string) =>
    (
      await db.query(
        `SELECT executions, passed, failed, duration_sum, duration_max, last_run_id, last_outcome
         FROM ${schema}.${table} WHERE project_id = $1 ORDER BY last_at`,
        [P],
      )
    ).rows;

  it('when a test ran twice one Tuesday in two environments and once the Thursday, then days are per environment, totals per day and the week sums them', async () => {
    await projectionSpec({ db, projection: analyticsProjection })
      .given(runOf(1, 'staging', '2026-03-03T10:00:00.000Z', 100))
      .when([
        ...runOf(2, 'production', '2026-03-03T12:00:00.000Z', 300),
        ...runOf(3, 'staging', '2026-03-05T09:00:00.000Z', 200),
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        expect(await rows(schema, 'case_days')).toEqual([
          expect.objectContaining({ executions: 1, passed: 1, failed: 0, last_run_id: 'cd-1' }),
          expect.objectContaining({ executions: 1, passed: 0, failed: 1, last_run_id: 'cd-2' }),
          expect.objectContaining({ executions: 1, passed: 1, failed: 0, last_run_id: 'cd-3' }),
        ]);
        expect(await rows(schema, 'case_day_totals')).toEqual([
          {
            executions: 2,
            passed: 1,
            failed: 1,
            duration_sum: 400,
            duration_max: 300,
            last_run_id: 'cd-2',
            last_outcome: 'failed',
          },
          {
            executions: 1,
            passed: 1,
            failed: 0,
            duration_sum: 200,
            duration_max: 200,
            last_run_id: 'cd-3',
            last_outcome: 'passed',
          },
        ]);
        expect(await rows(schema, 'case_week_totals')).toEqual([
          {
            executions: 3,
            passed: 2,
            failed: 1,
            duration_sum: 600,
            duration_max: 300,
            last_run_id: 'cd-3',
            last_outcome: 'passed',
          },
        ]);
      });
  });
});
