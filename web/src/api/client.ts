/**
 * The app's one way to the API: `@verdict/client`, typed from the OpenAPI document, on the session cookie.
 * Writes carry the session's CSRF token (read from the session query), so a page of another site that makes
 * the browser send the cookie still cannot write.
 */
import {
  createVerdictClient,
  VerdictApiError,
  type DataOf,
  type JsonBody,
  type paths,
  type QueryOf,
} from '@verdict/client';

let csrfToken: string | null = null;

/** Called with each session answer: the token writes must echo. */
export function rememberCsrfToken(token: string | null): void {
  csrfToken = token;
}

export const verdict = createVerdictClient({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  headers: (): Record<string, string> => (csrfToken ? { 'X-CSRF-Token': csrfToken } : {}),
  // Spec §7's rule, kept short for a person waiting on a page: a 429 waits what Retry-After says.
  retry: { maxAttempts: 3, maxElapsedMs: 20_000 },
});

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The `data` of a GET operation's success envelope. */
export type Read<P extends keyof paths> = DataOf<Operation<P, 'get'>, 200>;
/** The query parameters of a GET operation. */
export type ReadQuery<P extends keyof paths> = QueryOf<Operation<P, 'get'>>;

/** The JSON body of a write, as the OpenAPI document types it. */
export type WriteBody<P extends keyof paths, M extends Exclude<Method, 'get'>> = JsonBody<Operation<P, M>>;

/** Whether an error is the API saying the session is gone (401): the app then asks to sign in again. */
export function isSignedOut(error: unknown): boolean {
  return error instanceof VerdictApiError && error.status === 401;
}

/** A sentence for a person from any error the client throws. */
export function describeError(error: unknown): { title: string; message: string; code: string | null } {
  if (error instanceof VerdictApiError) {
    const titles: Record<number, string> = {
      400: 'The request was refused',
      401: 'You are signed out',
      403: 'Not allowed',
      404: 'Not found',
      409: 'It changed meanwhile',
      429: 'Too many requests',
    };
    return {
      title: titles[error.status] ?? 'The server could not answer',
      message: error.message,
      code: error.code,
    };
  }
  return {
    title: 'Verdict cannot be reached',
    message: error instanceof Error ? error.message : String(error),
    code: null,
  };
}
