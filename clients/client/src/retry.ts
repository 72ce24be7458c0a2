/**
 * Spec §7's retry rule as pure functions: which answers are worth another attempt, and how long to wait
 * before it. Only 429 and 5xx (and failures to get any answer) are retried; 400, 401, 403, 404 and every
 * other 4xx never are. The n-th retry waits a random time between half and all of min(30 s, 1 s × 2^(n−1))
 * ("equal jitter": growing from the 1 s start, never above the 30 s cap, never two clients in lockstep),
 * unless the answer named its own wait in `Retry-After`, which is honoured as given.
 */

export interface RetryOptions {
  /** Attempts in all, the first included (1: never retry). Default 5. */
  maxAttempts?: number;
  /**
   * Milliseconds from the first attempt after which no retry starts: a wait that would end past it is not
   * begun, and the last answer (or error) is returned at once. Default 120000 (2 minutes).
   */
  maxElapsedMs?: number;
  /** The first retry's nominal wait. Default 1000 (spec §7). */
  baseDelayMs?: number;
  /** The longest nominal wait. Default 30000 (spec §7). */
  maxDelayMs?: number;
  /** Called before each wait, e.g. to log it once. */
  onRetry?: (event: RetryEvent) => void;
  /** How to wait (default: a timer); tests inject their own. Must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The jitter's source of randomness in [0, 1) (default Math.random). */
  random?: () => number;
  /** The clock the elapsed time is read from (default Date.now). */
  now?: () => number;
}

export interface RetryEvent {
  method: string;
  url: string;
  /** The attempt that failed (1-based); the next one is `attempt + 1`. */
  attempt: number;
  /** The wait before the next attempt. */
  delayMs: number;
  /** The answer's status, or `undefined` when there was no answer (`error` says why). */
  status: number | undefined;
  error: unknown;
}

export type RetryPolicy = Required<Omit<RetryOptions, 'onRetry'>> & Pick<RetryOptions, 'onRetry'>;

export const DEFAULT_RETRY = {
  maxAttempts: 5,
  maxElapsedMs: 120_000,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
} as const;

/** A sleep that a signal cuts short (rejecting with the signal's reason). */
export function timerSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The options with their defaults; `false` is a policy of one attempt. */
export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  const given = options === false ? { maxAttempts: 1 } : (options ?? {});
  const policy: RetryPolicy = {
    maxAttempts: given.maxAttempts ?? DEFAULT_RETRY.maxAttempts,
    maxElapsedMs: given.maxElapsedMs ?? DEFAULT_RETRY.maxElapsedMs,
    baseDelayMs: given.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: given.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
    sleep: given.sleep ?? timerSleep,
    random: given.random ?? Math.random,
    now: given.now ?? Date.now,
    ...(given.onRetry ? { onRetry: given.onRetry } : {}),
  };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError(`retry.maxAttempts must be an integer of at least 1, not ${policy.maxAttempts}`);
  }
  for (const key of ['maxElapsedMs', 'baseDelayMs', 'maxDelayMs'] as const) {
    if (!(policy[key] >= 0)) throw new RangeError(`retry.${key} must be a number of at least 0`);
  }
  return policy;
}

/** Spec §7: 429 and 5xx may succeed later; any other answer will not change by asking again. */
export function isRetriableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** The n-th retry's wait (n from 1): equal jitter over min(cap, base × 2^(n−1)). */
export function backoffDelay(
  retry: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'random'>,
) {
  const nominal = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.round(nominal / 2 + policy.random() * (nominal / 2));
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds: delay-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`, counted from `now`; a date already past is no wait). `undefined`
 * when the header is absent or unreadable.
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  if (header === null || header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date) || !/[a-z]/i.test(value)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` after an answer (`status`, `Retry-After`) or a failure to get
 * one: the server's wait when it named one, the backoff otherwise.
 */
export function delayBeforeRetry(
  retry: number,
  answer: { retryAfter?: string | null } | undefined,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'random' | 'now'>,
): number {
  return retryAfterMs(answer?.retryAfter, policy.now()) ?? backoffDelay(retry, policy);
}
