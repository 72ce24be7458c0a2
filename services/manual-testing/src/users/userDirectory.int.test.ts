import { MembershipSet, UserCreated } from '@verdict/contracts';
import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { memberUserId, userDirectoryProjection, usersByIds } from './userDirectory';

const at = '2026-03-01T10:00:00.000Z';

describe.each(testDatabases())('the user directory on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'users', userDirectoryProjection);

  it('when users are announced and made members, then a member is found by id or e-mail in their organization only', async () => {
    await slice
      .spec()
      .given([
        {
          ...UserCreated.of({
            userId: 'u1',
            email: 'Ada@Example.com',
            firstName: 'Ada',
            lastName: 'L',
            createdAt: at,
          }),
          streamId: 'user-u1',
          projectId: null,
        },
        {
          ...UserCreated.of({
            userId: 'u2',
            email: 'bob@example.com',
            firstName: 'Bob',
            lastName: 'T',
            createdAt: at,
          }),
          streamId: 'user-u2',
          projectId: null,
        },
      ])
      .when([
        {
          ...MembershipSet.of({
            organizationId: 'o1',
            userId: 'u1',
            role: 'member',
            previousRole: null,
            setAt: at,
          }),
          streamId: 'org-o1',
          projectId: null,
        },
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const read = slice.read(schema);
        expect(await memberUserId(read, 'o1', ' ada@example.COM ')).toBe('u1');
        expect(await memberUserId(read, 'o1', 'u1')).toBe('u1');
        expect(await memberUserId(read, 'o1', 'bob@example.com')).toBeNull();
        expect(await memberUserId(read, 'o2', 'u1')).toBeNull();
        expect([...(await usersByIds(read, ['u2', null])).values()]).toEqual([
          { _id: 'u2', firstName: 'Bob', lastName: 'T', email: 'bob@example.com' },
        ]);
      });
  });
});
