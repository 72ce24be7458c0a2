/**
 * The reporters' CI summary: when `$GITHUB_STEP_SUMMARY` names a file (GitHub Actions sets it for each
 * step), the run's summary (summary/markdown.ts) is appended to it once the run is finished. Bounded in
 * time and never throwing: the test run's verdict stands whatever happens here, and the caller prints the
 * one line this answers.
 */
import { appendFile } from 'node:fs/promises';
import { loadRunSummary, renderRunSummary, type VerdictClient } from '@verdict/client';

export interface StepSummaryOptions {
  client: VerdictClient;
  runId: string;
  /** The run's page in the web app. */
  runUrl: string;
  /** The file to append to. */
  file: string;
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
