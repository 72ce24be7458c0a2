import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Token strings: a kind prefix, the token id (32 hex digits) and a 40-character base62 secret (~238 bits).
 * The id makes the lookup a primary-key read; only a hash of the secret is stored, compared in constant
 * time. Example: `svc_pat_0190f3c2a1b27c3e8d4f5a6b7c8d9e0fK3j…`.
 */
export const TOKEN_PREFIX = { personal: 'svc_pat_', project: 'svcp_' } as const;
export type TokenKind = keyof typeof TOKEN_PREFIX;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
const SHAPE = /^(svc_pat_|svcp_)([0-9a-f]{32})([0-9A-Za-z]{40})$/;

export interface ParsedToken {
  kind: TokenKind;
  /** The token id in UUID form, as the admin API shows it. */
  tokenId: string;
  secret: string;
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character equally likely (256 is not a multiple of 62).
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

const toUuid = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** Hex SHA-256 of a token secret: what the store keeps. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * Mints a token for an id; returns the cleartext (shown once) and the hash to store.
 *
 * @example const { token, secretHash } = mintToken('personal', newId());
 */
export function mintToken(kind: TokenKind, tokenId: string): { token: string; secretHash: string } {
  const secret = randomBase62(SECRET_LENGTH);
  return {
    token: `${TOKEN_PREFIX[kind]}${tokenId.replace(/-/g, '')}${secret}`,
    secretHash: hashSecret(secret),
  };
}

/** Splits a bearer token into kind, id and secret; null when it does not have the shape of a token. */
export function parseToken(token: string): ParsedToken | null {
  const match = SHAPE.exec(token);
  if (!match) return null;
  const [, prefix, hex, secret] = match as unknown as [string, string, string, string];
  return { kind: prefix === TOKEN_PREFIX.personal ? 'personal' : 'project', tokenId: toUuid(hex), secret };
}

/** Constant-time check of a secret against a stored hash. */
export function secretMatches(secret: string, secretHash: string): boolean {
  const expected = Buffer.from(secretHash, 'hex');
  const actual = createHash('sha256').update(secret).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
