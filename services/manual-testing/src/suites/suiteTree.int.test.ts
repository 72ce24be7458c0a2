import { ManualSuiteCreated, ManualSuiteDeleted, ManualSuiteUpdated } from '@verdict/contracts';
import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { findSuite, listSuites, suiteChildren, suiteTreeProjection } from './suiteTree';

const at = '2026-03-01T10:00:00.000Z';
const by = 'user-1';
const created = (suiteId: string, name: string, parentId: string | null) => ({
  ...ManualSuiteCreated.of({
    suiteId,
    projectId: 'project-1',
    fields: { name, description: '', parentId },
    by,
    at,
  }),
  streamId: `mt-suite-${suiteId}`,
});

describe.each(testDatabases())('the suite tree on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'suiteTree', suiteTreeProjection);

  it('when suites are created, moved, renamed and deleted, then each shows its path from the root, and a deleted one is gone', async () => {
    await slice
      .spec()
      .given([created('s1', 'Shop', null), created('s2', 'Cart', null), created('s3', 'Old', 's1')])
      .when([
        {
          ...ManualSuiteUpdated.of({ suiteId: 's2', set: { parentId: 's1' }, by, at }),
          streamId: 'mt-suite-s2',
        },
        {
          ...ManualSuiteUpdated.of({ suiteId: 's1', set: { name: 'Store' }, by, at }),
          streamId: 'mt-suite-s1',
        },
        { ...ManualSuiteDeleted.of({ suiteId: 's3', by, at }), streamId: 'mt-suite-s3' },
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const read = slice.read(schema);
        const cart = await findSuite(read, 'project-1', 's2');
        expect(cart).toMatchObject({ name: 'Cart', parentId: 's1', caseCount: 0 });
        expect(cart?.path.map((s) => s.name)).toEqual(['Store', 'Cart']);
        expect(await findSuite(read, 'project-1', 's3')).toBeNull();
        expect(await suiteChildren(read, 'project-1', 's1')).toBe(1);
        const roots = await listSuites(read, 'project-1', { page: 1, limit: 10, parentId: 'null' });
        expect(roots.items.map((s) => s.name)).toEqual(['Store']);
        expect(roots.total).toBe(1);
      });
  });
});
