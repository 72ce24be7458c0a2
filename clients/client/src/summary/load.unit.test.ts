import type { VerdictClient } from '../client';
import { VerdictApiError } from '../errors';
import type { RunComparison, RunDetail } from '../types';
import { loadRunSummary } from './load';

const runUrl = 'https://verdict.example.com/projects/shop/runs/r1';

const run = (status: RunDetail['status'], shards: RunDetail['shards'] = null) =>
  ({
    id: 'r1',
    counter: 3,
    status,
    shards,
    stats: { total: 1, passed: 1, failed: 0, flaky: 0, skipped: 0 },
  }) as RunDetail;

/** A client whose getRun answers the given runs in turn (the last one again) and whose compareRuns answers `compare`. */
function fakeClient(runs: RunDetail[], compare: () => Promise<RunComparison>) {
  const reads: unknown[] = [];
  const compared: unknown[] = [];
  const client = {
    getRun: async (runId: string, query: unknown) => {
      reads.push({ runId, query });
      return runs[Math.min(reads.length - 1, runs.length - 1)];
    },
    compareRuns: async (runId: string, query: unknown) => {
      compared.push({ runId, query });
      return compare();
    },
  } as unknown as VerdictClient;
  return { client, reads, compared };
}

const comparison = { base: null, noBaseReason: 'none' } as unknown as RunComparison;

describe('loadRunSummary', () => {
  it('when the run reads back running at first, then it is read again until finished, with its failures, and compared with the base named', async () => {
    const { client, reads, compared } = fakeClient(
      [run('running'), run('running'), run('finished')],
      async () => comparison,
    );
    const input = await loadRunSummary(client, 'r1', {
      runUrl,
      baseBranch: 'release',
      settleMs: 5_000,
      pollMs: 1,
    });
    expect(input.run.status).toBe('finished');
    expect(reads).toEqual(Array(3).fill({ runId: 'r1', query: { include: 'failures' } }));
    expect(compared).toEqual([{ runId: 'r1', query: { baseBranch: 'release' } }]);
    expect(input).toMatchObject({ comparison, runUrl });
  });

  it('when shards other than the caller’s are still out, then it does not wait for the run to finish', async () => {
    const sharded = run('running', { total: 3, started: [1, 2, 3], finished: [1] });
    const { client, reads } = fakeClient([sharded, run('finished')], async () => comparison);
    const input = await loadRunSummary(client, 'r1', { runUrl, settleMs: 5_000, pollMs: 1, ownShard: 2 });
    expect(input.run.status).toBe('running');
    expect(reads).toHaveLength(1);
  });

  it('when only the caller’s own shard is not read back finished yet, then it waits for it', async () => {
    const last = run('running', { total: 2, started: [1, 2], finished: [1] });
    const { client, reads } = fakeClient([last, run('finished')], async () => comparison);
    const input = await loadRunSummary(client, 'r1', { runUrl, settleMs: 5_000, pollMs: 1, ownShard: 2 });
    expect(input.run.status).toBe('finished');
    expect(reads).toHaveLength(2);
  });

  it('when Verdict refuses the comparison, then the summary carries why instead of failing', async () => {
    const refused = new VerdictApiError({ status: 404, code: 'NOT_FOUND', message: 'Run not found' });
    const { client } = fakeClient([run('finished')], () => Promise.reject(refused));
    const input = await loadRunSummary(client, 'r1', { runUrl, base: 'gone' });
    expect(input.comparison).toBeNull();
    expect(input.comparisonProblem).toBe('Verdict answered 404 NOT_FOUND: Run not found');
  });
});
