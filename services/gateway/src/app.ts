import path from 'node:path';
import express, { Router, type Express, type RequestHandler } from 'express';
import { adminRoutes, gatewayApiRoutes, SIGNED_DOWNLOAD_PATH } from '@verdict/contracts';
import type {
  BlobStore,
  Clock,
  DeadLetterStore,
  EventBus,
  KeyValue,
  Logger,
  RateLimiter,
  Registry,
  RouteSpec,
} from '@verdict/platform';
import {
  buildOpenApiDocument,
  createHttpApp,
  MethodNotAllowedError,
  NotFoundError,
  serveSignedBlobs,
  toExpressPath,
} from '@verdict/platform';
import { createAccessChain, createTokenInfoRouter } from './access/accessChain';
import { limitFailedAdminKeys } from './access/rateLimits';
import { createSessionRouter, createSignInRouter } from './access/sessions/routes';
import { createOwnTokensRouter } from './access/sessions/ownTokenRoutes';
import { createMembersRouter } from './identity/members';
import { createProjectSettingsRouter } from './identity/projectSettings';
import { createSessionStore, type SessionStore } from './access/sessions/sessionStore';
import { createWebAppRouter } from './web/webApp';
import type { Identity } from './identity/module';
import { createMcpRelay, MCP_PATH, mcpRouter, type McpEndpoint } from './mcp/mcpEndpoint';
import { deadLetterRouter } from './operations/routes';
import { forwardTo, type ServiceMount } from './routing/forward';
import { compileRoutes, findRoute, methodsOf } from './routing/routeTable';

/** The public prefixes of spec §1: clients differ on whether `v1` comes before or after `public`. */
export const API_PREFIXES = ['/api/public/v1', '/api/v1/public'] as const;
export const ADMIN_PREFIX = '/admin/v1';
export const API_VERSION = '1.0.0';

export interface GatewayOptions {
  logger: Logger;
  /** The checks behind /readyz: the store, the bus and the key-value store this process depends on. */
  readiness: Record<string, () => Promise<void>>;
  /** Where its metrics go (shared with the modules of its process); its own registry when omitted. */
  metrics?: Registry;
  identity: Identity;
  adminKey: string;
  rateLimiter: RateLimiter;
  kv: KeyValue;
  clock: Clock;
  ingestLimitPerMinute: number;
  /** Signs the internal JWT that services verify. */
  internalSecret: string;
  /** Where clients reach this gateway (VERDICT_PUBLIC_URL); the server of the OpenAPI document. */
  publicUrl: string;
  /** The services behind the gateway, in-process (embedded) or over HTTP (distributed). */
  services: ServiceMount[];
  /** Express `trust proxy`, for the per-IP limit behind a load balancer (default false). */
  trustProxy?: boolean | number | string;
  /** Artifact downloads: the blob store and the secret their URLs are signed with. */
  downloads?: { blobs: BlobStore; secret: string };
  /** The dead letters of every consumer and the bus their replays go out on (admin API). */
  deadLetters: { store: DeadLetterStore; bus: EventBus };
  /** The web app's sessions; kept in `kv` with the default idle timeout when omitted. */
  sessions?: SessionStore;
  /** The built web app (VERDICT_WEB_DIR); without it the gateway serves the API only. */
  webDir?: string;
  /**
   * The MCP server served at /mcp over Streamable HTTP: `createMcpHttpHandler` of `@verdict/mcp`, given
   * by the launchers (a client package the gateway's own module does not import, since that package's
   * types are built from the gateway's routes). Absent: no /mcp.
   */
  mcp?: McpEndpoint;
}

/** A web session ends after this long without a request, unless configured (VERDICT_SESSION_IDLE_MINUTES). */
export const DEFAULT_SESSION_IDLE_MINUTES = 480;

/** Every route of the public API: the gateway's own and those of the services behind it. */
export function publicRoutes(services: ServiceMount[]): readonly RouteSpec[] {
  return [...gatewayApiRoutes, ...services.flatMap((service) => service.routes)];
}

/** The OpenAPI 3.1 document of the public API (token-authenticated), at {base}/openapi.json. */
export function openApiDocument(options: Pick<GatewayOptions, 'publicUrl' | 'services'>) {
  return buildOpenApiDocument({
    title: 'Verdict API',
    version: API_VERSION,
    description:
      'Test reporting and test management. Every answer uses the envelope `{success, data, pagination?}` or ' +
      '`{success: false, error: {code, message}}`; the same routes answer under /api/public/v1 and ' +
      '/api/v1/public. Instants are RFC 3339 date-times from 1000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z ' +
      `(UTC). The administration API has its own document: ${ADMIN_PREFIX}/openapi.json.`,
    serverUrl: options.publicUrl,
    groups: [{ prefixes: [...API_PREFIXES], routes: publicRoutes(options.services) }],
  });
}

/** The OpenAPI 3.1 document of the administration API (VERDICT_ADMIN_KEY), at /admin/v1/openapi.json. */
export function adminOpenApiDocument(options: Pick<GatewayOptions, 'publicUrl'>) {
  return buildOpenApiDocument({
    title: 'Verdict Admin API',
    version: API_VERSION,
    description:
      'Organizations, projects, users, tokens and dead letters, for whoever holds VERDICT_ADMIN_KEY ' +
      '(`Authorization: Bearer <admin key>`); user tokens never open it. Same envelope as the public API.',
    serverUrl: options.publicUrl,
    groups: [{ prefixes: [ADMIN_PREFIX], routes: adminRoutes }],
  });
}

function docsRouter(openApiPath: string): Router {
  const router = Router();
  const assets = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  router.use('/docs/assets', express.static(assets, { index: false, maxAge: '1h' }));
  router.get('/docs', (_req, res) => {
    res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Verdict API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png"></head>
<body><div id="docs"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: ${JSON.stringify(openApiPath)}, dom_id: '#docs', deepLinking: true });</script>
</body></html>`);
  });
  return router;
}

/**
 * Unknown paths answer 404 before any token is asked for, so probing them costs no credentials, and a
 * known path asked with a method none of its routes takes answers 405 with `Allow` (what the OpenAPI
 * document says already). A known route names itself for the metrics, whatever answers it (a 401, a 429
 * or the service).
 */
function rejectUnknownRoutes(routes: readonly RouteSpec[]): RequestHandler {
  const table = compileRoutes('api', routes);
  return (req, res, next) => {
    const route = findRoute(table, req.method, req.path);
    if (!route) {
      const allowed = methodsOf(table, req.path);
      const path = `${req.baseUrl}${req.path}`;
      next(
        allowed.length > 0
          ? new MethodNotAllowedError(req.method, path, allowed)
          : new NotFoundError(`No route for ${req.method} ${path}`),
      );
      return;
    }
    res.locals.routeLabel = `${req.baseUrl}${toExpressPath(route.path)}`;
    next();
  };
}

/**
 * OPTIONS on a known path answers 204 with `Allow` naming every method its routes take, ahead of any
 * router (Express's own answer would name only the methods of the router it reached first).
 */
function answerOptions(routes: readonly RouteSpec[]): RequestHandler {
  const table = compileRoutes('api', routes);
  return (req, res, next) => {
    const allowed = req.method === 'OPTIONS' ? methodsOf(table, req.path) : [];
    if (allowed.length === 0) {
      next();
      return;
    }
    res.set('Allow', allowed.join(', ')).status(204).end();
  };
}

/**
 * The retired context endpoint (spec §4.2, §9): always 404, pointing at its replacement, before any token
 * is asked for, like any other path that does not exist.
 */
function retiredContext(): Router {
  const router = Router();
  router.get('/:projectId/context', () => {
    throw new NotFoundError('GET /{projectId}/context was replaced by GET /{projectId}/debug-bundle');
  });
  return router;
}

const GATEWAY_BODY_LIMIT = '10mb';

/** Under an API prefix (Express matches mount paths case-insensitively, so this does too). */
function isApiPath(path: string): boolean {
  const lower = path.toLowerCase();
  return API_PREFIXES.some((prefix) => lower === prefix || lower.startsWith(`${prefix}/`));
}

/**
 * The gateway: operational endpoints, docs, the admin API, and under both API prefixes the access chain
 * (per-IP limit, token, project scope and role, per-token limits) in front of every route.
 *
 * @example const app = createGatewayApp({ logger, readiness, identity, adminKey, … , services: [] });
 */
export function createGatewayApp(options: GatewayOptions): Express {
  const { app, finish } = createHttpApp({
    logger: options.logger,
    service: 'gateway',
    readiness: options.readiness,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    // Result batches may be up to 10 MiB (API.md, ingest).
    bodyLimit: GATEWAY_BODY_LIMIT,
    // API bodies go to the services as they came: parsed only where a service runs in this process
    // (forwardTo), never parsed here and serialised again for one behind HTTP.
    // Nor are MCP messages: the MCP transport reads and answers them (a parse error as JSON-RPC says).
    parsesJson: (req) => !isApiPath(req.path) && req.path.toLowerCase().replace(/\/$/, '') !== MCP_PATH,
  });
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
  const document = openApiDocument(options);
  const adminDocument = adminOpenApiDocument(options);
  app.use(docsRouter(`${API_PREFIXES[0]}/openapi.json`));
  for (const prefix of API_PREFIXES) app.get(`${prefix}/openapi.json`, (_req, res) => res.json(document));
  // Open like the public one, ahead of the admin router that answers 401 without the key.
  app.get(`${ADMIN_PREFIX}/openapi.json`, (_req, res) => res.json(adminDocument));

  // As under the API prefixes: a path that does not exist is 404 before the admin key is asked for.
  app.use(
    ADMIN_PREFIX,
    answerOptions(adminRoutes),
    rejectUnknownRoutes(adminRoutes),
    limitFailedAdminKeys({ rateLimiter: options.rateLimiter, logger: options.logger }),
    options.identity.adminRouter(options.adminKey),
    deadLetterRouter(options.deadLetters, options.adminKey),
  );
  if (options.downloads) {
    const { blobs, secret } = options.downloads;
    app.use(SIGNED_DOWNLOAD_PATH, serveSignedBlobs({ store: blobs, secret, clock: options.clock }));
  }

  const sessions =
    options.sessions ??
    createSessionStore({
      kv: options.kv,
      clock: options.clock,
      idleTimeoutMs: DEFAULT_SESSION_IDLE_MINUTES * 60_000,
    });
  const sessionOptions = {
    directory: options.identity.directory,
    accounts: options.identity.accounts,
    sessions,
    rateLimiter: options.rateLimiter,
    clock: options.clock,
    publicUrl: options.publicUrl,
  };
  const relay = createMcpRelay();
  if (options.mcp) app.use(mcpRouter({ endpoint: options.mcp, relay, rateLimiter: options.rateLimiter }));

  const accessChain = createAccessChain({
    directory: options.identity.directory,
    rateLimiter: options.rateLimiter,
    kv: options.kv,
    clock: options.clock,
    logger: options.logger,
    ingestLimitPerMinute: options.ingestLimitPerMinute,
    routeGuard: rejectUnknownRoutes(publicRoutes(options.services)),
    sessions,
    countedElsewhere: relay.isRelayed,
  });
  const api = Router();
  api.use(answerOptions(publicRoutes(options.services)));
  api.use(retiredContext());
  api.use(createSignInRouter(sessionOptions));
  api.use(accessChain);
  api.use(createTokenInfoRouter({ directory: options.identity.directory }));
  api.use(createMembersRouter(options.identity.members));
  api.use(
    createProjectSettingsRouter({
      directory: options.identity.directory,
      commands: options.identity.commands,
    }),
  );
  api.use(createSessionRouter(sessionOptions));
  api.use(
    createOwnTokensRouter({
      directory: options.identity.directory,
      accounts: options.identity.accounts,
      commands: options.identity.commands,
      kv: options.kv,
      clock: options.clock,
    }),
  );
  for (const service of options.services) {
    const owned = compileRoutes(service.name, service.routes);
    const forward = forwardTo(service, {
      bodyLimit: GATEWAY_BODY_LIMIT,
      internalSecret: options.internalSecret,
      clock: options.clock,
      logger: options.logger,
    });
    api.use((req, res, next) => (findRoute(owned, req.method, req.path) ? forward(req, res, next) : next()));
  }
  for (const prefix of API_PREFIXES) app.use(prefix, api);
  if (options.webDir !== undefined) {
    app.use(
      createWebAppRouter({ dir: options.webDir, logger: options.logger, publicUrl: options.publicUrl }),
    );
  }
  finish(app);
  return app;
}
