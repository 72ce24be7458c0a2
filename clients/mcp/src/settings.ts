import type { VerdictClientOptions } from '@verdict/client';
import { VERSION } from './generated/version';

/**
 * How the MCP server's client calls Verdict. An agent waits on each tool call, so a retry is brief: a
 * failure to get an answer or a 5xx is retried for at most 5 s, and a 429 whose Retry-After is longer
 * comes back at once as a tool error that says when to try again, rather than holding the call a minute.
 */
export const MCP_CLIENT_SETTINGS = {
  retry: { maxAttempts: 3, maxElapsedMs: 5_000 },
  timeoutMs: 30_000,
  userAgent: `@verdict/mcp/${VERSION}`,
} satisfies Partial<VerdictClientOptions>;
