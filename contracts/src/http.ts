import { z } from 'zod';

/**
 * A route of the public API as data: method, path, parameters, body, answers and who may call it, each a
 * zod schema or a plain value. The platform's route binder validates a request from it and hands the
 * service's handler typed input; the gateway routes by it and builds the OpenAPI document from it. Keeping
 * it here lets the gateway know every service's routes without importing them.
 */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The roles of an organization's members (spec §5.4), as the internal identity carries them. */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Spec §5.4: every member of the organization reads. */
export const READER_ROLES = ROLES;
/** Spec §5.4: owners, admins and members write; a viewer only reads. */
export const WRITER_ROLES = ['owner', 'admin', 'member'] as const satisfies readonly Role[];
/** Spec §4.9: only owners and admins manage webhooks. */
export const ADMIN_ROLES = ['owner', 'admin'] as const satisfies readonly Role[];

export interface ResponseSpec {
  description: string;
  /** The schema of the whole body (envelope included); omitted for bodies that are not JSON. */
  schema?: z.ZodType;
  contentType?: string;
}

/**
 * An OpenAPI link: what a client can call next with what a route's success answered (start a run, then
 * send it results). The document states it on every 2xx answer of the route, so that a client, a code
 * generator or a fuzzer can follow it instead of guessing.
 */
export interface RouteLink {
  /** The route it leads to, in the same document, as `method path`. */
  to: `${HttpMethod} /${string}`;
  /**
   * The target's path parameters the answer gives, as runtime expressions (`$response.body#/data/id`).
   * A parameter the route's own path has too (the project) is passed on without being named.
   */
  parameters: Readonly<Record<string, `$response.body#/${string}`>>;
}

/** What every route declares, whoever may call it. */
interface RouteSpecBase {
  method: HttpMethod;
  /** OpenAPI-style path relative to where the routes are mounted, e.g. `/{projectId}/token-info`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Content types of the body when it is not (only) JSON. */
  bodyContentTypes?: readonly string[];
  /** False when the route takes a request without a body as an empty one (default true). */
  bodyRequired?: boolean;
  /** Query parameters that may be sent more than once (they reach the query schema as arrays). */
  repeatableQuery?: readonly string[];
  /**
   * Parts of the request the handler reads itself instead of the binder; their schemas above only
   * document them. `query`: rules across parameters that need the raw query string (the debug bundle).
   * `body`: a streamed or non-JSON body (multipart uploads, NDJSON, XML) or one a parser of its own
   * words refusals for (a Playwright report). Every other part reaches the handler validated.
   */
  rawInput?: readonly ('query' | 'body')[];
  responses: Readonly<Record<number, ResponseSpec>>;
  /** Where its success leads, by the link's name (an OpenAPI `links` entry on each 2xx answer). */
  links?: Readonly<Record<string, RouteLink>>;
}

/**
 * A route as data. A `bearer` route (a user or project token) names the project in its path and the roles
 * that may call it: the binder refuses any other with 403 FORBIDDEN, whatever reached the service. An
 * `admin` route is opened by the admin key, a `none` route by nobody. A `sessionOnly` bearer route is
 * opened by the web session alone (issuing and revoking one's own tokens): a bearer token gets 403.
 */
export type RouteSpec = RouteSpecBase &
  (
    | { security: 'bearer'; roles: readonly Role[]; sessionOnly?: boolean }
    | { security: 'admin' | 'none'; roles?: undefined; sessionOnly?: undefined }
  );

/**
 * Declares a list of routes, keeping each one's literal method, path and schemas, so that a binder can
 * type each handler's input from its declaration.
 *
 * @example export const webhookRoutes = defineRoutes([{ method: 'get', path: '/{projectId}/webhooks', … }]);
 */
export function defineRoutes<const Routes extends readonly RouteSpec[]>(routes: Routes): Routes {
  return routes;
}

// RFC 9110 media type: token/token with `; name=value` parameters. Free of control characters, because
// a media type given by a client is sent back verbatim as a response header.
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
/** Matches a media type such as `image/png` or `text/plain; charset=utf-8`. */
export const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\\\x00-\\x1f\\x7f]*"))*$`,
);

/**
 * The largest integer a read model keeps in a column (PostgreSQL `integer`): a count or limit a client
 * sends is refused above it, rather than accepted and then refused by the projection (a dead letter).
 */
export const STORED_INTEGER_MAX = 2_147_483_647;

/**
 * An integer query parameter: plain decimal digits only (`007` is 7), so that `1e1`, `0x10`, `1.0`, `+5` or
 * ` 1` are a 400 rather than whatever `Number()` makes of them; from `min` to `max`, `fallback` when absent.
 * The OpenAPI document shows it as the integer it is.
 *
 * @example const limit = queryInteger({ min: 1, max: 100, fallback: 20 });
 */
export function queryInteger(bounds: { min: number; max?: number; fallback: number }) {
  const max = bounds.max ?? STORED_INTEGER_MAX;
  return (
    z
      .string()
      .regex(/^[0-9]+$/, {
        // `-1` is an integer, just not one allowed here: say the bound rather than "not an integer".
        error: (issue) =>
          typeof issue.input === 'string' && /^-[0-9]+$/.test(issue.input)
            ? `must be at least ${bounds.min}`
            : 'must be an integer',
      })
      // Checked here rather than by a number schema: a value past the safe integers is one issue, "too
      // big", rather than that and "not a safe integer", and it is never rounded into range.
      .transform((digits, ctx) => {
        const value = Number(digits);
        if (value < bounds.min) {
          ctx.addIssue({
            code: 'too_small',
            origin: 'number',
            minimum: bounds.min,
            inclusive: true,
            input: digits,
          });
          return z.NEVER;
        }
        if (value > max) {
          ctx.addIssue({ code: 'too_big', origin: 'number', maximum: max, inclusive: true, input: digits });
          return z.NEVER;
        }
        return value;
      })
      .prefault(String(bounds.fallback))
      // The string shape above is how it is parsed, not what a client sends: an integer, in bounds.
      .meta({
        type: 'integer',
        minimum: bounds.min,
        // Without a bound of its own, what a column holds: past it a value is refused, not rounded.
        maximum: max,
        default: bounds.fallback,
        pattern: undefined,
      })
  );
}

/** What String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), as a character class body. */
const TRIMMED = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** A pattern that a string passes when trimming leaves something: the document's form of `.trim().min(1)`. */
export const NOT_BLANK_PATTERN = `[^${TRIMMED}]`;

/**
 * A comma-separated query parameter, split into its trimmed entries: none may be empty, at most `max` of
 * them, and with `values` each one of those. The OpenAPI document shows the same rules as a pattern, so a
 * client (or a fuzzer) knows that `include=` or `tags=a,,b` is refused before sending it.
 *
 * @example const urls = commaList('URLs', { max: 100 });
 */
export function commaList<const V extends readonly string[] = readonly string[]>(
  what: string,
  options: { max?: number; values?: V } = {},
) {
  const { max, values } = options;
  const entry =
    values === undefined
      ? `[^,]*[^,${TRIMMED}][^,]*`
      : `[${TRIMMED}]*(?:${values.map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})[${TRIMMED}]*`;
  const more = max === undefined ? '*' : `{0,${max - 1}}`;
  const allowed = new Set<string>(values ?? []);
  return z
    .string()
    .transform((value, ctx) => {
      const entries = value.split(',').map((item) => item.trim());
      if (entries.some((item) => item === '')) {
        ctx.addIssue({
          code: 'custom',
          message: `must be a comma-separated list of ${what} without empty entries`,
        });
        return z.NEVER;
      }
      if (max !== undefined && entries.length > max) {
        ctx.addIssue({ code: 'custom', message: `must list at most ${max} ${what}` });
        return z.NEVER;
      }
      const unknown = values === undefined ? [] : entries.filter((item) => !allowed.has(item));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown value ${unknown.map((item) => JSON.stringify(item)).join(', ')}; must be a comma-separated list of ${(values ?? []).join(', ')}`,
        });
        return z.NEVER;
      }
      return entries as V extends readonly [] ? string[] : V[number][];
    })
    .meta({ minLength: 1, pattern: `^${entry}(?:,${entry})${more}$` });
}
