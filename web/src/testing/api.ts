/**
 * A stand-in for the Verdict API in component tests: `fetch` answers from the test's handlers as the gateway
 * would (the success envelope; a list with one page's pagination), and every request is recorded, so a test
 * can say what the page sent. A request no handler takes answers 404. Stubbed for one test: Vitest restores
 * `fetch` after each (`unstubGlobals`).
 */
import { vi } from 'vitest';

const PUBLIC_PREFIX = '/api/public/v1';

export interface ApiRequest {
  method: string;
  /** The operation's path, without the API's prefix: `/p1/manual-runs/r1`. */
  path: string;
  query: URLSearchParams;
  body: unknown;
}

/** Answers a request with its `data`, or with `undefined` to leave it to the next handler (then 404). */
export type ApiHandler = (request: ApiRequest) => unknown;

/** Handlers by `METHOD /path` (`GET /session`, `PATCH /p1/manual-runs/r1/test-cases/rc1`). */
export function stubApi(handlers: Record<string, ApiHandler>) {
  const requests: ApiRequest[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const text = await request.text();
    const call: ApiRequest = {
      method: request.method,
      path: url.pathname.startsWith(PUBLIC_PREFIX) ? url.pathname.slice(PUBLIC_PREFIX.length) : url.pathname,
      query: url.searchParams,
      body: text ? JSON.parse(text) : undefined,
    };
    requests.push(call);
    const data = handlers[`${call.method} ${call.path}`]?.(call);
    if (data === undefined) {
      return Response.json(
        {
          success: false,
          error: { code: 'NOT_FOUND', message: `${call.method} ${call.path} is not stubbed` },
        },
        { status: 404 },
      );
    }
    const pagination = Array.isArray(data)
      ? { page: 1, limit: 100, total: data.length, totalPages: 1, hasNext: false, hasPrev: false }
      : undefined;
    return Response.json({ success: true, data, ...(pagination ? { pagination } : {}) });
  });
  /** The writes the page sent (every request but GET), in order. */
  const writes = () => requests.filter((request) => request.method !== 'GET');
  return { requests, writes };
}
