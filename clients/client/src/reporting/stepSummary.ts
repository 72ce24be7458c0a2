/**
 * The reporters' CI summary: when `$GITHUB_STEP_SUMMARY` names a file (GitHub Actions sets it for each
 * step), the run's summary (summary/markdown.ts) is appended to it once the run is finished. Bounded in
 * time and never throwing: the test run's verdict stands whatever happens here, and the caller prints the
 * one line this answers.
 */
import { appendFile } from 'node:fs/promises';
import { createVerdictClient, loadRunSummary, renderRunSummary, type VerdictClient } from '@verdict/client';
import type { SenderOutcome } from './sender';
import { REPORTER_RETRY, REPORTER_TIMEOUT_MS, type ReporterSettings } from './settings';

export interface StepSummaryOptions {
  client: VerdictClient;
  runId: string;
  /** The run's page in the web app. */
  runUrl: string;
  /** The file to append to. */
  file: string;
  /** The shard the reporter just finished, when the run is sharded. */
  ownShard?: number;
  /** The whole of it, reads and writing, gives up after this long (default 15 s). */
  timeoutMs?: number;
}

/**
 * The file a reporter appends its summary to: `$GITHUB_STEP_SUMMARY`, unless the option turns it off.
 *
 * @example const file = stepSummaryFile(options.githubSummary, process.env);
 */
export function stepSummaryFile(option: boolean | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (option === false) return undefined;
  const file = env.GITHUB_STEP_SUMMARY?.trim();
  return file ? file : undefined;
}

/**
 * Appends the run's summary to the file; answers the line to print. Never throws.
 *
 * @example log(await appendStepSummary({ client, runId, runUrl, file }));
 */
export async function appendStepSummary(options: StepSummaryOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`gave up after ${timeoutMs} ms`)), timeoutMs);
  try {
    const input = await loadRunSummary(options.client, options.runId, {
      runUrl: options.runUrl,
      // Most of the budget may go on waiting for the run to read back finished.
      settleMs: Math.max(0, timeoutMs - 3_000),
      ...(options.ownShard === undefined ? {} : { ownShard: options.ownShard }),
      signal: abort.signal,
    });
    await appendFile(options.file, `${renderRunSummary(input)}\n`, 'utf8');
    return `summary appended to ${options.file}`;
  } catch (error) {
    const reason = abort.signal.aborted
      ? String((abort.signal.reason as Error | undefined)?.message ?? 'timed out')
      : error instanceof Error
        ? error.message
        : String(error);
    return `summary not written to ${options.file}: ${reason}`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What a reporter does once its run is finished: appends the summary to `$GITHUB_STEP_SUMMARY` when that
 * is set and `githubSummary` is not false, and logs the one line of outcome. Never throws.
 *
 * @example await summarizeRun({ githubSummary: options.githubSummary, settings, outcome, userAgent: '@verdict/jest-reporter', log });
 */
export async function summarizeRun(options: {
  githubSummary: boolean | undefined;
  settings: ReporterSettings;
  outcome: SenderOutcome;
  /** The shard the reporter ran, when the run is sharded. */
  shard?: number;
  userAgent: string;
  log(line: string): void;
  env?: NodeJS.ProcessEnv;
}): Promise<void> {
  const { settings, outcome } = options;
  const file = stepSummaryFile(options.githubSummary, options.env ?? process.env);
  if (!file) return;
  if (!outcome.runId || !outcome.runUrl || !outcome.finished) {
    options.log(`summary not written to ${file}: the run was not finished in Verdict`);
    return;
  }
  try {
    const client = createVerdictClient({
      baseUrl: settings.baseUrl,
      token: settings.token,
      project: settings.project,
      retry: REPORTER_RETRY,
      timeoutMs: REPORTER_TIMEOUT_MS,
      userAgent: options.userAgent,
    });
    const shard = options.shard === undefined ? {} : { ownShard: options.shard };
    options.log(
      await appendStepSummary({ client, runId: outcome.runId, runUrl: outcome.runUrl, file, ...shard }),
    );
  } catch (error) {
    options.log(`summary not written to ${file}: ${(error as Error).message}`);
  }
}
