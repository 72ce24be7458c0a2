import type { Request, RequestHandler, Response, Router } from 'express';
import { z } from 'zod';
import type { Role, RouteSpec } from '@verdict/contracts';
import { ForbiddenError, UnauthorizedError } from '../errors';
import type { InternalIdentity } from '../internalAuth/token';
import type { Logger } from '../logging';
import { toExpressPath } from './openapi';
import { Reply } from './reply';
import { sendData } from './respond';
import { parseBody, parseParams, parseQuery } from './validate';

/**
 * The one route binder. A route is declared once, in `contracts/` (method, path, params, query, body,
 * roles); a service gives each declared route a handler, and the binder does the rest the same way for
 * every service: it resolves who is calling and checks the path's project and the declared roles
 * (authorization written once), validates params, query and body from the declaration, hands the handler
 * typed input and `{ projectId, actor, role, correlationId }`, and sends what the handler returns. A
 * handler never parses its own input, except the parts its declaration lists in `rawInput`.
 */

/** The output type of a declared part's schema; `undefined` when the route declares none. */
type DeclaredPart<R, Part extends 'params' | 'query' | 'body'> = R extends { [P in Part]: infer S }
  ? S extends z.ZodType
    ? z.output<S>
    : undefined
  : undefined;

/** A part the handler reads itself (`rawInput`) reaches it as `undefined`: read it from `ctx.req`. */
type InputPart<R, Part extends 'query' | 'body'> = R extends { rawInput: readonly (infer Raw)[] }
  ? Part extends Raw
    ? undefined
    : DeclaredPart<R, Part>
  : DeclaredPart<R, Part>;

/** What a handler gets from the request, validated against its route's declaration. */
export interface RouteInput<R extends RouteSpec> {
  params: DeclaredPart<R, 'params'>;
  query: InputPart<R, 'query'>;
  body: InputPart<R, 'body'>;
}

/** Every handler's context: the request's id and logger, and the request itself for what streams. */
export interface RequestContext {
  /** The request id (`X-Request-Id`), recorded on events as their correlation id. */
  correlationId: string;
  /** The request's logger (requestId bound). */
  log: Logger;
  /** For bodies the handler streams (uploads) and raw parts it reads itself (`rawInput`). */
  req: Request;
  /** For answers written as they are produced; prefer returning a value or a `reply`. */
  res: Response;
}

/** The context of a route called with a token (`security: 'bearer'`): who calls, for which project. */
export interface ProjectContext extends RequestContext {
  /** The project of the path, which is the one the caller's token reaches. */
  projectId: string;
  organizationId: string;
  /** The user acting: the token's owner. */
  actor: string;
  role: Role;
  identity: InternalIdentity;
}

export type ContextOf<R extends RouteSpec> = R extends { security: 'bearer' }
  ? ProjectContext
  : RequestContext;

/** A route's handler: a value to send as `{ success: true, data }`, or a `reply`; throws coded errors. */
export type RouteHandler<R extends RouteSpec> = (input: RouteInput<R>, ctx: ContextOf<R>) => unknown;

/**
 * A handler, or a handler with middleware that runs before the binder (a reader of a body that is not
 * JSON, such as NDJSON or XML, whose route lists `body` in `rawInput`).
 */
export type RouteBinding<R extends RouteSpec> =
  RouteHandler<R> | { before: readonly RequestHandler[]; handle: RouteHandler<R> };

/** The key of a route in a handler map: `get /{projectId}/webhooks`. */
export type RouteKey<R extends RouteSpec> = `${R['method']} ${R['path']}`;

/** One binding for each declared route, by its key: a route left without one does not compile. */
export type RouteHandlers<Routes extends readonly RouteSpec[]> = {
  [R in Routes[number] as RouteKey<R>]: RouteBinding<R>;
};

/** A declared route with the Express handlers the binder made for it. */
export type BoundRoute = RouteSpec & { handlers: RequestHandler[] };

export interface BindRoutesOptions {
  /**
   * Where the identity of a `bearer` route's caller is found: by default `res.locals.identity`, set by
   * requireInternalIdentity in a service. The gateway, which authorizes the token itself, names its own.
   */
  identityOf?: (res: Response) => InternalIdentity | undefined;
}

const NoQuery = z.strictObject({});

/**
 * Binds a handler to each declared route.
 *
 * @example registerRoutes(router, bindRoutes(webhookRoutes, { 'get /{projectId}/webhooks': ({ query }, { projectId }) => subscriptions.list(projectId, query) }));
 */
export function bindRoutes<Routes extends readonly RouteSpec[]>(
  routes: Routes,
  handlers: NoInfer<RouteHandlers<Routes>>,
  options: BindRoutesOptions = {},
): BoundRoute[] {
  const byKey = handlers as unknown as Record<string, RouteBinding<RouteSpec> | undefined>;
  const declared = new Set(routes.map((route) => `${route.method} ${route.path}`));
  for (const key of Object.keys(byKey)) {
    if (!declared.has(key)) throw new Error(`A handler is given for ${key}, which is not declared`);
  }
  return routes.map((spec) => {
    const binding = byKey[`${spec.method} ${spec.path}`];
    if (binding === undefined) throw new Error(`No handler for ${spec.method} ${spec.path}`);
    const [before, handle] =
      typeof binding === 'function' ? [[], binding] : [[...binding.before], binding.handle];
    return { ...spec, handlers: [...before, boundHandler(spec, handle, options)] };
  });
}

/**
 * Attaches bound routes to a router, in order.
 *
 * @example registerRoutes(router, [...caseRoutes(deps), ...suiteRoutes(deps)]);
 */
export function registerRoutes(router: Router, routes: readonly BoundRoute[]): void {
  for (const route of routes) router[route.method](toExpressPath(route.path), ...route.handlers);
}

function boundHandler(
  spec: RouteSpec,
  handle: RouteHandler<RouteSpec>,
  options: BindRoutesOptions,
): RequestHandler {
  checkDeclaration(spec);
  const raw = new Set(spec.rawInput ?? []);
  const identityOf = options.identityOf ?? ((res: Response) => res.locals.identity);
  return async (req, res) => {
    const base: RequestContext = { correlationId: req.requestId, log: res.locals.log, req, res };
    const ctx = spec.security === 'bearer' ? projectContext(spec, base, identityOf(res)) : base;
    const input = {
      params: spec.params ? parseParams(spec.params, req) : undefined,
      query: raw.has('query') ? undefined : parseQuery(spec.query ?? NoQuery, req, queryOptions(spec)),
      body: raw.has('body') || spec.body === undefined ? undefined : bodyOf(spec, spec.body, req),
    };
    const answer = await handle(input as RouteInput<RouteSpec>, ctx as ContextOf<RouteSpec>);
    if (answer instanceof Reply) await answer.send(res);
    else sendData(res, answer);
  };
}

/** Declarations the binder cannot honour are wiring mistakes: refused when the service starts. */
function checkDeclaration(spec: RouteSpec): void {
  const where = `${spec.method} ${spec.path}`;
  if (spec.security === 'bearer' && !spec.path.startsWith('/{projectId}/')) {
    throw new Error(`${where}: a bearer route names its project first in its path`);
  }
  const json = (spec.bodyContentTypes ?? ['application/json']).every((type) => type === 'application/json');
  if (spec.body !== undefined && !json && !spec.rawInput?.includes('body')) {
    throw new Error(`${where}: a body that is not JSON is the handler's to read; list it in rawInput`);
  }
}

/**
 * The caller of a token route, from the identity the gateway vouched for: the path must name its project
 * (a request for another project never reads or writes it, whatever reached this service), and its role
 * must be one the route declares.
 */
function projectContext(
  spec: RouteSpec & { security: 'bearer' },
  base: RequestContext,
  identity: InternalIdentity | undefined,
): ProjectContext {
  if (identity === undefined) throw new UnauthorizedError('Missing internal identity');
  const projectId = parseParams(z.looseObject({ projectId: z.string().min(1) }), base.req).projectId;
  if (projectId !== identity.projectId) throw new ForbiddenError('The token is not scoped to this project');
  if (!spec.roles.includes(identity.role)) {
    throw new ForbiddenError(
      `The ${identity.role} role cannot do this; it needs the ${orList(spec.roles)} role`,
    );
  }
  return {
    ...base,
    projectId,
    organizationId: identity.organizationId,
    actor: identity.userId,
    role: identity.role,
    identity,
  };
}

function queryOptions(spec: RouteSpec) {
  return spec.repeatableQuery ? { allowRepeated: spec.repeatableQuery } : {};
}

/** A route whose body is optional (`bodyRequired: false`) reads a request without one as `{}`. */
function bodyOf(spec: RouteSpec, schema: z.ZodType, req: Request): unknown {
  if (spec.bodyRequired === false && req.body === undefined) return schema.parse({});
  return parseBody(schema, req);
}

/** ['owner', 'admin'] → "owner or admin"; three or more: "owner, admin or member". */
function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}
