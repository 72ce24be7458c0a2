import { testDatabases } from '@verdict/platform/testing/databases';
import { sliceUnderTest } from '../../testing';
import { PROJECT, RUN, resultOf, runCreated, runFinished } from '../specEvents';
import { findRun, listRuns } from './queries';
import { runListProjection } from './runList';

const query = { page: 1, limit: 20 } as const;

describe.each(testDatabases())('the run list on $name', ({ open }) => {
  const slice = sliceUnderTest(open, 'runList', runListProjection);

  it('when a run records a pass, a retry that passed, a failure and a skip and finishes, then it is failed with one of each', async () => {
    await slice
      .spec()
      .given([runCreated()])
      .when([
        resultOf('pays', 0, 'passed'),
        resultOf('retries', 0, 'failed'),
        resultOf('retries', 1, 'passed'),
        resultOf('breaks', 0, 'failed'),
        resultOf('waits', 0, 'skipped'),
        runFinished(),
      ])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const run = await findRun(slice.read(schema), PROJECT, RUN);
        expect(run).toMatchObject({
          status: 'finished',
          outcome: 'failed',
          stats: { total: 4, passed: 1, failed: 1, flaky: 1, skipped: 1 },
        });
        expect(await findRun(slice.read(schema), 'project-2', RUN)).toBeNull();
      });
  });

  it('when results come before their run.created, then the run counts them once it arrives', async () => {
    await slice
      .spec()
      .given([resultOf('pays', 0, 'passed'), resultOf('breaks', 0, 'failed')])
      .when([runCreated()])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        const { items, total } = await listRuns(slice.read(schema), PROJECT, query);
        expect(total).toBe(1);
        expect(items[0]?.stats).toEqual({ total: 2, passed: 1, failed: 1, flaky: 0, skipped: 0 });
      });
  });

  it('when a retry that passed comes before the failed first attempt, then the test ends flaky', async () => {
    await slice
      .spec()
      .given([runCreated(), resultOf('retries', 1, 'passed')])
      .when([resultOf('retries', 0, 'failed'), runFinished('passed')])
      .thenRedeliveryChangesNothing(async ({ schema }) => {
        expect(await findRun(slice.read(schema), PROJECT, RUN)).toMatchObject({
          outcome: 'passed',
          stats: { total: 1, flaky: 1 },
        });
      });
  });

  it('when runs are listed with a status, then only the matching ones come, newest first', async () => {
    const later = { runId: 'run-2', counter: 2, startedAt: '2026-03-02T10:00:00.000Z' };
    await slice
      .spec()
      .given([runCreated(), runCreated(later)])
      .when([runFinished(null, 'run-2')])
      .then(async ({ schema }) => {
        const all = await listRuns(slice.read(schema), PROJECT, query);
        expect(all.items.map((run) => run.id)).toEqual(['run-2', RUN]);
        const running = await listRuns(slice.read(schema), PROJECT, { ...query, status: 'running' });
        expect(running.items.map((run) => run.id)).toEqual([RUN]);
      });
  });
});
