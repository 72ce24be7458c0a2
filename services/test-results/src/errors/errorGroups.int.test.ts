import { errorSignature } from '@verdict/contracts';
import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { FILE, PROJECT, RUN, resultOf, runCreated } from '../runs/specEvents';
import { errorGroupsProjection } from './errorGroups';
import { listErrorGroups } from './queries';

const query = { page: 1, limit: 20, sortBy: 'occurrences', sortOrder: 'desc' } as const;
const march = { start: new Date('2026-03-01T00:00:00.000Z'), end: new Date('2026-03-01T23:59:59.999Z') };

const failure = (title: string, attempt: number, message: string, runId = RUN) =>
  resultOf(title, attempt, 'failed', { error: { message, location: { file: FILE, line: 12 } } }, runId);

const idOf = (message: string) => errorSignature({ message, location: { file: FILE }, testFile: FILE }).id;

describe.each(testDatabases())('the error groups on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'errors', errorGroupsProjection);

  it('when two tests fail with messages that differ only in numbers, then one group counts both, with the latest message as sample', async () => {
    await slice
      .spec()
      .given([runCreated()])
      .when([
        failure('pays', 0, 'Expected total 42, got 41'),
        failure('pays', 1, 'Expected total 43, got 41'),
        failure('totals', 0, 'Expected total 7, got 6'),
        resultOf('passes', 0, 'passed'),
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const { items, total } = await listErrorGroups(slice.read(schema), PROJECT, query, march);
        expect(total).toBe(1);
        expect(items[0]).toMatchObject({
          signatureId: idOf('Expected total 42, got 41'),
          message: 'Expected total <n>, got <n>',
          frame: { file: FILE, function: null },
          sampleMessage: 'Expected total 43, got 41',
          occurrences: 3,
          testsAffected: 2,
          runs: 1,
          branches: ['main'],
        });
        expect(items[0]?.daily).toEqual([{ day: '2026-03-01', count: 3 }]);
      });
  });

  it('when failures come before their run.created, then they take its branch and environment once it arrives', async () => {
    await slice
      .spec()
      .given([failure('pays', 0, 'Error: connect ECONNREFUSED 127.0.0.1:5432')])
      .when([runCreated({ branch: 'feature/cart', environment: 'staging' })])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const read = slice.read(schema);
        const onBranch = await listErrorGroups(read, PROJECT, { ...query, branch: 'feature/cart' }, march);
        expect(
          onBranch.items.map((group) => [group.occurrences, group.testsAffected, group.runs, group.branches]),
        ).toEqual([[1, 1, 1, ['feature/cart']]]);
        const staging = await listErrorGroups(read, PROJECT, { ...query, environment: 'staging' }, march);
        expect(staging.total).toBe(1);
        expect((await listErrorGroups(read, PROJECT, { ...query, branch: 'main' }, march)).total).toBe(0);
      });
  });

  it('when a failure arrives after its run.created, then it carries the run branch at once; another project sees none of it', async () => {
    await slice
      .spec()
      .given([runCreated({ branch: 'release' })])
      .when([failure('pays', 0, 'TypeError: cart is undefined')])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const read = slice.read(schema);
        const { items } = await listErrorGroups(read, PROJECT, { ...query, branch: 'release' }, march);
        expect(items.map((group) => group.signatureId)).toEqual([idOf('TypeError: cart is undefined')]);
        expect((await listErrorGroups(read, 'project-2', query, march)).total).toBe(0);
      });
  });

  it('when an older failure of a group arrives late, then the sample stays the latest message', async () => {
    await slice
      .spec()
      .given([runCreated(), failure('pays', 1, 'Expected total 99, got 1')])
      .when([failure('pays', 0, 'Expected total 5, got 1')])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const { items } = await listErrorGroups(slice.read(schema), PROJECT, query, march);
        expect(items[0]).toMatchObject({ sampleMessage: 'Expected total 99, got 1', occurrences: 2 });
      });
  });

  it('when a range cuts days in half, then only the attempts inside it count, whether its whole days are read from the daily rollup or every attempt is read (by tests affected)', async () => {
    const at = (day: number, hour: number) => new Date(Date.UTC(2026, 2, day, hour)).toISOString();
    const message = 'Expected total 42, got 41';
    await slice
      .spec()
      .given([runCreated()])
      .when([
        failure('pays', 0, message),
        ...[1, 2, 3, 4].flatMap((day) => [
          resultOf(`day ${day} early`, 0, 'failed', {
            startedAt: at(day, 6),
            error: { message, location: { file: FILE, line: 12 } },
          }),
          resultOf(`day ${day} late`, 0, 'failed', {
            startedAt: at(day, 18),
            error: { message, location: { file: FILE, line: 12 } },
          }),
        ]),
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const read = slice.read(schema);
        const counts = async (start: string, end: string) =>
          Promise.all(
            (['occurrences', 'tests'] as const).map(async (sortBy) => {
              const range = { start: new Date(start), end: new Date(end) };
              const [group] = (await listErrorGroups(read, PROJECT, { ...query, sortBy }, range)).items;
              return [group?.occurrences, group?.testsAffected, group?.firstSeenAt, group?.lastSeenAt];
            }),
          );
        // 1 March 12:00 to 3 March 12:00: the late attempt of the 1st, both of the 2nd, the early one of the 3rd.
        const cut = [4, 4, at(1, 18), at(3, 6)];
        expect(await counts(at(1, 12), at(3, 12))).toEqual([cut, cut]);
        // Whole days only (2nd and 3rd), then within one day.
        const whole = [4, 4, at(2, 6), at(3, 18)];
        expect(await counts(at(2, 0), '2026-03-03T23:59:59.999Z')).toEqual([whole, whole]);
        const within = [2, 2, at(1, 6), at(1, 10)];
        expect(await counts(at(1, 1), at(1, 11))).toEqual([within, within]);
        const { items } = await listErrorGroups(read, PROJECT, query, {
          start: new Date(at(1, 12)),
          end: new Date(at(3, 12)),
        });
        expect(items[0]?.daily).toEqual([
          { day: '2026-03-01', count: 1 },
          { day: '2026-03-02', count: 2 },
          { day: '2026-03-03', count: 1 },
        ]);
      });
  });
});
