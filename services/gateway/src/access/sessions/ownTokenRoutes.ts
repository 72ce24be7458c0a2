import express, { Router, type Response } from 'express';
import {
  IssueOwnTokenRequest,
  OWN_TOKEN_DEFAULT_DAYS,
  OWN_TOKEN_MAX_DAYS,
  OwnTokenPath,
  OwnTokensQuery,
  paginationOf,
  type AdminTokenRecord,
  type IssuedToken,
  type OwnToken,
} from '@verdict/contracts';
import {
  ForbiddenError,
  NotFoundError,
  parseBody,
  parseParams,
  parseQuery,
  sendData,
  sendList,
  ValidationError,
  type Clock,
  type KeyValue,
} from '@verdict/platform';
import type { IdentityCommands } from '../../identity/commands';
import { scopesOf, type IdentityDirectory } from '../../identity/directory';
import type { Accounts } from '../../identity/module';
import { readUsage, type Principal } from '../authenticate';
import { principalOf } from '../authorize';

/**
 * A signed-in person's own tokens (docs/web.md "Your tokens"), under each API prefix after the access
 * chain:
 *
 * - `GET /session/tokens` lists the person's personal tokens, with a session or a bearer token.
 * - `POST /session/tokens` and `DELETE /session/tokens/{tokenId}` need a web session: a bearer token that
 *   leaked could otherwise mint itself successors that outlive its revocation.
 *
 * A token issued here cannot reach more than the session does: its projects are among the session's,
 * its scope is `public-api`, and it acts with its owner's membership role at each request (a viewer's
 * token reads only). Another person's token is answered as missing (404), never as forbidden, so that
 * ids do not tell whose they are.
 */

export interface OwnTokensOptions {
  directory: IdentityDirectory;
  accounts: Accounts;
  commands: IdentityCommands;
  kv: KeyValue;
  clock: Clock;
}

const DAY_MS = 86_400_000;
/** A name, an expiry and up to 100 project ids. */
const OWN_TOKEN_BODY_LIMIT = '16kb';

function requireSession(principal: Principal, doing: string): void {
  if (principal.session === undefined) {
    throw new ForbiddenError(
      `${doing} needs a signed-in web session: a bearer token cannot issue or revoke tokens`,
    );
  }
}

/** The expiry asked for, within (now, now + the maximum]; the default when none was asked for. */
export function ownTokenExpiry(requested: string | undefined, now: Date): string {
  if (requested === undefined) return new Date(now.getTime() + OWN_TOKEN_DEFAULT_DAYS * DAY_MS).toISOString();
  const at = Date.parse(requested);
  if (at <= now.getTime()) throw new ValidationError('expiresAt: must be in the future');
  if (at > now.getTime() + OWN_TOKEN_MAX_DAYS * DAY_MS) {
    throw new ValidationError(`expiresAt: must be at most ${OWN_TOKEN_MAX_DAYS} days from now`);
  }
  return requested;
}

/** The projects asked for, each one the session reaches; all of them when none were named. */
export function ownTokenProjects(requested: string[] | undefined, reachable: readonly string[]): string[] {
  if (requested === undefined) return [...reachable];
  requested.forEach((projectId, index) => {
    if (!reachable.includes(projectId)) {
      throw new ValidationError(
        `projectIds[${index}]: project ${projectId} is not one this session reaches; a token cannot reach more than you do`,
      );
    }
  });
  return requested;
}

async function listed(
  record: AdminTokenRecord,
  currentTokenId: string,
  { directory, kv }: Pick<OwnTokensOptions, 'directory' | 'kv'>,
): Promise<OwnToken> {
  const [scopes, usage] = await Promise.all([scopesOf(directory, record), readUsage(kv, record.id)]);
  return {
    id: record.id,
    name: record.name,
    scopes,
    projectIds: record.projectIds,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    revokedAt: record.revokedAt,
    lastUsed: usage.lastUsed,
    usageCount: usage.usageCount,
    current: record.id === currentTokenId,
  };
}

function noStore(res: Response): void {
  // The cleartext token is in this body and nowhere else: no cache may keep it.
  res.set('Cache-Control', 'no-store');
}

/**
 * The own-token routes; mount them under each API prefix after the access chain.
 *
 * @example api.use(accessChain); api.use(createOwnTokensRouter({ directory, accounts, commands, kv, clock }));
 */
export function createOwnTokensRouter(options: OwnTokensOptions): Router {
  const { directory, accounts, commands, clock } = options;
  const router = Router();

  router.get('/session/tokens', async (req, res) => {
    const { page, limit } = parseQuery(OwnTokensQuery, req);
    const { token } = principalOf(res);
    const { items, total } = await accounts.personalTokens(token.ownerUserId, page, limit);
    const tokens = await Promise.all(items.map((item) => listed(item, token.id, options)));
    sendList(res, tokens, paginationOf(page, limit, total));
  });

  router.post('/session/tokens', express.json({ limit: OWN_TOKEN_BODY_LIMIT }), async (req, res) => {
    const principal = principalOf(res);
    requireSession(principal, 'Issuing a token');
    const body = parseBody(IssueOwnTokenRequest, req);
    const { token } = principal;
    const issued: IssuedToken = await commands.issueToken(
      {
        kind: 'personal',
        userId: token.ownerUserId,
        name: body.name,
        projectIds: ownTokenProjects(body.projectIds, token.projectIds),
        expiresAt: ownTokenExpiry(body.expiresAt, clock.now()),
      },
      { correlationId: req.requestId },
    );
    noStore(res);
    sendData(res, issued, 201);
  });

  router.delete('/session/tokens/:tokenId', async (req, res) => {
    const principal = principalOf(res);
    requireSession(principal, 'Revoking a token');
    const { tokenId } = parseParams(OwnTokenPath, req);
    const record = await directory.findToken(tokenId);
    if (record === null || record.kind !== 'personal' || record.ownerUserId !== principal.token.ownerUserId) {
      throw new NotFoundError(`No token of yours has the id ${tokenId}`);
    }
    sendData(res, await commands.revokeToken(tokenId, { correlationId: req.requestId }));
  });

  return router;
}
