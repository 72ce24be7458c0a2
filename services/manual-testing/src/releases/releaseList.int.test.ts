import { ManualReleaseCreated, ManualReleaseUpdated } from '@verdict/contracts';
import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { releaseIdOf } from '../shared/readStore';
import { listReleases, releaseDetail, releaseListProjection } from './releaseList';

const at = '2026-03-01T10:00:00.000Z';
const by = 'user-1';

describe.each(testDatabases())('the release list on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'releaseList', releaseListProjection);

  it('when a release is created and updated, then it reads as last set, found by MS-<n>, with no runs yet', async () => {
    await slice
      .spec()
      .given([
        {
          ...ManualReleaseCreated.of({
            releaseId: 'r1',
            projectId: 'project-1',
            number: 1,
            fields: {
              name: '1.0',
              description: '',
              startDate: '2026-03-01',
              dueDate: null,
              status: 'planned',
            },
            by,
            at,
          }),
          streamId: 'mt-release-r1',
        },
      ])
      .when([
        {
          ...ManualReleaseUpdated.of({
            releaseId: 'r1',
            set: { status: 'active', startDate: null, dueDate: '2026-04-01' },
            by,
            at,
          }),
          streamId: 'mt-release-r1',
        },
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const read = slice.read(schema);
        expect(await releaseIdOf(read, 'project-1', 'ms-1')).toBe('r1');
        expect(await releaseDetail(read, 'project-1', 'r1')).toMatchObject({
          releaseId: 'MS-1',
          status: 'active',
          startDate: null,
          dueDate: '2026-04-01',
          runCount: 0,
          progress: { total: 0 },
        });
        expect((await listReleases(read, 'project-1', { page: 1, limit: 10, status: 'planned' })).total).toBe(
          0,
        );
      });
  });
});
