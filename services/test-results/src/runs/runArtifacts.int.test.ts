import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { runArtifacts, runArtifactsProjection } from './runArtifacts';
import { RUN, artifactAdded } from './specEvents';

describe.each(testDatabases())('the run artifacts on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'runArtifacts', runArtifactsProjection);

  it('when artifacts are added, then each is found by its id or its name, once', async () => {
    await slice
      .spec()
      .given([artifactAdded('art-1')])
      .when([artifactAdded('art-2')])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const found = await runArtifacts(slice.read(schema), RUN, ['art-1', 'art-2.zip', 'unknown']);
        expect(found.map((artifact) => [artifact.id, artifact.size])).toEqual([
          ['art-1', 10],
          ['art-2', 10],
        ]);
      });
  });
});
