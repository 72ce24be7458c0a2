/**
 * Sends a demo history through the public API, as a reporter would: start each run (joining it when its
 * ciRunId is already known), add its results in batches, finish it. A run that a previous load finished is
 * left as it is, so loading twice adds nothing; one that a load left unfinished is completed (its results
 * already there are duplicates, which the API counts and ignores).
 */
import type { CallOptions, StartedRun, VerdictClient } from '../client';
import type { DemoRun } from './history';

export interface DemoLoadProgress {
  /** Runs handled so far, this one included. */
  done: number;
  total: number;
  run: DemoRun;
  /** False when the run was there already, finished, and nothing was sent. */
  sent: boolean;
}

export interface DemoLoadOptions extends CallOptions {
  onProgress?: (progress: DemoLoadProgress) => void;
}

export interface DemoLoadSummary {
  /** Runs this load created. */
  created: number;
  /** Runs found already finished and left alone. */
  skipped: number;
  /** Results the API recorded (not counting duplicates). */
  accepted: number;
}

/** Starts or joins the run; null when a previous load finished it (the API answers 409 RUN_FINISHED). */
async function startUnlessFinished(
  client: VerdictClient,
  run: DemoRun,
  call: CallOptions,
): Promise<StartedRun | null> {
  try {
    const started = await client.startRun(run.start, call);
    return started.run.status === 'running' ? started : null;
  } catch (error) {
    // The error's code, not its class: this module is bundled apart from the client's error classes.
    if ((error as { code?: unknown } | null)?.code === 'RUN_FINISHED') return null;
    throw error;
  }
}

/**
 * Loads `runs` (oldest first) into the client's project, or `options.project`.
 *
 * @example await loadDemoRuns(verdict, demoHistory({ now: new Date() }).runs, { onProgress: ({ done, total }) => log(done, total) });
 */
export async function loadDemoRuns(
  client: VerdictClient,
  runs: readonly DemoRun[],
  options: DemoLoadOptions = {},
): Promise<DemoLoadSummary> {
  const { onProgress, ...call } = options;
  const summary: DemoLoadSummary = { created: 0, skipped: 0, accepted: 0 };
  for (const [index, run] of runs.entries()) {
    const started = await startUnlessFinished(client, run, call);
    const finished = started === null;
    if (started === null) {
      summary.skipped += 1;
    } else {
      if (started.created) summary.created += 1;
      const added = await client.addResults(started.run.id, run.results, call);
      summary.accepted += added.accepted;
      await client.finishRun(started.run.id, { finishedAt: run.finishedAt }, call);
    }
    onProgress?.({ done: index + 1, total: runs.length, run, sent: !finished });
  }
  return summary;
}
