import { z } from 'zod';

/**
 * A route of the public API as data: method, path, parameters, body and answers, each a zod schema. The
 * service that owns a route attaches its handlers to it; the gateway routes by it and builds the OpenAPI
 * document from it. Keeping it here lets the gateway know every service's routes without importing them.
 */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  /** The schema of the whole body (envelope included); omitted for bodies that are not JSON. */
  schema?: z.ZodType;
  contentType?: string;
}

export interface RouteSpec {
  method: HttpMethod;
  /** OpenAPI-style path relative to where the routes are mounted, e.g. `/{projectId}/token-info`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** `bearer`: a user or project token; `admin`: the admin key; `none`: open. */
  security: 'bearer' | 'admin' | 'none';
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Content types of the body when it is not (only) JSON. */
  bodyContentTypes?: string[];
  responses: Record<number, ResponseSpec>;
}

// RFC 9110 media type: token/token with `; name=value` parameters. Free of control characters, because
// a media type given by a client is sent back verbatim as a response header.
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
/** Matches a media type such as `image/png` or `text/plain; charset=utf-8`. */
export const MEDIA_TYPE = new RegExp(
  `^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"\\\\\\x00-\\x1f\\x7f]*"))*$`,
);

/**
 * An integer query parameter: plain decimal digits only (`007` is 7), so that `1e1`, `0x10`, `1.0`, `+5` or
 * ` 1` are a 400 rather than whatever `Number()` makes of them; from `min` to `max`, `fallback` when absent.
 * The OpenAPI document shows it as the integer it is.
 *
 * @example const limit = queryInteger({ min: 1, max: 100, fallback: 20 });
 */
export function queryInteger(bounds: { min: number; max?: number; fallback: number }) {
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
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
        ...(bounds.max === undefined ? {} : { maximum: bounds.max }),
        default: bounds.fallback,
        pattern: undefined,
      })
  );
}
