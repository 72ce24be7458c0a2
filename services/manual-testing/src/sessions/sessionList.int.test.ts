import { ManualSessionCreated, ManualSessionUpdated } from '@verdict/contracts';
import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { listSessions, sessionDetail, sessionListProjection } from './sessionList';

const by = 'user-1';
const streamId = 'mt-session-x1';
const update = (status: 'in_progress' | 'completed', at: string) => ({
  ...ManualSessionUpdated.of({ sessionId: 'x1', set: { status }, by, at }),
  streamId,
});

describe.each(testDatabases())('the session list on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'sessionList', sessionListProjection);

  it('when a session was created before time boxes (no timeBoxMinutes in its event), then it has none', async () => {
    await slice
      .spec()
      .given([])
      .when([
        {
          type: 'manual-session.created',
          data: {
            sessionId: 'x0',
            projectId: 'project-1',
            fields: {
              charter: 'Old',
              status: 'planned',
              notes: '',
              findings: [],
              releaseId: null,
              assigneeUserId: null,
            },
            by,
            at: '2026-03-01T09:00:00.000Z',
          },
          streamId: 'mt-session-x0',
        },
      ])
      .then(async ({ schema }) => {
        const read = slice.read(schema);
        expect(await sessionDetail(read, 'project-1', 'x0')).toMatchObject({
          charter: 'Old',
          timeBoxMinutes: null,
        });
      });
  });

  it('when a planned session is started and completed, then it keeps when it first started and when it was completed', async () => {
    await slice
      .spec()
      .given([
        {
          ...ManualSessionCreated.of({
            sessionId: 'x1',
            projectId: 'project-1',
            fields: {
              charter: 'Explore refunds',
              status: 'planned',
              notes: '',
              findings: [],
              releaseId: null,
              assigneeUserId: null,
              timeBoxMinutes: 30,
            },
            by,
            at: '2026-03-01T09:00:00.000Z',
          }),
          streamId,
        },
      ])
      .when([
        update('in_progress', '2026-03-01T10:00:00.000Z'),
        update('in_progress', '2026-03-01T10:30:00.000Z'),
        update('completed', '2026-03-01T11:00:00.000Z'),
        {
          ...ManualSessionUpdated.of({
            sessionId: 'x1',
            set: { timeBoxMinutes: 60 },
            by,
            at: '2026-03-01T11:00:00.000Z',
          }),
          streamId,
        },
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const read = slice.read(schema);
        expect(await sessionDetail(read, 'project-1', 'x1')).toMatchObject({
          charter: 'Explore refunds',
          status: 'completed',
          startedAt: '2026-03-01T10:00:00.000Z',
          completedAt: '2026-03-01T11:00:00.000Z',
          timeBoxMinutes: 60,
        });
        expect(
          (await listSessions(read, 'project-1', { page: 1, limit: 10, status: 'completed' })).total,
        ).toBe(1);
      });
  });
});
