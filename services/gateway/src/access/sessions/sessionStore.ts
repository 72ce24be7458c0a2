import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Clock, KeyValue } from '@verdict/platform';

/**
 * Web sessions and one-time sign-in codes, kept in the key-value store so that every gateway replica sees
 * the same ones (Redis when distributed, the database when embedded).
 *
 * - A session is found by its cookie value, stored only as a SHA-256 (a copy of the store holds no usable
 *   cookie). It names the token it was opened with: every request re-reads that token, so revoking it ends
 *   the session at once. It lives `idleTimeoutMs` past its last request; its time to live is renewed at
 *   most once a minute, so a busy page does not write on every read.
 * - A sign-in code opens one session, once: redeeming it is an atomic increment, so two tabs racing on the
 *   same link cannot both win. It expires after `ttlMs` whether used or not.
 */

const SESSION_PREFIX = 'gateway:session:';
const CODE_PREFIX = 'gateway:sign-in-code:';
/** How stale a session's time to live may get before a request renews it. */
const RENEW_AFTER_MS = 60_000;

const StoredSession = z.object({
  tokenId: z.string(),
  userId: z.string(),
  csrfToken: z.string(),
  createdAt: z.string(),
  renewedAt: z.number(),
});

const StoredCode = z.object({ tokenId: z.string(), expiresAt: z.number() });

export interface WebSession {
  /** The store key (a hash of the cookie value), never the cookie value itself. */
  key: string;
  tokenId: string;
  userId: string;
  csrfToken: string;
  createdAt: string;
  renewedAt: number;
}

export interface OpenedSession {
  /** The cookie value: shown to the browser once, in Set-Cookie. */
  cookieValue: string;
  session: WebSession;
}

export interface SessionStore {
  readonly idleTimeoutMs: number;
  open(owner: { tokenId: string; userId: string }): Promise<OpenedSession>;
  /** The live session of a cookie value; null when unknown, signed out or idle too long. */
  find(cookieValue: string): Promise<WebSession | null>;
  /** Renews the session's idle timeout when it was last renewed more than a minute ago. */
  renew(session: WebSession): Promise<void>;
  end(session: Pick<WebSession, 'key'>): Promise<void>;
  /** Whether `presented` is the session's CSRF token (compared in constant time). */
  csrfMatches(session: WebSession, presented: string | undefined): boolean;
  /** A code that opens one session for the token, once, within `ttlMs`. */
  issueSignInCode(tokenId: string, ttlMs: number): Promise<string>;
  /** The token a code was issued for, the first time it is redeemed within its life; null otherwise. */
  redeemSignInCode(code: string): Promise<string | null>;
}

export interface SessionStoreOptions {
  kv: KeyValue;
  clock: Clock;
  /** A session ends after this long without a request. */
  idleTimeoutMs: number;
}

const secret = () => randomBytes(32).toString('base64url');
const digest = (value: string) => createHash('sha256').update(value).digest('base64url');

function parseStored<S extends z.ZodType>(schema: S, text: string | null): z.output<S> | null {
  if (text === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * @example const sessions = createSessionStore({ kv, clock, idleTimeoutMs: 8 * 3600_000 });
 */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const { kv, clock, idleTimeoutMs } = options;
  if (!Number.isSafeInteger(idleTimeoutMs) || idleTimeoutMs < RENEW_AFTER_MS) {
    throw new RangeError(`idleTimeoutMs must be at least ${RENEW_AFTER_MS}, got ${idleTimeoutMs}`);
  }
  const write = (session: WebSession) => {
    const { key, ...stored } = session;
    return kv.set(key, JSON.stringify(stored), { ttlMs: idleTimeoutMs });
  };

  return {
    idleTimeoutMs,
    async open({ tokenId, userId }) {
      const cookieValue = secret();
      const now = clock.now();
      const session: WebSession = {
        key: `${SESSION_PREFIX}${digest(cookieValue)}`,
        tokenId,
        userId,
        csrfToken: secret(),
        createdAt: now.toISOString(),
        renewedAt: now.getTime(),
      };
      await write(session);
      return { cookieValue, session };
    },
    async find(cookieValue) {
      // A cookie we never issued cannot be 43 base64url characters of our alphabet; skip the store for it.
      if (!/^[A-Za-z0-9_-]{43}$/.test(cookieValue)) return null;
      const key = `${SESSION_PREFIX}${digest(cookieValue)}`;
      const stored = parseStored(StoredSession, await kv.get(key));
      return stored ? { key, ...stored } : null;
    },
    async renew(session) {
      const now = clock.now().getTime();
      if (now - session.renewedAt < RENEW_AFTER_MS) return;
      await write({ ...session, renewedAt: now });
    },
    async end(session) {
      await kv.delete(session.key);
    },
    csrfMatches(session, presented) {
      if (presented === undefined) return false;
      const expected = Buffer.from(session.csrfToken);
      const given = Buffer.from(presented);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
    async issueSignInCode(tokenId, ttlMs) {
      const code = secret();
      const expiresAt = clock.now().getTime() + ttlMs;
      await kv.set(`${CODE_PREFIX}${digest(code)}`, JSON.stringify({ tokenId, expiresAt }), { ttlMs });
      return code;
    },
    async redeemSignInCode(code) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(code)) return null;
      const key = `${CODE_PREFIX}${digest(code)}`;
      const stored = parseStored(StoredCode, await kv.get(key));
      const left = stored === null ? 0 : stored.expiresAt - clock.now().getTime();
      if (stored === null || left <= 0) return null;
      // The first redeemer takes it: the claim counter outlives the code, so a second one always loses.
      const claim = await kv.increment(`${key}:claims`, { ttlMs: left + RENEW_AFTER_MS });
      if (claim.value !== 1) return null;
      await kv.delete(key);
      return stored.tokenId;
    },
  };
}
