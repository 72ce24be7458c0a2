import type { RequestHandler, Response } from 'express';
import { UnauthorizedError, type Clock, type KeyValue } from '@verdict/platform';
import type { IdentityDirectory, TokenRecord } from '../identity/directory';
import { parseToken, secretMatches } from '../identity/tokenFormat';

/**
 * Bearer-token authentication of the public API (spec §5). Every failure is the same 401 UNAUTHORIZED
 * code (spec §5.5, §7); the messages tell a client what to fix but say "invalid" alike for an unknown id
 * and a wrong secret. The token record is read from the directory on every request and never cached, so
 * a revocation is refused on the very next request of every replica (ARCHITECTURE.md, non-negotiables).
 *
 * Usage (token info, spec §2): each authenticated request adds one to the token's count and sets its
 * last use to the time of this request, in the KeyValue store so that every replica counts into one total.
 */

export interface TokenUsage {
  /** Authenticated requests of the token, this one included. */
  usageCount: number;
  /** ISO 8601 time of the latest authenticated request: this one. */
  lastUsed: string;
}

export interface Principal {
  token: TokenRecord;
  kind: TokenRecord['kind'];
  /**
   * The usage as recorded by this request; null when the store could not record it. A promise: counting
   * runs beside authorization and rate limiting instead of before them, and only token-info waits for it.
   */
  usage: Promise<TokenUsage | null>;
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** The authenticated token; set by authenticate(). */
    principal?: Principal;
  }
}

export interface AuthenticateOptions {
  directory: IdentityDirectory;
  kv: KeyValue;
  clock: Clock;
}

// RFC 7235: the scheme is case-insensitive; one token, nothing after it.
const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Resolves `Authorization: Bearer <token>` to a live token on `res.locals.principal`, or 401.
 *
 * @example router.use(authenticate({ directory, kv, clock }));
 */
export function authenticate(options: AuthenticateOptions): RequestHandler {
  return async (req, res, next) => {
    const token = await liveToken(req.get('authorization'), options, res.locals.identityVersion);
    const usage = recordUse(options.kv, token.id, options.clock.now(), res);
    res.locals.principal = { token, kind: token.kind, usage };
    next();
  };
}

/** The token record the header names, once its secret, revocation and expiry all check out. */
async function liveToken(
  header: string | undefined,
  { directory, clock }: AuthenticateOptions,
  freshness: Promise<string | null> | undefined,
): Promise<TokenRecord> {
  if (header === undefined || header.trim() === '') {
    throw new UnauthorizedError('Missing Authorization header: send "Authorization: Bearer <token>"');
  }
  const bearer = BEARER.exec(header.trim())?.[1];
  if (bearer === undefined) {
    throw new UnauthorizedError('Malformed Authorization header: expected "Bearer <token>"');
  }
  const parsed = parseToken(bearer);
  if (parsed === null) throw new UnauthorizedError('Malformed token');

  const record = await directory.findToken(parsed.tokenId, freshness);
  // Unknown id, a prefix of the other kind and a wrong secret look alike to the caller.
  if (record === null || record.kind !== parsed.kind || !secretMatches(parsed.secret, record.secretHash)) {
    throw new UnauthorizedError('Invalid token');
  }
  // Only a holder of the secret learns that a token was revoked or has expired.
  if (record.revokedAt !== null) throw new UnauthorizedError('Token revoked');
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= clock.now().getTime()) {
    throw new UnauthorizedError('Token expired');
  }
  return record;
}

const usageCountKey = (tokenId: string) => `gateway:token-usage:${tokenId}:count`;
const lastUsedKey = (tokenId: string) => `gateway:token-usage:${tokenId}:last-used`;

/**
 * Counts this request. Usage is informational, so a store outage costs the count, not the request: it is
 * logged and the request goes on.
 */
async function recordUse(
  kv: KeyValue,
  tokenId: string,
  now: Date,
  res: Response,
): Promise<TokenUsage | null> {
  try {
    const lastUsed = now.toISOString();
    const [{ value }] = await Promise.all([
      kv.increment(usageCountKey(tokenId)),
      kv.set(lastUsedKey(tokenId), lastUsed),
    ]);
    return { usageCount: value, lastUsed };
  } catch (err) {
    res.locals.log.warn({ err, tokenId }, 'could not record token usage');
    return null;
  }
}
