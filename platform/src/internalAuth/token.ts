import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { UnauthorizedError } from '../errors';

/**
 * The identity the gateway vouches for on every request it forwards: a short-lived HS256 JWT signed with
 * a secret shared by the gateway and the services. Services trust this and nothing else, so verification
 * pins the algorithm (no `none`, no key confusion), the audience and the issuer, and insists on an expiry
 * no later than MAX_INTERNAL_TTL_SECONDS after issue: a leaked token is worth a minute, not a career.
 */

export const INTERNAL_AUDIENCE = 'verdict-services';
export const INTERNAL_ISSUER = 'verdict-gateway';
/** Longest lifetime a service accepts; the gateway mints for one request, so this is generous. */
export const MAX_INTERNAL_TTL_SECONDS = 300;
/** Clock skew tolerated between the gateway and a service host (distributed mode). */
export const INTERNAL_CLOCK_TOLERANCE_SECONDS = 5;
/** HS256 keys shorter than the hash output weaken the MAC (RFC 7518 §3.2). */
const MIN_SECRET_LENGTH = 32;

export const InternalIdentity = z.object({
  organizationId: z.string().min(1),
  projectId: z.string().min(1),
  userId: z.string().min(1),
  role: z.enum(['owner', 'admin', 'member', 'viewer']),
  /** The token's capability scopes, such as `public-api`. */
  scopes: z.array(z.string()),
  tokenId: z.string().min(1),
  /** The project's default branch (a project setting): the base of a run that names none. */
  defaultBranch: z.string().min(1).optional(),
});
export type InternalIdentity = z.infer<typeof InternalIdentity>;

export interface MintInternalTokenOptions {
  secret: string;
  /** Lifetime in seconds (default 60, at most MAX_INTERNAL_TTL_SECONDS). */
  ttlSeconds?: number;
  /** Issue time (default: now); tests pass a fixed instant. */
  now?: Date;
}

export interface VerifyInternalTokenOptions {
  secret: string;
  /** The verifier's current time (default: now). */
  now?: Date;
}

/**
 * Signs `identity` for the services behind the gateway.
 *
 * @example req.headers['x-verdict-identity'] = mintInternalToken(res.locals.access, { secret: config.VERDICT_INTERNAL_SECRET });
 */
export function mintInternalToken(identity: InternalIdentity, options: MintInternalTokenOptions): string {
  assertInternalSecret(options.secret);
  const ttlSeconds = options.ttlSeconds ?? 60;
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0 || ttlSeconds > MAX_INTERNAL_TTL_SECONDS) {
    throw new RangeError(
      `ttlSeconds must be an integer from 1 to ${MAX_INTERNAL_TTL_SECONDS}, got ${ttlSeconds}`,
    );
  }
  // Parsing drops any extra field a caller's object carries (a whole token record, say) from the claims.
  const claims = InternalIdentity.parse(identity);
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1_000);
  return jwt.sign({ ...claims, iat: issuedAt }, keyOf(options.secret), {
    algorithm: 'HS256',
    audience: INTERNAL_AUDIENCE,
    issuer: INTERNAL_ISSUER,
    expiresIn: ttlSeconds,
  });
}

/**
 * Checks an internal token and returns the identity it carries; throws UnauthorizedError when it is
 * malformed, tampered with, signed with another secret or algorithm, meant for someone else, or expired.
 *
 * @example const identity = verifyInternalToken(req.get('X-Verdict-Identity') ?? '', { secret });
 */
export function verifyInternalToken(token: string, options: VerifyInternalTokenOptions): InternalIdentity {
  assertInternalSecret(options.secret);
  let payload: string | jwt.JwtPayload;
  try {
    payload = jwt.verify(token, keyOf(options.secret), {
      algorithms: ['HS256'],
      audience: INTERNAL_AUDIENCE,
      issuer: INTERNAL_ISSUER,
      maxAge: MAX_INTERNAL_TTL_SECONDS,
      clockTolerance: INTERNAL_CLOCK_TOLERANCE_SECONDS,
      clockTimestamp: Math.floor((options.now ?? new Date()).getTime() / 1_000),
    });
  } catch (err) {
    if (err instanceof jwt.TokenExpiredError) throw new UnauthorizedError('Internal identity expired');
    throw new UnauthorizedError('Invalid internal identity');
  }
  // jsonwebtoken accepts a token without `exp`; ours always have one, so its absence means forgery.
  if (typeof payload === 'string' || typeof payload.exp !== 'number') {
    throw new UnauthorizedError('Invalid internal identity');
  }
  const identity = InternalIdentity.safeParse(payload);
  if (!identity.success) throw new UnauthorizedError('Invalid internal identity');
  return identity.data;
}

const keys = new Map<string, KeyObject>();

/**
 * The secret as a KeyObject, made once per secret. Given a string, jsonwebtoken first tries to read it as
 * a PEM private (or public) key and builds a secret key from it only after that throws: two failed key
 * parses per request, a few percent of a busy gateway's CPU.
 */
function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (key === undefined) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    if (keys.size >= 16) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/**
 * Throws a RangeError for a secret too short to sign with; call it at boot so a bad value stops the
 * process instead of every request.
 *
 * @example assertInternalSecret(config.VERDICT_INTERNAL_SECRET);
 */
export function assertInternalSecret(secret: string): void {
  if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
    throw new RangeError(`The internal identity secret must be at least ${MIN_SECRET_LENGTH} characters`);
  }
}
