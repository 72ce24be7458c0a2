/**
 * Sends one run's results from inside a test runner without ever holding the runner up: results are
 * queued and sent in the background in batches (by count and by time), each result's files uploaded
 * first (streamed from disk) so the result names them. The first refusal or failure to reach Verdict
 * (down, slow, 401, 403, 404, 429 past its retries) is told once, with its reason, and from then on
 * everything goes to the spool (spool.ts) instead: the test run goes on, and `verdict replay` sends it
 * later with the same identities. `finish` waits for what is in flight for a bounded time only.
 */
import { VerdictApiError, VerdictConfigError, VerdictNetworkError } from '@verdict/client';
import type { VerdictClient } from '@verdict/client';
import type { CoverageBody, FinishRunBody, ResultItem, StartRunBody } from '@verdict/client';
import { resultRefOf } from './resultItems';
import { runPageUrl } from './settings';
import { spoolWriter, type PendingFile, type SpoolWriter } from './spool';

export interface RunSenderOptions {
  client: VerdictClient;
  /** The server's address as configured, for the run's page. */
  baseUrl: string;
  project: string;
  /** The run's start; its ciRunId is what a replay joins again. */
  start: StartRunBody & { ciRunId: string };
  batchSize: number;
  flushIntervalMs: number;
  spoolDir: string;
  /** Told apart in the spool's name (a shard's number). */
  spoolLabel?: string;
  /** One line for the user (the reporter prefixes it). */
  log(line: string): void;
  /** Files uploaded at once (default 4). */
  uploadConcurrency?: number;
}

export interface SenderOutcome {
  runId: string | undefined;
  /** The web app's page of the run. */
  runUrl: string | undefined;
  /** Results Verdict recorded now, and those it had already. */
  accepted: number;
  duplicates: number;
  /** Files uploaded. */
  uploaded: number;
  /** What went to the spool, and where. */
  spooled: number;
  spoolFile: string | undefined;
  /** Why sending stopped, when it did. */
  failure: string | undefined;
  /** True when the finish itself reached Verdict. */
  finished: boolean;
}

export interface RunSender {
  /** Queues one result (one attempt) with the files to attach to it. Never throws, never waits. */
  add(item: ResultItem, files?: readonly PendingFile[]): void;
  /** Queues the run's coverage, sent after the results. */
  addCoverage(coverage: CoverageBody): void;
  /**
   * Sends what is queued, then finishes the run (or this shard of it); gives up after `timeoutMs` and
   * spools whatever is not confirmed by then.
   */
  finish(body: FinishRunBody, timeoutMs: number): Promise<SenderOutcome>;
}

interface Queued {
  item: ResultItem;
  files: readonly PendingFile[];
}

/** Why sending stops: one sentence for the user, with what Verdict said. */
export function failureReason(error: unknown, baseUrl: string): string {
  if (error instanceof VerdictApiError) {
    const what =
      error.status === 401
        ? 'refused the token (401)'
        : error.status === 403
          ? 'refused access to the project (403)'
          : error.status === 404
            ? 'does not know the project or run (404)'
            : error.status === 429
              ? 'kept answering 429 (rate limited)'
              : `answered ${error.status} ${error.code}`;
    return `Verdict at ${baseUrl} ${what}: ${error.message}`;
  }
  if (error instanceof VerdictNetworkError) {
    return error.reason === 'timeout'
      ? `Verdict at ${baseUrl} did not answer in time`
      : `Verdict at ${baseUrl} is unreachable (${error.message.replace(/^.* failed \((.*)\).*$/, '$1')})`;
  }
  return `sending to Verdict failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** A file that cannot be sent (gone, too large, refused as it is): that attachment is left out, not the run. */
function isFileProblem(error: unknown): boolean {
  if (error instanceof VerdictApiError) return error.status === 413 || error.status === 400;
  if (error instanceof VerdictConfigError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && ['ENOENT', 'EISDIR', 'EACCES', 'EPERM'].includes(code);
}

/** Runs `work` over `items`, at most `limit` at once, in order of the answers. */
async function eachLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>) {
  const answers: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      answers[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return answers;
}

class Stopped extends Error {}

/**
 * A sender for one run (or one shard of it); it starts the run at once, in the background.
 *
 * @example const sender = createRunSender({ client, baseUrl, project, start, batchSize: 200, flushIntervalMs: 1000, spoolDir, log });
 */
export function createRunSender(options: RunSenderOptions): RunSender {
  const { client, log } = options;
  const concurrency = options.uploadConcurrency ?? 4;
  const abort = new AbortController();
  const call = { signal: abort.signal };
  const outcome: SenderOutcome = {
    runId: undefined,
    runUrl: undefined,
    accepted: 0,
    duplicates: 0,
    uploaded: 0,
    spooled: 0,
    spoolFile: undefined,
    failure: undefined,
    finished: false,
  };
  let spool: SpoolWriter | undefined;
  const spoolOf = () =>
    (spool ??= spoolWriter({
      dir: options.spoolDir,
      header: { verdictSpool: 1, baseUrl: options.baseUrl, project: options.project, start: options.start },
      label: options.spoolLabel,
    }));
  const toldFiles = new Set<string>();
  /** Set when the end of the run stopped waiting: the reason told for what is still in flight. */
  let gaveUpAfterMs: number | undefined;

  /** The first failure stops sending; it is told once, with where the rest goes. */
  function stop(error: unknown) {
    if (outcome.failure !== undefined) return;
    outcome.failure =
      gaveUpAfterMs !== undefined
        ? `Verdict at ${options.baseUrl} did not take everything within ${gaveUpAfterMs} ms of the end of the tests`
        : failureReason(error, options.baseUrl);
    const file = spoolOf().file;
    outcome.spoolFile = file;
    log(
      `${outcome.failure}. The tests go on; what is not sent is kept in ${file} (send it later: npx @verdict/cli replay ${file})`,
    );
  }

  const started: Promise<string | undefined> = client.startRun(options.start, call).then(
    ({ run }) => {
      outcome.runId = run.id;
      outcome.runUrl = runPageUrl(options.baseUrl, options.project, run.id);
      return run.id;
    },
    (error: unknown) => {
      stop(error);
      return undefined;
    },
  );

  async function spoolResults(batch: readonly Queued[]) {
    for (const { item, files } of batch) {
      await spoolOf()
        .writeResult(item, files)
        .catch((error: unknown) => {
          log(`could not write the spool ${spoolOf().file}: ${String(error)}`);
        });
      outcome.spooled += 1;
    }
  }

  async function upload(runId: string, item: ResultItem, file: PendingFile) {
    const source = file.path !== undefined ? { path: file.path } : { data: file.body ?? new Uint8Array() };
    try {
      const artifact = await client.uploadArtifact(
        runId,
        { ...source, name: file.name, contentType: file.contentType, resultRef: resultRefOf(item) },
        call,
      );
      outcome.uploaded += 1;
      return { name: file.name, contentType: file.contentType, artifactId: artifact.id };
    } catch (error) {
      if (!isFileProblem(error)) throw error;
      const told = `${file.name}:${(error as { code?: string }).code ?? ''}`;
      if (!toldFiles.has(told)) {
        toldFiles.add(told);
        log(`attachment "${file.name}" of ${resultRefOf(item)} left out: ${(error as Error).message}`);
      }
      return undefined;
    }
  }

  async function sendBatch(batch: readonly Queued[]) {
    const runId = outcome.failure === undefined ? await started : undefined;
    if (runId === undefined || outcome.failure !== undefined) return spoolResults(batch);
    let items: ResultItem[];
    try {
      items = await eachLimited(batch, Math.max(1, Math.ceil(concurrency / 2)), async ({ item, files }) => {
        if (files.length === 0) return item;
        const linked = await eachLimited(files, concurrency, (file) => upload(runId, item, file));
        const attachments = [...(item.attachments ?? []), ...linked.filter((a) => a !== undefined)];
        return attachments.length > 0 ? { ...item, attachments } : item;
      });
      const recorded = await client.addResults(runId, items, call);
      outcome.accepted += recorded.accepted;
      outcome.duplicates += recorded.duplicates;
    } catch (error) {
      stop(error);
      // Their files go along: an upload that did land is found again by its content on replay.
      await spoolResults(batch);
    }
  }

  let queue: Queued[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Batches are sent one after another, in the order they were queued. */
  let chain: Promise<void> = Promise.resolve();

  function flush() {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    chain = chain.then(() => sendBatch(batch)).catch(() => undefined);
  }

  const later = (work: () => Promise<void>) => {
    chain = chain.then(work).catch(() => undefined);
  };

  return {
    add(item, files = []) {
      queue.push({ item, files });
      if (queue.length >= options.batchSize) flush();
      else if (!timer) {
        timer = setTimeout(flush, options.flushIntervalMs);
        // A pending flush never keeps the runner's process alive on its own.
        timer.unref?.();
      }
    },

    addCoverage(coverage) {
      flush();
      later(async () => {
        const runId = outcome.failure === undefined ? await started : undefined;
        if (runId !== undefined && outcome.failure === undefined) {
          try {
            await client.addCoverage(runId, coverage, call);
            return;
          } catch (error) {
            stop(error);
          }
        }
        await spoolOf()
          .writeCoverage(coverage)
          .catch(() => undefined);
        outcome.spooled += 1;
      });
    },

    async finish(body, timeoutMs) {
      flush();
      const finishing = chain.then(async () => {
        const runId = outcome.failure === undefined ? await started : undefined;
        if (runId !== undefined && outcome.failure === undefined) {
          try {
            await client.finishRun(runId, body, call);
            outcome.finished = true;
            return;
          } catch (error) {
            stop(error);
          }
        }
        await spoolOf()
          .writeFinish(body)
          .catch(() => undefined);
      });
      let timeout: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<'expired'>((resolve) => {
        timeout = setTimeout(() => resolve('expired'), timeoutMs);
      });
      const ended = await Promise.race([finishing.then(() => 'done' as const), expired]);
      clearTimeout(timeout);
      if (ended === 'expired') {
        // Every call in flight rejects now; its results (and the finish) go to the spool as they unwind.
        gaveUpAfterMs = timeoutMs;
        abort.abort(new Stopped('the end of the run did not wait any longer'));
        await finishing.catch(() => undefined);
      }
      return { ...outcome };
    },
  };
}
