import http from 'node:http';
import type { Request, RequestHandler, Response, Router } from 'express';
import type { Clock, InternalIdentity, Logger, RouteSpec } from '@verdict/platform';
import {
  INTERNAL_IDENTITY_HEADER,
  mintInternalToken,
  parseJsonBodies,
  ServiceUnavailableError,
} from '@verdict/platform';

/**
 * A service behind the gateway: its declared routes, and where it runs. Embedded, its router is mounted in
 * this process; distributed, requests are proxied over HTTP. Either way the gateway's access chain has run
 * and the request carries a fresh internal JWT that the service verifies (`requireInternalIdentity`).
 */
export interface ServiceMount {
  name: string;
  routes: readonly RouteSpec[];
  target: { kind: 'in-process'; router: Router } | { kind: 'http'; url: string };
}

export interface ForwardOptions {
  /** Largest JSON body parsed for a service mounted in this process (one behind HTTP parses its own). */
  bodyLimit?: string | number;
  internalSecret: string;
  clock: Clock;
  logger: Logger;
  /** Milliseconds to wait for a proxied service's answer (default 60 s). */
  timeoutMs?: number;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/** The identity the service receives; clients can neither send nor forge it. */
function identityHeader(res: Response, options: ForwardOptions): string {
  const access = res.locals.access;
  if (!access) throw new Error('forwarding needs the access chain to have authorized the request');
  const identity: InternalIdentity = { ...access };
  return mintInternalToken(identity, { secret: options.internalSecret, now: options.clock.now() });
}

/**
 * Replaces the client's credentials with the internal identity: services never see a public token, nor the
 * web app's session cookie (services use no cookie at all).
 */
function rewriteHeaders(req: Request, token: string): void {
  delete req.headers.authorization;
  delete req.headers.cookie;
  req.headers[INTERNAL_IDENTITY_HEADER.toLowerCase()] = token;
}

function proxy(url: string, options: ForwardOptions): RequestHandler {
  const upstream = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  return (req, res, next) => {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    // A body that something before did read (the gateway streams API bodies unread) is sent again as JSON.
    const parsed = req.body !== undefined && req.readableEnded;
    const body = parsed ? Buffer.from(JSON.stringify(req.body)) : null;
    if (body) headers['content-length'] = String(body.length);
    headers['x-forwarded-for'] = req.ip ?? '';
    const outgoing = http.request(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: `${upstream.pathname.replace(/\/$/, '')}${req.url}`,
        headers,
        agent,
        timeout: options.timeoutMs ?? 60_000,
      },
      (incoming) => {
        const responseHeaders: http.OutgoingHttpHeaders = {};
        for (const [name, value] of Object.entries(incoming.headers)) {
          // The gateway's own rate-limit and request-id headers win over a service's.
          if (!HOP_BY_HOP.has(name) && value !== undefined && !res.hasHeader(name))
            responseHeaders[name] = value;
        }
        res.status(incoming.statusCode ?? 502);
        for (const [name, value] of Object.entries(responseHeaders)) res.setHeader(name, value as string);
        incoming.pipe(res);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('upstream timeout')));
    outgoing.on('error', (error) => {
      options.logger.warn({ err: error, upstream: upstream.origin }, 'service unreachable');
      if (!res.headersSent) next(new ServiceUnavailableError('The service behind this route is unavailable'));
      else res.destroy(error);
    });
    if (body) outgoing.end(body);
    else req.pipe(outgoing);
  };
}

/** A service mounted in this process gets its JSON body parsed, as its own process would parse it. */
function inProcess(router: Router, options: ForwardOptions): RequestHandler {
  const json = parseJsonBodies({ limit: options.bodyLimit ?? '10mb' });
  return (req, res, next) =>
    json(req, res, (error?: unknown) => (error ? next(error) : router(req, res, next)));
}

/**
 * The handler that hands an authorized request to the service that owns it.
 *
 * @example app.use(prefix, accessChain, forwardTo(mount, { internalSecret, clock, logger }));
 */
export function forwardTo(mount: ServiceMount, options: ForwardOptions): RequestHandler {
  const logger = options.logger.child({ component: 'forward', service: mount.name });
  const target =
    mount.target.kind === 'in-process'
      ? inProcess(mount.target.router, options)
      : proxy(mount.target.url, { ...options, logger });
  return (req, res, next) => {
    rewriteHeaders(req, identityHeader(res, options));
    target(req, res, next);
  };
}
