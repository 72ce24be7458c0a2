import { Router } from 'express';
import { tokenInfoRoutes } from '@verdict/contracts';
import { bindRoutes, registerRoutes, ServiceUnavailableError } from '@verdict/platform';
import { scopesOf, type IdentityDirectory, type Role } from '../identity/directory';
import { principalOf } from './authorize';
import { RATE_LIMITS } from './rateLimits';

/**
 * GET /{projectId}/token-info (spec §4.1, §2): what the calling token is and may reach.
 *
 * - `scopes` is the source of truth for project access (spec §2). One entry per project the token
 *   reaches, `organizations/<organizationId>/projects/<projectId>`, then the token's capability scopes
 *   as they are (such as `public-api`). A client can split an access entry on `/` to list its projects.
 * - `expiresAt` is a date-time, as spec §2 types it: tokens expire 365 days after issue unless the admin
 *   asked otherwise. Only a token issued by an earlier version with `expiresAt: null` never expires, and shows null.
 * - `usageCount` counts the token's authenticated requests, this one included; `lastUsed` is the time of
 *   the latest of them, which is this request (so it is always a date-time, as spec §2 types it).
 * - `rateLimit` is the per-token read limit of spec §8, the one this endpoint draws on.
 * - `role` (beyond the spec's fields) is the role the access checks apply to this token in this project's
 *   organization, so that a client can tell before trying whether its writes will be refused (the MCP
 *   server lists no write tools to a viewer's token).
 */

export interface TokenInfo {
  id: string;
  scopes: string[];
  projectName: string;
  expiresAt: string | null;
  createdAt: string;
  lastUsed: string;
  usageCount: number;
  rateLimit: { limit: number; window: string };
  role: Role;
}

export interface TokenInfoOptions {
  directory: IdentityDirectory;
}

/**
 * The token-info route; mount it under each API prefix after the access chain.
 *
 * @example app.use(prefix, createAccessChain(deps), createTokenInfoRouter({ directory }));
 */
export function createTokenInfoRouter({ directory }: TokenInfoOptions): Router {
  const router = Router();
  const routes = bindRoutes(
    tokenInfoRoutes,
    {
      'get /{projectId}/token-info': async (_input, { res, role }): Promise<TokenInfo> => {
        const { token, usage: counted } = principalOf(res);
        const usage = await counted;
        const project = res.locals.project;
        if (project === undefined) throw new Error('authorize() must run before token-info');
        // authenticate() could not count this request: report nothing rather than a wrong count.
        if (usage === null) throw new ServiceUnavailableError('Token usage is unavailable right now');
        return {
          id: token.id,
          scopes: await scopesOf(directory, token),
          projectName: project.name,
          expiresAt: token.expiresAt,
          createdAt: token.createdAt,
          lastUsed: usage.lastUsed,
          usageCount: usage.usageCount,
          rateLimit: { limit: RATE_LIMITS.read.limit, window: '1m' },
          role,
        };
      },
    },
    // The gateway authorizes the token itself (authorize()): the identity it forwards is this one.
    { identityOf: (res) => res.locals.access },
  );
  registerRoutes(router, routes);
  return router;
}
