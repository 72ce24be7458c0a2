/**
 * Sends requests with spec §7's retry rule (retry.ts) limited to what is safe to replay (replay.ts).
 * Each attempt sends a fresh body: a copy of a buffered one, or one built again (a file re-opened), so a
 * body is never half-consumed by the attempt before. Errors: a caller's abort is rethrown as it came;
 * no answer at all becomes a VerdictNetworkError; any answer, even a last 5xx, is returned to the caller.
 */
import { systemErrorCode, VerdictNetworkError } from './errors';
import { mayRetryFailure, mayRetryStatus, replayOf, replayRule, type Replay } from './replay';
import { delayBeforeRetry, type RetryPolicy } from './retry';

export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  fetch: FetchLike;
  retry: RetryPolicy;
  /** Milliseconds an attempt may wait for the answer's status and headers; 0 or undefined: no limit. */
  timeoutMs: number | undefined;
  /** The API base the request paths are relative to, for telling which requests are safe to replay. */
  apiBase: URL;
}

/** One attempt's request, built afresh for each attempt. */
export interface AttemptRequest {
  url: string;
  init: RequestInit;
}

export interface Transport {
  /** A fetch (for openapi-fetch) that retries each request by its method, path and body. */
  fetch: FetchLike;
  /** Sends a request built for each attempt (a streamed body), retried as `replay` allows. */
  send(
    build: () => AttemptRequest | Promise<AttemptRequest>,
    replay: Replay,
    signal?: AbortSignal,
  ): Promise<Response>;
  /** How many attempts an answer took (1 when it was not retried). */
  attemptsOf(response: Response): number;
}

interface AttemptSignal {
  signal: AbortSignal;
  timedOut(): boolean;
  /** Stops the attempt's timer and its link to the caller's signal (the answer's headers are in). */
  settle(): void;
}

/** The signal of one attempt: the caller's abort, and the attempt's own timeout. */
function attemptSignal(caller: AbortSignal | undefined, timeoutMs: number | undefined): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onAbort();
  else caller?.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeoutMs && timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new Error(`no answer within ${timeoutMs} ms`));
        }, timeoutMs)
      : undefined;
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    // A reporter may pass one signal to thousands of calls: each attempt lets go of it once answered.
    settle: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}

/** The path of a URL relative to the API base (`/{projectId}/test-runs`), or its whole path elsewhere. */
function apiPathOf(url: string, base: URL): string {
  const { pathname } = new URL(url);
  const prefix = base.pathname.replace(/\/+$/, '');
  return pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : pathname;
}

async function jsonBodyOf(request: Request): Promise<unknown> {
  try {
    return JSON.parse(await request.clone().text()) as unknown;
  } catch {
    return undefined;
  }
}

/** A request that could not be built (its file is gone): the builder's error, never retried. */
class NotBuilt {
  constructor(readonly error: unknown) {}
}

/** Lets a retried answer's connection go back to the pool without reading what nobody will read. */
async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // The body was already gone: nothing to free.
  }
}

export function createTransport(options: TransportOptions): Transport {
  const { retry: policy } = options;
  const attempts = new WeakMap<Response, number>();

  async function attemptLoop(
    describe: { method: string; url: string },
    replay: Replay,
    caller: AbortSignal | undefined,
    sendOnce: (signal: AbortSignal) => Promise<Response>,
  ): Promise<Response> {
    const started = policy.now();
    for (let attempt = 1; ; attempt += 1) {
      const current = attemptSignal(caller, options.timeoutMs);
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await sendOnce(current.signal);
      } catch (error) {
        failure = error;
      } finally {
        current.settle();
      }
      if (failure instanceof NotBuilt) throw failure.error;
      if (caller?.aborted) {
        if (response) await discard(response);
        throw caller.reason;
      }
      let delayMs: number;
      if (response) {
        attempts.set(response, attempt);
        if (attempt >= policy.maxAttempts || !mayRetryStatus(replay, response.status)) return response;
        delayMs = delayBeforeRetry(attempt, { retryAfter: response.headers.get('retry-after') }, policy);
        if (policy.now() - started + delayMs > policy.maxElapsedMs) return response;
      } else {
        const reason = current.timedOut() ? 'timeout' : 'network';
        // A timed-out attempt may have reached the server: only a request safe to replay is sent again.
        const code = reason === 'timeout' ? undefined : systemErrorCode(failure);
        const giveUp = () => new VerdictNetworkError(reason, { ...describe, attempts: attempt }, failure);
        if (attempt >= policy.maxAttempts || !mayRetryFailure(replay, code)) throw giveUp();
        delayMs = delayBeforeRetry(attempt, undefined, policy);
        if (policy.now() - started + delayMs > policy.maxElapsedMs) throw giveUp();
      }
      policy.onRetry?.({
        ...describe,
        attempt,
        delayMs,
        status: response?.status,
        error: failure,
      });
      if (response) await discard(response);
      await policy.sleep(delayMs, caller);
    }
  }

  return {
    async fetch(input, init) {
      const request = new Request(input, init);
      const rule = replayRule(request.method, apiPathOf(request.url, options.apiBase));
      const replay = rule === 'safeWithCiRunId' ? replayOf(rule, await jsonBodyOf(request)) : rule;
      return attemptLoop({ method: request.method, url: request.url }, replay, request.signal, (signal) =>
        options.fetch(new Request(request.clone(), { signal })),
      );
    },
    async send(build, replay, signal) {
      const first = await build();
      let pending: AttemptRequest | undefined = first;
      const method = (first.init.method ?? 'GET').toUpperCase();
      return attemptLoop({ method, url: first.url }, replay, signal, async (attemptSignal) => {
        let next = pending;
        pending = undefined;
        try {
          next ??= await build();
        } catch (error) {
          throw new NotBuilt(error);
        }
        const { url, init } = next;
        return options.fetch(url, { ...init, signal: attemptSignal });
      });
    },
    attemptsOf: (response) => attempts.get(response) ?? 1,
  };
}
