/**
 * What a call can fail with: the API answered with an error (`VerdictApiError`, carrying the envelope's
 * stable `code`), the API could not be reached or did not answer in time (`VerdictNetworkError`), or the
 * client was used wrongly (`VerdictConfigError`, e.g. no project to call). All are `VerdictError`s.
 */
export class VerdictError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A request that reached no answer; which one, and after how many attempts. */
export interface RequestDescription {
  method: string;
  url: string;
  /** Attempts made, the last included (1 when it was not retried). */
  attempts: number;
}

export interface ApiErrorDetails extends Partial<RequestDescription> {
  status: number;
  code: string;
  message: string;
  requestId?: string;
  /** The wait the server asked for (`Retry-After`), in milliseconds, when it named one. */
  retryAfterMs?: number;
  /** The parsed body (the error envelope, or the text of an answer that was not one). */
  body?: unknown;
}

/**
 * The API answered with an error. `code` is the envelope's `error.code` (spec §7: branch on it; it is
 * stable), `message` its `error.message`. An answer that is not an envelope (a proxy's 502 page) gets the
 * code `HTTP_<status>` and the start of its text as the message.
 */
export class VerdictApiError extends VerdictError {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly attempts: number | undefined;
  readonly body: unknown;

  constructor(details: ApiErrorDetails) {
    super(details.message);
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
    this.retryAfterMs = details.retryAfterMs;
    this.method = details.method;
    this.url = details.url;
    this.attempts = details.attempts;
    this.body = details.body;
  }

  override toString(): string {
    return `${this.name}: ${this.status} ${this.code}: ${this.message}`;
  }
}

/**
 * No answer: the connection failed (refused, reset, DNS) or an attempt ran past `timeoutMs`. The
 * underlying error is the `cause`.
 */
export class VerdictNetworkError extends VerdictError {
  readonly reason: 'network' | 'timeout';
  readonly method: string;
  readonly url: string;
  readonly attempts: number;

  constructor(reason: 'network' | 'timeout', request: RequestDescription, cause: unknown) {
    const what = reason === 'timeout' ? 'timed out' : `failed (${describeCause(cause)})`;
    const tries = request.attempts > 1 ? ` after ${request.attempts} attempts` : '';
    super(`${request.method} ${request.url} ${what}${tries}`, { cause });
    this.reason = reason;
    this.method = request.method;
    this.url = request.url;
    this.attempts = request.attempts;
  }
}

/** The client was asked for something its options cannot give (no project, a base URL that is no URL). */
export class VerdictConfigError extends VerdictError {}

/** The most telling part of a fetch failure: undici hides the system error (ECONNREFUSED…) in `cause`. */
function describeCause(cause: unknown): string {
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof inner?.code === 'string') return inner.code;
  if (typeof inner?.message === 'string') return inner.message;
  return cause instanceof Error ? cause.message : String(cause);
}

/** The system error code of a failed fetch (`ECONNREFUSED`), when the runtime tells it. */
export function systemErrorCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
