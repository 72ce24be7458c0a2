import { ManualRunCaseUpdated, ManualRunCreated } from '@verdict/contracts';
import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../testing';
import { listRuns, runDetail, runProgressProjection } from './runProgress';

const at = '2026-03-01T10:00:00.000Z';
const by = 'user-1';
const streamId = 'mt-run-u1';
const runCreated = {
  ...ManualRunCreated.of({
    runId: 'u1',
    projectId: 'project-1',
    number: 1,
    name: 'Regression',
    description: '',
    releaseId: null,
    assigneeUserId: null,
    cases: [
      { refId: 'rc1', caseId: 'c1', number: 1, title: 'Log in', revision: 1 },
      { refId: 'rc2', caseId: 'c2', number: 2, title: 'Pay', revision: 3 },
    ],
    by,
    at,
  }),
  streamId,
};
const updated = (refId: string, change: { result?: 'passed' | 'failed' | 'retest'; comment?: string }) => ({
  ...ManualRunCaseUpdated.of({
    runId: 'u1',
    refId,
    mode: change.comment === undefined ? 'quick' : 'detailed',
    ...change,
    by,
    at,
  }),
  streamId,
});

describe.each(testDatabases())('run progress on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'runProgress', runProgressProjection);

  it('when some cases of a run have results, then it is in progress with its counts, and each case keeps its history once', async () => {
    await slice
      .spec()
      .given([runCreated])
      .when([updated('rc1', { result: 'failed' }), updated('rc1', { comment: 'declined' })])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const read = slice.read(schema);
        const run = await runDetail(read, 'project-1', 'u1');
        expect(run).toMatchObject({
          runId: 'RUN-1',
          status: 'in_progress',
          progress: { total: 2, untested: 1, failed: 1, completed: 1, percentComplete: 50, passRate: 0 },
        });
        expect(run?.testCases.map((c) => [c.caseRef.caseId, c.result, c.comment, c.history.length])).toEqual([
          ['TC-1', 'failed', 'declined', 2],
          ['TC-2', 'untested', null, 0],
        ]);
        expect((await listRuns(read, 'project-1', { page: 1, limit: 10, status: 'in_progress' })).total).toBe(
          1,
        );
      });
  });

  it('when every case has a result but one is to retest, then the run is not completed until it is passed', async () => {
    const spec = slice
      .spec()
      .given([runCreated, updated('rc1', { result: 'passed' }), updated('rc2', { result: 'retest' })]);
    const status = async (schema: string) => (await runDetail(slice.read(schema), 'project-1', 'u1'))?.status;
    await spec.when([]).then(async ({ schema }) => expect(await status(schema)).toBe('in_progress'));
    await spec
      .when([updated('rc2', { result: 'passed' })])
      .then(async ({ schema }) => expect(await status(schema)).toBe('completed'));
  });
});
