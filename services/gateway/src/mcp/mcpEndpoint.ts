import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router, type Request } from 'express';
import { newSecret, type RateLimiter } from '@verdict/platform';
import { limitByIp } from '../access/rateLimits';

/**
 * `/mcp`: the MCP server (`@verdict/mcp`) over Streamable HTTP, in the gateway. Its tools call this very
 * gateway's public API over loopback with the caller's own token, so the access chain judges every call
 * as it judges any client's: scopes, role, revocation and the per-token rate limits cannot drift from the
 * API's. The MCP request itself draws on its address's per-IP bucket; the calls its tools make carry a
 * relay mark (a secret of this process, never sent anywhere else) so that they are not counted against
 * the loopback address a second time, which would make every MCP user of the gateway share one bucket.
 */

/** What the gateway gives the MCP server: where its tools reach this gateway, and what they send. */
export interface McpEndpointHooks {
  verdictUrl(req: IncomingMessage): string;
  headers(req: IncomingMessage): Record<string, string>;
}

/** Builds the handler of one MCP request from the hooks (`createMcpHttpHandler` of `@verdict/mcp`). */
export type McpEndpoint = (
  hooks: McpEndpointHooks,
) => (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export const MCP_PATH = '/mcp';
const RELAY_HEADER = 'x-verdict-relay';

/** Marks the API calls the MCP tools make through this gateway, and recognises them. */
export interface McpRelay {
  header: Record<string, string>;
  /** True for a request this process made for an MCP request (the mark is then removed from it). */
  isRelayed(req: Request): boolean;
}

export function createMcpRelay(): McpRelay {
  const secret = newSecret(32);
  const expected = Buffer.from(secret);
  return {
    header: { [RELAY_HEADER]: secret },
    isRelayed(req) {
      const offered = req.headers[RELAY_HEADER];
      if (typeof offered !== 'string') return false;
      delete req.headers[RELAY_HEADER];
      const given = Buffer.from(offered);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

/**
 * The address this gateway was reached on, from the connection itself: the tools' calls go back to this
 * very process (no proxy in between, whatever VERDICT_PUBLIC_URL says).
 */
export function selfUrl(req: IncomingMessage): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${req.socket.localPort}`;
}

/**
 * The `/mcp` route: the per-IP limit, then the MCP handler.
 *
 * @example app.use(mcpRouter({ endpoint: createMcpHttpHandler, relay, rateLimiter }));
 */
export function mcpRouter(options: {
  endpoint: McpEndpoint;
  relay: McpRelay;
  rateLimiter: RateLimiter;
}): Router {
  const handle = options.endpoint({
    verdictUrl: selfUrl,
    headers: (req) => {
      const requestId = (req as Request).requestId;
      return { ...options.relay.header, ...(requestId ? { 'x-request-id': requestId } : {}) };
    },
  });
  const router = Router();
  router.all(MCP_PATH, limitByIp({ rateLimiter: options.rateLimiter }), async (req, res, next) => {
    res.locals.routeLabel = MCP_PATH;
    try {
      await handle(req, res);
    } catch (error) {
      if (res.headersSent) res.destroy(error as Error);
      else next(error);
    }
  });
  return router;
}
