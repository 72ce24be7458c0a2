import {
  TestQuarantined,
  TestQuarantineExpired,
  TestQuarantineExtended,
  TestQuarantineLifted,
  TestQuarantineSignaturesChanged,
} from '@verdict/contracts';
import { testDatabases } from '@verdict/platform/testing/databases';
import { projectionSpec } from '@verdict/platform/testing/projections';
import type { SqlDatabase } from '@verdict/platform';
import { activeQuarantines, quarantineListProjection } from './quarantineList';

const at = (day: number) => new Date(Date.UTC(2026, 2, day, 10)).toISOString();
const timeout = { id: 'a1b2c3d4e5f6', text: 'TimeoutError: locator.click', occurrences: 4 };
const refused = { id: '0123456789ab', text: 'Error: connect ECONNREFUSED', occurrences: 1 };

const quarantined = (quarantineId: string, testCaseId: string, expiresDay: number, project = 'p-1') => ({
  ...TestQuarantined.of({
    quarantineId,
    projectId: project,
    target: { testCaseId, file: 'tests/cart.spec.ts', titlePath: ['Cart', testCaseId], project: null },
    reason: 'Flaky click, PAY-123',
    ownerId: 'user-ada',
    expiresAt: at(expiresDay),
    evidence: { signatures: [timeout], flakyRate: 0.2, failRate: 0.05, runsSeen: 40 },
    releaseRule: null,
    automatic: false,
    by: 'user-bob',
    at: at(1),
  }),
  streamId: `quarantine-${quarantineId}`,
});

describe.each(testDatabases())('the quarantine list on $name', ({ open }) => {
  let db: SqlDatabase;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(() => db.close());
  const spec = () => projectionSpec({ db, projection: quarantineListProjection });

  it('when tests are quarantined, then the active ones of a project are listed with the signatures they forgive; another project sees none', async () => {
    await spec()
      .given([])
      .when([
        quarantined('q-1', 'tc-1', 15),
        quarantined('q-2', 'tc-2', 20),
        quarantined('q-3', 'tc-1', 15, 'p-2'),
      ])
      .thenRedeliveryChangesNothing(async ({ db: read, schema }) => {
        const active = await activeQuarantines(read, schema, 'p-1', null, new Date(at(2)));
        expect(active).toEqual([
          {
            quarantineId: 'q-1',
            testCaseId: 'tc-1',
            platform: null,
            ownerId: 'user-ada',
            expiresAt: at(15),
            signatureIds: [timeout.id],
          },
          expect.objectContaining({ quarantineId: 'q-2', testCaseId: 'tc-2' }),
        ]);
        expect(
          (await activeQuarantines(read, schema, 'p-1', ['tc-2'], new Date(at(2)))).map(
            (q) => q.quarantineId,
          ),
        ).toEqual(['q-2']);
      });
  });

  it('when one is extended, another lifted, a third expired, and signatures are changed, then only the active ones remain, with their new expiry and signatures', async () => {
    await spec()
      .given([quarantined('q-1', 'tc-1', 15), quarantined('q-2', 'tc-2', 15), quarantined('q-3', 'tc-3', 5)])
      .when([
        {
          ...TestQuarantineExtended.of({ quarantineId: 'q-1', expiresAt: at(25), by: 'user-ada', at: at(3) }),
          streamId: 'quarantine-q-1',
        },
        {
          ...TestQuarantineSignaturesChanged.of({
            quarantineId: 'q-1',
            signatures: [timeout, refused],
            by: 'user-ada',
            at: at(3),
          }),
          streamId: 'quarantine-q-1',
        },
        {
          ...TestQuarantineLifted.of({
            quarantineId: 'q-2',
            reason: 'Fixed',
            automatic: false,
            by: 'user-ada',
            at: at(4),
          }),
          streamId: 'quarantine-q-2',
        },
        {
          ...TestQuarantineExpired.of({ quarantineId: 'q-3', expiredAt: at(5), at: at(6) }),
          streamId: 'quarantine-q-3',
        },
      ])
      .thenRedeliveryChangesNothing(async ({ db: read, schema }) => {
        const active = await activeQuarantines(read, schema, 'p-1', null, new Date(at(7)));
        expect(active).toEqual([
          expect.objectContaining({
            quarantineId: 'q-1',
            expiresAt: at(25),
            signatureIds: [timeout.id, refused.id],
          }),
        ]);
      });
  });

  it('when a quarantine reaches its expiry before the sweep records it, then it is no longer active', async () => {
    await spec()
      .given([])
      .when([quarantined('q-1', 'tc-1', 5)])
      .then(async ({ db: read, schema }) => {
        expect(await activeQuarantines(read, schema, 'p-1', null, new Date(at(4)))).toHaveLength(1);
        expect(await activeQuarantines(read, schema, 'p-1', null, new Date(at(5)))).toEqual([]);
      });
  });
});
