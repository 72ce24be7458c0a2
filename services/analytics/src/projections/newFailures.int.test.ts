import type { SqlDatabase } from '@verdict/platform';
import { testDatabases } from '@verdict/platform/testing/databases';
import { projectionSpec } from '@verdict/platform/testing/projections';
import { result, runSpec } from '../fixtures';
import { analyticsProjection } from './analyticsReadModel';

const P = 'project-nf';
const runOf = (n: number, status: 'passed' | 'failed', extra: { environment?: string } = {}) =>
  runSpec({
    projectId: P,
    runId: `nf-${n}`,
    counter: n,
    branch: 'main',
    environment: extra.environment ?? 'staging',
    startedAt: `2026-03-0${n}T10:00:00.000Z`,
    results: [result('a.spec.ts', ['a'], status, 10, `2026-03-0${n}T10:00:01.000Z`)],
  });

describe.each(testDatabases())('new failures on $name', (database) => {
  let db: SqlDatabase;
  beforeAll(async () => {
    db = await database.open();
  });
  afterAll(() => db.close());

  const newFailures = async (schema: string) =>
    (
      await db.query<{ run_id: string }>(
        `SELECT run_id FROM ${schema}.new_failures WHERE project_id = $1 ORDER BY run_id`,
        [P],
      )
    ).rows.map((row) => row.run_id);

  it('when a test fails after it passed, then that failure is new and the next one in a row is not', async () => {
    await projectionSpec({ db, projection: analyticsProjection })
      .given(runOf(1, 'passed'))
      .when([...runOf(2, 'failed'), ...runOf(3, 'failed')])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        expect(await newFailures(schema)).toEqual(['nf-2']);
      });
  });

  it('when a test fails first in another environment, then that failure is new there too', async () => {
    await projectionSpec({ db, projection: analyticsProjection })
      .given(runOf(1, 'failed'))
      .when(runOf(2, 'failed', { environment: 'production' }))
      .then(async ({ schema }) => {
        expect(await newFailures(schema)).toEqual(['nf-1', 'nf-2']);
      });
  });

  it('when an earlier pass arrives after a failure, then the failure that followed it becomes new', async () => {
    await projectionSpec({ db, projection: analyticsProjection })
      .given([...runOf(1, 'failed'), ...runOf(3, 'failed')])
      .when(runOf(2, 'passed'))
      .then(async ({ schema }) => {
        expect(await newFailures(schema)).toEqual(['nf-1', 'nf-3']);
      });
  });
});
