import type { RequestHandler } from 'express';
import { systemClock, type Clock } from '../clock';
import { UnauthorizedError } from '../errors';
import { assertInternalSecret, verifyInternalToken, type InternalIdentity } from './token';

/**
 * The services' half of internal authentication. The gateway sends the JWT in its own header rather than
 * in `Authorization`, so it can never be mistaken for (or forwarded as) a client's bearer token, and the
 * gateway's rule is simple: overwrite `X-Verdict-Identity` on every forwarded request.
 */

declare module 'express-serve-static-core' {
  interface Locals {
    /** Who the gateway says is calling; set by requireInternalIdentity. */
    identity: InternalIdentity;
  }
}

export const INTERNAL_IDENTITY_HEADER = 'X-Verdict-Identity';

export interface RequireInternalIdentityOptions {
  secret: string;
  clock?: Clock;
}

/**
 * Rejects a request without a valid internal token with 401 UNAUTHORIZED and puts the identity on
 * `res.locals.identity`. Mount it before a service's routes.
 *
 * @example router.use(requireInternalIdentity({ secret: config.VERDICT_INTERNAL_SECRET }));
 */
export function requireInternalIdentity(options: RequireInternalIdentityOptions): RequestHandler {
  assertInternalSecret(options.secret);
  const clock = options.clock ?? systemClock;
  return (req, res, next) => {
    const token = req.get(INTERNAL_IDENTITY_HEADER);
    if (token === undefined || token === '') throw new UnauthorizedError('Missing internal identity');
    res.locals.identity = verifyInternalToken(token, { secret: options.secret, now: clock.now() });
    next();
  };
}
