/**
 * A small typed client of the administration API (`/admin/v1`: organizations, projects, users,
 * memberships, tokens), opened by the server's admin key. Same transport and retry rule as the public
 * client: creations (POST) are retried only when the server provably did nothing (429, refused connection).
 */
import createClient, { type Client } from 'openapi-fetch';
import { apiBases } from './baseUrl';
import { userAgentHeader } from './userAgent';
import { retryPolicy, type RetryOptions } from './retry';
import { createTransport, type FetchLike } from './transport';
import type { AdminPaths } from './types';

export interface VerdictAdminClientOptions {
  /** The server, as for createVerdictClient (`http://localhost:8080`). */
  baseUrl: string;
  /** VERDICT_ADMIN_KEY. */
  adminKey: string;
  fetch?: FetchLike;
  retry?: RetryOptions | false;
  /** Milliseconds an attempt may wait for the answer's headers (default 60000; 0: no limit). */
  timeoutMs?: number;
  userAgent?: string;
}

export interface VerdictAdminClient {
  /** The typed client of every admin operation; paths relative to `/admin/v1` (`/organizations`…). */
  readonly api: Client<AdminPaths>;
  readonly adminBaseUrl: string;
}

/**
 * @example const admin = createVerdictAdminClient({ baseUrl, adminKey }); const { data } = await admin.api.GET('/organizations');
 */
export function createVerdictAdminClient(options: VerdictAdminClientOptions): VerdictAdminClient {
  const { admin } = apiBases(options.baseUrl);
  const adminBaseUrl = admin.href.replace(/\/+$/, '');
  const transport = createTransport({
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    retry: retryPolicy(options.retry),
    timeoutMs: options.timeoutMs ?? 60_000,
    apiBase: admin,
  });
  const api = createClient<AdminPaths>({
    baseUrl: adminBaseUrl,
    fetch: (request: Request) => transport.fetch(request),
    headers: {
      authorization: `Bearer ${options.adminKey}`,
      ...userAgentHeader(options.userAgent),
    },
  });
  return { api, adminBaseUrl };
}
