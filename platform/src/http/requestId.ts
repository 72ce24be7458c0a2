import type { RequestHandler } from 'express';
import { newId } from '../ids';
import type { Logger } from '../logging';

/**
 * Every request carries an id: the caller's `X-Request-Id` when it is sane (so a trace spans the gateway
 * and the services behind it), else a fresh one. It is echoed in the response and bound to a child
 * logger, so every log line of the request can be found from what the client saw.
 */

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
  }
  interface Locals {
    requestId: string;
    /** The request's logger: the service logger with `requestId` bound. */
    log: Logger;
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';

// Bounded and printable: a header value ends up in logs and in other services' headers.
const SANE_REQUEST_ID = /^[A-Za-z0-9._~:/+=-]{1,128}$/;

/**
 * Sets `req.requestId`, `res.locals.requestId`, `res.locals.log` and the `X-Request-Id` response header.
 *
 * @example app.use(requestContext(logger));
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const offered = req.get(REQUEST_ID_HEADER);
    const requestId = offered !== undefined && SANE_REQUEST_ID.test(offered) ? offered : newId();
    req.requestId = requestId;
    res.locals.requestId = requestId;
    res.locals.log = logger.child({ requestId });
    res.setHeader(REQUEST_ID_HEADER, requestId);
    next();
  };
}
