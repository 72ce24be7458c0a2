import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createVerdictClient, VerdictApiError, VerdictNetworkError, type FetchLike } from '@verdict/client';
import { readAccess } from './access';
import { describeFailure } from './errors';
import { createVerdictMcpServer } from './server';
import { MCP_CLIENT_SETTINGS } from './settings';

/**
 * MCP over Streamable HTTP, stateless: each POST is one exchange, answered as JSON, by a server built for
 * that request from the caller's bearer token. No session is kept, so any replica answers any request,
 * and a revoked token is refused on its very next request. The tools call the public API with the
 * caller's token, so every scope, role and rate-limit rule of the API applies to them as to any client.
 */

export interface McpHttpOptions {
  /** Where the tools reach Verdict for this request, e.g. `http://127.0.0.1:8080`. */
  verdictUrl: (req: IncomingMessage) => string;
  /** Headers every API call made for this request carries (added to the caller's token). */
  headers?: (req: IncomingMessage) => Record<string, string>;
  fetch?: FetchLike;
}

/** The header, or query parameter, naming the project of an MCP connection. */
export const PROJECT_HEADER = 'x-verdict-project';

const BEARER = /^Bearer +(\S+) *$/i;

function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ success: false, error: { code, message } }));
}

/** The project from `?project=` or the X-Verdict-Project header. */
function projectOf(req: IncomingMessage): string | null {
  const fromQuery = new URL(req.url ?? '/', 'http://verdict').searchParams.get('project');
  const fromHeader = req.headers[PROJECT_HEADER];
  const project = (fromQuery ?? (Array.isArray(fromHeader) ? fromHeader[0] : fromHeader) ?? '').trim();
  return project === '' ? null : project;
}

/**
 * The handler of `/mcp`: POST carries MCP messages; GET (a server-to-client stream) and DELETE (ending a
 * session) answer 405, as a stateless server may.
 *
 * @example app.all('/mcp', createMcpHttpHandler({ verdictUrl: () => 'http://127.0.0.1:8080' }));
 */
export function createMcpHttpHandler(
  options: McpHttpOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: {
            code: -32000,
            message: 'Method not allowed: this MCP server is stateless; send messages with POST',
          },
          id: null,
        }),
      );
      return;
    }
    const token = BEARER.exec((req.headers.authorization ?? '').trim())?.[1];
    if (token === undefined) {
      sendError(res, 401, 'UNAUTHORIZED', 'Send the Verdict token as "Authorization: Bearer <token>"', {
        'www-authenticate': 'Bearer realm="verdict"',
      });
      return;
    }
    const project = projectOf(req);
    if (project === null) {
      sendError(
        res,
        400,
        'VALIDATION_ERROR',
        `project: is required: add ?project=<projectId> to the MCP URL, or send the ${PROJECT_HEADER} header`,
      );
      return;
    }
    const verdict = createVerdictClient({
      ...MCP_CLIENT_SETTINGS,
      baseUrl: options.verdictUrl(req),
      token,
      project,
      ...(options.headers ? { headers: options.headers(req) } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    // Authenticates the request too: Verdict refuses a revoked token here, before any MCP message is read.
    const access = await readAccess(verdict).catch((error: unknown) => {
      refuse(res, error);
      return null;
    });
    if (access === null) return;
    const server = createVerdictMcpServer({ verdict, project, access });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
}

/** The API's refusal of the token, passed on as the API answered it (401, 403, 429 with Retry-After…). */
function refuse(res: ServerResponse, error: unknown): void {
  if (error instanceof VerdictApiError) {
    const headers: Record<string, string> = {};
    if (error.retryAfterMs !== undefined)
      headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1_000));
    if (error.status === 401) headers['www-authenticate'] = 'Bearer realm="verdict", error="invalid_token"';
    sendError(res, error.status, error.code, error.message, headers);
    return;
  }
  const unreachable = error instanceof VerdictNetworkError;
  sendError(
    res,
    unreachable ? 503 : 500,
    unreachable ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_ERROR',
    describeFailure(error),
  );
}
