import type { SqlDatabase } from '@verdict/platform';
import { testDatabases } from '@verdict/platform/testing/databases';
import { projectionSpec } from '@verdict/platform/testing/projections';
import { result, runSpec } from '../fixtures';
import { analyticsProjection } from './analyticsReadModel';

const P = 'project-cc';
const runOf = (n: number, commit: string, statuses: Record<string, 'passed' | 'failed'>) =>
  runSpec({
    projectId: P,
    runId: `cc-${n}`,
    counter: n,
    branch: 'main',
    environment: 'staging',
    commit,
    startedAt: `2026-03-0${n}T10:00:00.000Z`,
    results: Object.entries(statuses).map(([platform, status]) =>
      result('a.spec.ts', ['a'], status, 10, `2026-03-0${n}T10:00:01.000Z`, { project: platform }),
    ),
  });

describe.each(testDatabases())('commit conflicts on $name', (database) => {
  let db: SqlDatabase;
  beforeAll(async () => {
    db = await database.open();
  });
  afterAll(() => db.close());

  const conflicts = async (schema: string) =>
    (
      await db.query<{ run_id: string; failed: boolean }>(
        `SELECT run_id, failed FROM ${schema}.commit_conflicts WHERE project_id = $1 ORDER BY run_id`,
        [P],
      )
    ).rows;

  it('when a test failed on a commit and passed on it in another run, then both sides are kept', async () => {
    await projectionSpec({ db, projection: analyticsProjection })
      .given(runOf(1, 'c1', { chromium: 'failed' }))
      .when(runOf(2, 'c1', { chromium: 'passed' }))
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        expect(await conflicts(schema)).toEqual([
          { run_id: 'cc-1', failed: true },
          { run_id: 'cc-2', failed: false },
        ]);
      });
  });

  it('when it passed and failed on one commit within one run (two platforms), or on another commit, then there is no conflict', async () => {
    await projectionSpec({ db, projection: analyticsProjection })
      .given(runOf(1, 'c1', { chromium: 'failed', firefox: 'passed' }))
      .when(runOf(2, 'c2', { chromium: 'passed' }))
      .then(async ({ schema }) => {
        expect(await conflicts(schema)).toEqual([]);
      });
  });
});
