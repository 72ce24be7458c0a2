/**
 * Reads what the CI summary shows: the run with its failures' verdicts, and its comparison with the base.
 * A run just finished may still be settling (its results are counted asynchronously): the run is read
 * again until it reads back finished, for a bounded time. A comparison Verdict cannot give is no failure
 * of the summary: it says why instead.
 */
import type { VerdictClient } from '../client';
import { VerdictApiError, VerdictNetworkError } from '../errors';
import type { CompareQuery, RunDetail } from '../types';
import type { RunSummaryInput } from './markdown';

export interface LoadSummaryOptions {
  /** The run's page in the web app. */
  runUrl: string;
  /** Compare with this run… */
  base?: string;
  /** …or with the latest finished run on this branch (default: the run's own base branch). */
  baseBranch?: string;
  /** How long to wait for the run to read back finished (default 0: read once). */
  settleMs?: number;
  /** The shard (1-based) the caller just finished, when the run is sharded. */
  ownShard?: number;
  /** Pause between two reads while waiting (default 250 ms). */
  pollMs?: number;
  project?: string;
  signal?: AbortSignal;
}

/**
 * Whether shards other than the caller's are still out: the run will not finish within the wait, so the
 * summary shows it as it stands. (The caller's own shard may not read back finished yet.)
 */
function awaitsOtherShards(run: RunDetail, ownShard: number | undefined): boolean {
  if (run.shards === null) return false;
  const others = run.shards.finished.filter((shard) => shard !== ownShard).length;
  return others < run.shards.total - (ownShard === undefined ? 0 : 1);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Why a comparison could not be read, in a few words. */
function problemOf(error: unknown): string {
  if (error instanceof VerdictApiError)
    return `Verdict answered ${error.status} ${error.code}: ${error.message}`;
  if (error instanceof VerdictNetworkError) return `Verdict could not be reached: ${error.message}`;
  throw error;
}

/**
 * Reads the run (`include=failures`) and its comparison; throws what reading the run throws.
 *
 * @example const summary = renderRunSummary(await loadRunSummary(client, runId, { runUrl, settleMs: 10_000 }));
 */
export async function loadRunSummary(
  client: VerdictClient,
  runId: string,
  options: LoadSummaryOptions,
): Promise<RunSummaryInput> {
  const call = {
    ...(options.project ? { project: options.project } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const read = () => client.getRun(runId, { include: 'failures' }, call);
  const deadline = Date.now() + (options.settleMs ?? 0);
  let run: RunDetail = await read();
  while (run.status !== 'finished' && !awaitsOtherShards(run, options.ownShard) && Date.now() < deadline) {
    await pause(options.pollMs ?? 250);
    run = await read();
  }
  const query: CompareQuery = {
    ...(options.base ? { base: options.base } : {}),
    ...(options.baseBranch ? { baseBranch: options.baseBranch } : {}),
  };
  try {
    const comparison = await client.compareRuns(runId, query, call);
    return { run, comparison, runUrl: options.runUrl };
  } catch (error) {
    return { run, comparison: null, comparisonProblem: problemOf(error), runUrl: options.runUrl };
  }
}
