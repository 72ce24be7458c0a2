import type { Request, RequestHandler, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import { CSRF_HEADER, SESSION_COOKIE } from '@verdict/contracts';
import { ForbiddenError, UnauthorizedError, type Clock, type KeyValue } from '@verdict/platform';
import type { IdentityDirectory, TokenRecord } from '../identity/directory';
import { parseToken, secretMatches } from '../identity/tokenFormat';
import type { SessionStore, WebSession } from './sessions/sessionStore';

/**
 * Bearer-token authentication of the public API (spec §5). Every failure is the same 401 UNAUTHORIZED
 * code (spec §5.5, §7); the messages tell a client what to fix but say "invalid" alike for an unknown id
 * and a wrong secret. The token record is read from the directory on every request and never cached, so
 * a revocation is refused on the very next request of every replica (ARCHITECTURE.md, non-negotiables).
 *
 * A browser signed in to the web app sends its session cookie instead of the header (docs/web.md). The
 * session names the token it was opened with, and that token is read and checked here exactly as a bearer
 * token is, so a session reaches what its token reaches and stops with it. A request carrying both is
 * judged by its header. A write made with the cookie must echo the session's CSRF token in X-CSRF-Token:
 * a page of another site can make the browser send the cookie, never read the token.
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
  /** The web session the request came with; absent for a bearer token. */
  session?: WebSession;
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
  /** Web sessions; without them a session cookie is ignored. */
  sessions?: SessionStore;
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
    const header = req.get('authorization');
    const cookie = header === undefined ? sessionCookieOf(req) : undefined;
    if (cookie !== undefined && options.sessions) {
      const { token, session } = await sessionToken(cookie, options.sessions, options, res);
      if (!SAFE_METHODS.has(req.method) && !options.sessions.csrfMatches(session, req.get(CSRF_HEADER))) {
        throw new ForbiddenError(
          `Missing or wrong ${CSRF_HEADER} header: a write made with the session cookie must send the session's CSRF token`,
        );
      }
      options.sessions.renew(session).catch((err: unknown) => {
        res.locals.log.warn({ err }, 'could not renew a web session');
      });
      const usage = recordUse(options.kv, token.id, options.clock.now(), res);
      res.locals.principal = { token, kind: token.kind, usage, session };
      next();
      return;
    }
    const token = await bearerToken(header, options, res.locals.identityVersion);
    const usage = recordUse(options.kv, token.id, options.clock.now(), res);
    res.locals.principal = { token, kind: token.kind, usage };
    next();
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session cookie's value, when the request carries one. */
export function sessionCookieOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  const value = parseCookies(header)[SESSION_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

/** The token record the header names, once its secret, revocation and expiry all check out. */
async function bearerToken(
  header: string | undefined,
  options: AuthenticateOptions,
  freshness: Promise<string | null> | undefined,
): Promise<TokenRecord> {
  if (header === undefined || header.trim() === '') {
    throw new UnauthorizedError('Missing Authorization header: send "Authorization: Bearer <token>"');
  }
  const bearer = BEARER.exec(header.trim())?.[1];
  if (bearer === undefined) {
    throw new UnauthorizedError('Malformed Authorization header: expected "Bearer <token>"');
  }
  return verifyToken(bearer, options, freshness);
}

/**
 * The token record a token's cleartext names, once its secret, revocation and expiry all check out; a
 * sign-in goes through here too.
 *
 * @example const record = await verifyToken('svc_pat_…', { directory, clock });
 */
export async function verifyToken(
  cleartext: string,
  { directory, clock }: Pick<AuthenticateOptions, 'directory' | 'clock'>,
  freshness?: Promise<string | null>,
): Promise<TokenRecord> {
  const parsed = parseToken(cleartext);
  if (parsed === null) throw new UnauthorizedError('Malformed token');
  const record = await directory.findToken(parsed.tokenId, freshness);
  // Unknown id, a prefix of the other kind and a wrong secret look alike to the caller.
  if (record === null || record.kind !== parsed.kind || !secretMatches(parsed.secret, record.secretHash)) {
    throw new UnauthorizedError('Invalid token');
  }
  return liveRecord(record, clock);
}

/** Only a holder of the secret (or of a session it opened) learns that a token was revoked or expired. */
function liveRecord(record: TokenRecord, clock: Clock): TokenRecord {
  if (record.revokedAt !== null) throw new UnauthorizedError('Token revoked');
  if (record.expiresAt !== null && Date.parse(record.expiresAt) <= clock.now().getTime()) {
    throw new UnauthorizedError('Token expired');
  }
  return record;
}

/**
 * The session of the cookie and its token, read and checked as a bearer token is. A session whose token
 * was revoked, expired or deleted is ended on the spot.
 */
async function sessionToken(
  cookie: string,
  sessions: SessionStore,
  options: AuthenticateOptions,
  res: Response,
): Promise<{ token: TokenRecord; session: WebSession }> {
  const session = await sessions.find(cookie);
  if (session === null) throw new UnauthorizedError('Session expired or signed out: sign in again');
  const record = await options.directory.findToken(session.tokenId, res.locals.identityVersion);
  try {
    if (record === null) throw new UnauthorizedError('Invalid token');
    return { token: liveRecord(record, options.clock), session };
  } catch (error) {
    await sessions.end(session);
    throw error;
  }
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

/**
 * What the usage counters say of a token (for its owner's list of tokens): null fields when it was never
 * used, or the store cannot say right now (usage is informational; the list still answers).
 *
 * @example const { lastUsed, usageCount } = await readUsage(kv, token.id);
 */
export async function readUsage(
  kv: KeyValue,
  tokenId: string,
): Promise<{ lastUsed: string | null; usageCount: number }> {
  try {
    const [count, lastUsed] = await Promise.all([
      kv.get(usageCountKey(tokenId)),
      kv.get(lastUsedKey(tokenId)),
    ]);
    const usageCount = Number(count ?? 0);
    return { lastUsed, usageCount: Number.isSafeInteger(usageCount) ? usageCount : 0 };
  } catch {
    return { lastUsed: null, usageCount: 0 };
  }
}
