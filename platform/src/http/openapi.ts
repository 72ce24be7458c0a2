import type { Express, RequestHandler, Router } from 'express';
import { z } from 'zod';
import { ErrorEnvelope, type RouteSpec } from '@verdict/contracts';

/**
 * Routes are declared once, as data: the Express handlers and the OpenAPI 3.1 document are both built from
 * the same declarations, so the document cannot forget a route that was declared. `listExpressRoutes` lets
 * a test catch a route added to a router directly, around the declarations.
 */
export type { HttpMethod, ResponseSpec, RouteSpec } from '@verdict/contracts';

export interface ApiRoute extends RouteSpec {
  handlers: RequestHandler[];
}

/** A group of routes mounted together under one prefix (e.g. the public API base). */
export interface RouteGroup {
  /** Prefixes the group is mounted under; the document lists the routes under the first. */
  prefixes: string[];
  routes: RouteSpec[];
}

/** Express path syntax of an OpenAPI path: `/{projectId}/x` → `/:projectId/x`. */
export const toExpressPath = (path: string) => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
/** OpenAPI path syntax of an Express path: `/:projectId/x` → `/{projectId}/x`. */
export const toOpenApiPath = (path: string) => path.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');

/**
 * Attaches declared routes to a router, in order.
 *
 * @example registerRoutes(router, [{ method: 'get', path: '/{projectId}/token-info', …, handlers: [tokenInfo] }]);
 */
export function registerRoutes(router: Router, routes: ApiRoute[]): RouteSpec[] {
  for (const route of routes) router[route.method](toExpressPath(route.path), ...route.handlers);
  return routes.map(({ handlers: _handlers, ...spec }) => spec);
}

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });

function parametersOf(route: RouteSpec) {
  const parameters: Record<string, unknown>[] = [];
  const add = (where: 'path' | 'query', shape: z.ZodObject | undefined) => {
    if (!shape) return;
    const schema = jsonSchema(shape, 'input') as {
      properties?: Record<string, unknown>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const { description, ...rest } = property as { description?: string };
      parameters.push({
        name,
        in: where,
        required: where === 'path' || (schema.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  };
  add('path', route.params);
  add('query', route.query);
  // Path parameters named in the path but not declared still need an entry to keep the document valid.
  for (const [, name] of route.path.matchAll(/\{([A-Za-z0-9_]+)\}/g)) {
    if (!parameters.some((p) => p.in === 'path' && p.name === name)) {
      parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  return parameters;
}

function operationOf(route: RouteSpec, operationId: string) {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema
        ? {
            content: {
              [response.contentType ?? 'application/json']: { schema: jsonSchema(response.schema, 'output') },
            },
          }
        : response.contentType
          ? { content: { [response.contentType]: { schema: { type: 'string' } } } }
          : {}),
    };
  }
  responses.default = {
    description: 'Error envelope (spec §7); branch on error.code',
    content: { 'application/json': { schema: jsonSchema(ErrorEnvelope, 'output') } },
  };
  const body = route.body
    ? {
        requestBody: {
          required: true,
          content: Object.fromEntries(
            (route.bodyContentTypes ?? ['application/json']).map((type) => [
              type,
              {
                schema: type.includes('json')
                  ? jsonSchema(route.body as z.ZodType, 'input')
                  : { type: 'string' },
              },
            ]),
          ),
        },
      }
    : {};
  return {
    operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security:
      route.security === 'none' ? [] : [{ [route.security === 'admin' ? 'adminKey' : 'bearerToken']: [] }],
    parameters: parametersOf(route),
    ...body,
    responses,
  };
}

const operationIdOf = (method: string, path: string) =>
  `${method}${path
    .split('/')
    .filter(Boolean)
    .map((part) =>
      part
        .replace(/[{}]/g, '')
        .replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase()),
    )
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}`;

/**
 * The OpenAPI 3.1 document of route groups.
 *
 * @example buildOpenApiDocument({ title: 'Verdict', version: '1.0.0', serverUrl, groups: [{ prefixes: ['/api/public/v1'], routes }] });
 */
export function buildOpenApiDocument(options: {
  title: string;
  version: string;
  description?: string;
  serverUrl: string;
  groups: RouteGroup[];
}) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const group of options.groups) {
    const prefix = group.prefixes[0] ?? '';
    for (const route of group.routes) {
      const path = `${prefix}${route.path}`;
      const item = (paths[path] ??= {});
      item[route.method] = operationOf(route, operationIdOf(route.method, path));
    }
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: options.title,
      version: options.version,
      ...(options.description ? { description: options.description } : {}),
    },
    servers: [{ url: options.serverUrl }],
    components: {
      securitySchemes: {
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'A personal (svc_pat_…) or project (svcp_…) token',
        },
        adminKey: { type: 'http', scheme: 'bearer', description: 'VERDICT_ADMIN_KEY' },
      },
    },
    paths,
  };
}

interface StackLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: StackLayer[] };
  name?: string;
}

/**
 * Every route path attached to an app's routers, with its methods, relative to the router that holds it
 * (Express 5 does not keep mount paths). For tests: each must match the end of a documented path.
 */
export function listExpressRoutes(app: Express): { method: string; path: string }[] {
  const found: { method: string; path: string }[] = [];
  const walk = (stack: StackLayer[] | undefined) => {
    for (const layer of stack ?? []) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== '_all') found.push({ method, path: toOpenApiPath(path) });
          }
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: { stack: StackLayer[] } }).router.stack);
  return found;
}
