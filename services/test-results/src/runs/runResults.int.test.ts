import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { runErrors, runResultsProjection } from './runResults';
import { RUN, resultOf } from './specEvents';

describe.each(testDatabases())('the run results on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'runResults', runResultsProjection);

  it('when attempts fail with the same message, then each attempt is recorded once and the run errors count both', async () => {
    await slice
      .spec()
      .given([resultOf('breaks', 0, 'failed')])
      .when([resultOf('breaks', 1, 'failed'), resultOf('pays', 0, 'passed')])
      .thenRedeliveryChangesNothing(async ({ db, schema }) => {
        const errors = await runErrors(slice.read(schema), RUN);
        expect(errors.total).toBe(2);
        // Its groups name the tests by the case history's titles (empty here): reads/routes.int.test.ts.
        const { rows } = await db.query(
          `SELECT attempt, status FROM ${schema}.results ORDER BY attempt, status`,
        );
        expect(rows).toEqual([
          { attempt: 0, status: 'failed' },
          { attempt: 0, status: 'passed' },
          { attempt: 1, status: 'failed' },
        ]);
      });
  });
});
