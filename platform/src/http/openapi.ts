import type { Express } from 'express';
import { z } from 'zod';
import { ErrorEnvelope, NOT_BLANK_PATTERN, type RouteSpec } from '@verdict/contracts';

/**
 * Routes are declared once, as data: the Express handlers (bindRoutes) and the OpenAPI 3.1 document are
 * both built from the same declarations, so the document cannot forget a route that was declared.
 * `listExpressRoutes` lets a test catch a route added to a router directly, around the declarations.
 */
export type { HttpMethod, ResponseSpec, Role, RouteLink, RouteSpec } from '@verdict/contracts';

/** A group of routes mounted together under one prefix (e.g. the public API base). */
export interface RouteGroup {
  /** Prefixes the group is mounted under; the document lists the routes under the first. */
  prefixes: string[];
  routes: readonly RouteSpec[];
}

/** Express path syntax of an OpenAPI path: `/{projectId}/x` → `/:projectId/x`. */
export const toExpressPath = (path: string) => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
/** OpenAPI path syntax of an Express path: `/:projectId/x` → `/{projectId}/x`. */
export const toOpenApiPath = (path: string) => path.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');

/** The document's `components.schemas`: definitions hoisted out of the schemas generated for it. */
type Components = Record<string, unknown>;

/**
 * Replaces each `$ref` the rewrite names, everywhere in a JSON value.
 */
function rewriteRefs(value: unknown, refs: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, refs));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string' ? (refs.get(item) ?? item) : rewriteRefs(item, refs),
    ]),
  );
}

/** Whether a string schema trims its input before its other checks (zod's `.trim()`, an overwrite check). */
function trims(schema: unknown): boolean {
  const checks = (
    schema as { _zod?: { def?: { checks?: Array<{ _zod: { def: { check?: string; tx?: unknown } } }> } } }
  )._zod?.def?.checks;
  return (checks ?? []).some(
    (check) => check._zod.def.check === 'overwrite' && String(check._zod.def.tx).includes('.trim()'),
  );
}

/**
 * The JSON Schema of a zod schema, for a place inside the document. zod puts a schema used twice (or a
 * recursive one) in a local `$defs` and refers to it as `#/$defs/…`; inside an OpenAPI document that
 * pointer resolves from the document's root, where there is no `$defs`. So the definitions move to
 * `components.schemas`, under names unique in the document, and the references follow them.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Components) {
  const generated = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: ({ zodSchema, jsonSchema }) => {
      // A query integer is parsed from its text, so its default is text too (queryInteger): shown as the number.
      if (jsonSchema.type === 'integer' && typeof jsonSchema.default === 'string') {
        jsonSchema.default = Number(jsonSchema.default);
      }
      // `.trim().min(1)`: minLength alone would let "   " pass, which the API refuses.
      if (trims(zodSchema) && (jsonSchema.minLength ?? 0) >= 1 && jsonSchema.pattern === undefined) {
        jsonSchema.pattern = NOT_BLANK_PATTERN;
      }
    },
  });
  const { $defs = {}, ...rest } = generated as { $defs?: Record<string, unknown> };
  // A schema that contains itself refers to its own root as `#`: it moves to the components whole.
  const recursive = JSON.stringify(rest).includes('"$ref":"#"');
  if (Object.keys($defs).length === 0 && !recursive) return rest;
  const refs = new Map<string, string>();
  const nameOf = (ref: string) => {
    const name = `Schema${Object.keys(components).length + refs.size + 1}`;
    refs.set(ref, `#/components/schemas/${name}`);
    return name;
  };
  const names = Object.keys($defs).map((key) => [key, nameOf(`#/$defs/${key}`)] as const);
  const root = recursive ? nameOf('#') : null;
  for (const [key, name] of names) components[name] = rewriteRefs($defs[key], refs);
  const body = rewriteRefs(rest, refs) as Record<string, unknown>;
  if (root === null) return body;
  components[root] = body;
  return { $ref: `#/components/schemas/${root}` };
}

/** The names of a path's parameters: `/{projectId}/test-runs/{runId}` → projectId, runId. */
const pathParameters = (path: string) =>
  [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1] as string);

function parametersOf(route: RouteSpec, components: Components) {
  const parameters: Record<string, unknown>[] = [];
  const add = (where: 'path' | 'query', shape: z.ZodType | undefined) => {
    if (!shape) return;
    const schema = jsonSchema(shape, 'input', components) as {
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
  for (const name of pathParameters(route.path)) {
    if (!parameters.some((p) => p.in === 'path' && p.name === name)) {
      parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  return parameters;
}

/**
 * The part of a JSON Schema a JSON pointer names in the values it describes (`/data/id`: the `id` property
 * of the `data` property; `/data/cases/0/_id`: `_id` of an item of `cases`), or undefined when the schema
 * says no such value exists. Follows the document's component references.
 */
function schemaAt(schema: unknown, pointer: string, components: Components): unknown {
  let at = schema as Record<string, unknown> | undefined;
  for (const token of pointer.split('/').slice(1)) {
    while (at && typeof at.$ref === 'string') {
      at = components[at.$ref.replace('#/components/schemas/', '')] as Record<string, unknown> | undefined;
    }
    if (!at) return undefined;
    if (/^[0-9]+$/.test(token) && at.type === 'array') {
      at = at.items as Record<string, unknown> | undefined;
    } else {
      at = (at.properties as Record<string, Record<string, unknown>> | undefined)?.[token];
    }
  }
  return at;
}

/** Operations of a document by `method path` (the path as its group declares it), for links to find. */
type OperationIds = ReadonlyMap<string, { operationId: string; route: RouteSpec }>;

/**
 * The OpenAPI `links` of a route's success, every value checked against the document: a link that leaves
 * a path parameter of its target unset, or reads a value the answer does not hold, fails the build of the
 * document rather than misleading a client. A link to an operation the document does not have is left
 * out: a document of part of the API (one service's routes) has no operation of the others. That every
 * link of the whole API reaches its document is the gateway's test.
 */
function linksOf(route: RouteSpec, answer: unknown, operations: OperationIds, components: Components) {
  const links: Record<string, unknown> = {};
  const own = new Set(pathParameters(route.path));
  for (const [name, link] of Object.entries(route.links ?? {})) {
    const where = `link ${name} of ${route.method.toUpperCase()} ${route.path}`;
    const target = operations.get(link.to);
    if (!target) continue;
    const parameters: Record<string, string> = {};
    for (const parameter of pathParameters(target.route.path)) {
      const value =
        link.parameters[parameter] ?? (own.has(parameter) ? `$request.path.${parameter}` : undefined);
      if (value === undefined) throw new Error(`${where} leaves ${link.to}'s {${parameter}} unset`);
      parameters[parameter] = value;
    }
    for (const [parameter, value] of Object.entries(link.parameters)) {
      if (!(parameter in parameters))
        throw new Error(`${where} sets {${parameter}}, which ${link.to} does not take`);
      const pointer = value.slice('$response.body#'.length);
      if (schemaAt(answer, pointer, components) === undefined) {
        throw new Error(`${where} reads ${pointer} from an answer that has no such value`);
      }
    }
    links[name] = { operationId: target.operationId, parameters };
  }
  return links;
}

function operationOf(
  route: RouteSpec,
  operationId: string,
  operations: OperationIds,
  components: Components,
) {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const schema = response.schema ? jsonSchema(response.schema, 'output', components) : undefined;
    const links =
      route.links && /^2/.test(status) && schema ? linksOf(route, schema, operations, components) : {};
    responses[status] = {
      description: response.description,
      ...(schema
        ? { content: { [response.contentType ?? 'application/json']: { schema } } }
        : response.contentType
          ? { content: { [response.contentType]: { schema: { type: 'string' } } } }
          : {}),
      ...(Object.keys(links).length > 0 ? { links } : {}),
    };
  }
  if (route.security === 'bearer') {
    // Spec §5, §7, §8: every token-authenticated route may answer these, whatever else it answers.
    responses[401] ??= { $ref: '#/components/responses/Unauthorized' };
    responses[403] ??= { $ref: '#/components/responses/Forbidden' };
    responses[429] ??= { $ref: '#/components/responses/RateLimited' };
  }
  if (route.security === 'admin') {
    responses[401] ??= { $ref: '#/components/responses/Unauthorized' };
    // Too many wrong admin keys from one address in a minute.
    responses[429] ??= { $ref: '#/components/responses/RateLimited' };
  }
  // Every route validates what it is sent (a route without a query schema refuses any query parameter),
  // and one that names a resource in its path answers 404 when it is not there.
  if (route.security !== 'none') responses[400] ??= { $ref: '#/components/responses/ValidationError' };
  if (/\{(?!projectId\})[A-Za-z0-9_]+\}/.test(route.path)) {
    responses[404] ??= { $ref: '#/components/responses/NotFound' };
  }
  if (route.body) responses[413] ??= { $ref: '#/components/responses/PayloadTooLarge' };
  // Any request whose URL and headers pass 16 KB (a long query parameter, percent-encoded).
  responses[431] ??= { $ref: '#/components/responses/HeadersTooLarge' };
  // Every status an operation answers is listed, and no `default`: a client (or a fuzzer checking status
  // conformance) can rely on the list. A 5xx means Verdict failed; a test run fails on any.
  responses['5XX'] = { $ref: '#/components/responses/ServerError' };
  const body = route.body
    ? {
        requestBody: {
          required: route.bodyRequired ?? true,
          content: Object.fromEntries(
            (route.bodyContentTypes ?? ['application/json']).map((type) => [
              type,
              {
                // JSON and multipart bodies have fields a schema describes; XML and NDJSON are text.
                schema:
                  type === 'application/json' || type === 'multipart/form-data'
                    ? jsonSchema(route.body as z.ZodType, 'input', components)
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
    // Who may call it (spec §5.4): the roles the route declares, which the service enforces.
    ...(route.roles ? { 'x-roles': [...route.roles] } : {}),
    security: securityOf(route),
    parameters: parametersOf(route, components),
    ...body,
    responses,
  };
}

/**
 * A token route also takes the web app's session cookie (docs/web.md): either one, never both needed. A
 * session-only route takes the cookie alone, so that the document does not offer a bearer token it refuses.
 */
function securityOf(route: RouteSpec): Record<string, never[]>[] {
  if (route.security === 'none') return [];
  if (route.security === 'admin') return [{ adminKey: [] }];
  if (route.sessionOnly) return [{ sessionCookie: [] }];
  return [{ bearerToken: [] }, { sessionCookie: [] }];
}

const integerHeader = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });

/** Spec §8: the rate-limit headers, on every answer of the public API. */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': integerHeader(
    'Requests allowed in the window of the most restrictive limit that applied',
  ),
  'RateLimit-Remaining': integerHeader('Requests left in that window'),
  'RateLimit-Reset': integerHeader('Seconds until that window resets'),
};

/** The error answers every operation refers to (spec §7), with the error envelope. */
function errorResponses(components: Components) {
  const envelope = (description: string, headers?: Record<string, unknown>) => ({
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: jsonSchema(ErrorEnvelope, 'output', components) } },
  });
  return {
    ServerError: envelope(
      'INTERNAL_ERROR (500): Verdict failed, retry with backoff (spec §7); SERVICE_UNAVAILABLE (503): a store, ' +
        'the bus or a read model it needs is not available yet',
    ),
    PayloadTooLarge: envelope('PAYLOAD_TOO_LARGE: the body is larger than this operation accepts'),
    HeadersTooLarge: envelope('HEADERS_TOO_LARGE: the URL and headers exceed 16 KB'),
    ValidationError: envelope('VALIDATION_ERROR: a missing or invalid query, path or body parameter, named'),
    NotFound: envelope('NOT_FOUND: the resource is missing or not accessible to the token'),
    Unauthorized: envelope('UNAUTHORIZED: token missing, invalid, unknown, expired or revoked'),
    Forbidden: envelope('FORBIDDEN: valid token but wrong project, missing scope, or insufficient role'),
    RateLimited: envelope('RATE_LIMIT_EXCEEDED: a rate limit of spec §8 was exceeded', {
      ...RATE_LIMIT_HEADERS,
      'Retry-After': integerHeader('Seconds to wait before trying again'),
    }),
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
  const schemas: Components = {};
  for (const group of options.groups) {
    const prefix = group.prefixes[0] ?? '';
    const operations = new Map(
      group.routes.map((route) => [
        `${route.method} ${route.path}`,
        { operationId: operationIdOf(route.method, `${prefix}${route.path}`), route },
      ]),
    );
    for (const { operationId, route } of operations.values()) {
      const item = (paths[`${prefix}${route.path}`] ??= {});
      item[route.method] = operationOf(route, operationId, operations, schemas);
    }
  }
  return {
    // No jsonSchemaDialect: 3.1's default dialect is draft 2020-12 with OpenAPI's vocabulary, which is what
    // the schemas are; naming another one makes Swagger UI show a warning as the first thing of /docs.
    openapi: '3.1.0',
    info: {
      title: options.title,
      version: options.version,
      ...(options.description ? { description: options.description } : {}),
    },
    servers: [{ url: options.serverUrl }],
    components: {
      schemas,
      responses: errorResponses(schemas),
      securitySchemes: {
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'A personal (svc_pat_…) or project (svcp_…) token',
        },
        adminKey: { type: 'http', scheme: 'bearer', description: 'VERDICT_ADMIN_KEY' },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'verdict_session',
          description:
            'A web session opened by POST /session (httpOnly); a write made with it also sends X-CSRF-Token',
        },
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
