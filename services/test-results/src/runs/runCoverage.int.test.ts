import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { runCoverage, runCoverageProjection } from './runCoverage';
import { RUN, coverageAdded } from './specEvents';

describe.each(testDatabases())('the run coverage on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'runCoverage', runCoverageProjection);

  it('when a later report comes, then it replaces the earlier one; an older one arriving late does not', async () => {
    await slice
      .spec()
      .given([coverageAdded(50, '2026-03-01T10:00:00.000Z')])
      .when([coverageAdded(70, '2026-03-01T10:01:00.000Z'), coverageAdded(60, '2026-03-01T10:00:30.000Z')])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        expect((await runCoverage(slice.read(schema), RUN))?.lines?.covered).toBe(70);
        expect(await runCoverage(slice.read(schema), 'run-2')).toBeNull();
      });
  });
});
