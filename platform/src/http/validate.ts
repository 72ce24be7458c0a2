import type { Request } from 'express';
import { z } from 'zod';
import { ValidationError } from '../errors';
import { storable } from './storable';

/**
 * Request parsing at the HTTP boundary: a zod schema in, typed data out, or a ValidationError whose
 * message names each offending parameter and why ("limit: must be at most 100"). Clients read these
 * messages, so they speak of parameters and fields, not of zod types.
 */

type Issue = z.core.$ZodIssue;
type Where = 'query' | 'body' | 'params';

export interface ParseQueryOptions {
  /**
   * Query parameters that may be sent more than once (they reach the schema as arrays). Any other
   * repeated parameter is rejected: the spec lists no repeatable parameter, and the debug bundle must
   * reject "any parameter sent more than once".
   */
  allowRepeated?: readonly string[];
}

/**
 * Parses the query string. Values stay raw (strings, or arrays for repeated parameters), so use
 * `z.coerce.number()` for numbers.
 *
 * @example const { page, limit } = parseQuery(ListQuery, req);
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  req: Request,
  options: ParseQueryOptions = {},
): z.output<S> {
  const allowed = new Set(options.allowRepeated ?? []);
  rejectRepeatedParams(
    req,
    repeatedParams(req).filter((name) => !allowed.has(name)),
  );
  return parseWith(schema, req.query, 'query');
}

/**
 * Parses a JSON body. A body in a media type the JSON parser did not read is said to be that, not "a
 * missing body": still a 400 VALIDATION_ERROR, the code spec §7 gives an invalid body.
 *
 * @example const command = parseBody(StartRunRequest, req);
 */
export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  if (req.body === undefined && hasBody(req)) {
    throw new ValidationError('body: must be JSON, sent with Content-Type: application/json');
  }
  return parseWith(schema, req.body, 'body');
}

/**
 * Parses route parameters.
 *
 * @example const { projectId, runId } = parseParams(RunPath, req);
 */
export function parseParams<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  // A NUL (%00) in a path segment is U+FFFD, as in query strings and bodies: PostgreSQL refuses it.
  return parseWith(schema, storable(req.params), 'params');
}

/**
 * Throws a ValidationError when one of `names` (default: every parameter) occurs more than once in the
 * query string. Reads the raw query string, since a schema may coerce an array beyond recognition.
 *
 * @example rejectRepeatedParams(req); // the debug bundle: "any parameter sent more than once"
 */
export function rejectRepeatedParams(req: Request, names?: readonly string[]): void {
  const checked = names === undefined ? undefined : new Set(names);
  const offending = repeatedParams(req).filter((name) => checked === undefined || checked.has(name));
  if (offending.length > 0) {
    throw new ValidationError(
      offending.map((name) => `${name}: must not be sent more than once`).join('; '),
      {
        repeated: offending,
      },
    );
  }
}

/** Names of query parameters that occur more than once, in order of first appearance. */
function repeatedParams(req: Request): string[] {
  const url = req.originalUrl ?? req.url;
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return [];
  const counts = new Map<string, number>();
  for (const name of new URLSearchParams(url.slice(queryStart + 1)).keys()) {
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].filter(([, count]) => count > 1).map(([name]) => name);
}

/**
 * `schema.safeParse`, where input nested deeper than the stack allows (steps inside steps a thousand
 * levels down) is one issue, "is nested too deeply", rather than a RangeError and a 500. Recursive schemas
 * descend the stack once a level; catching the overflow costs nothing on the input that fits.
 *
 * @example const parsed = safeParseNested(ResultItem, item);
 */
export function safeParseNested<T>(
  schema: z.ZodType<T>,
  input: unknown,
  params?: z.core.ParseContext<z.core.$ZodIssue>,
): z.ZodSafeParseResult<T> {
  try {
    return schema.safeParse(input, params);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const issue: z.core.$ZodIssue = { code: 'custom', path: [], message: 'is nested too deeply', input };
    return { success: false, error: new z.ZodError([issue]) as z.ZodError<T> };
  }
}

function parseWith<S extends z.ZodType>(schema: S, input: unknown, where: Where): z.output<S> {
  // Schema-level messages still win over this map (zod's precedence), so a contract can word its own.
  const result = safeParseNested(schema as z.ZodType<z.output<S>>, input, {
    error: (issue) => describeRawIssue(issue, where),
  });
  if (!result.success) {
    throw new ValidationError(describeIssues(result.error.issues, where), {
      where,
      issues: result.error.issues,
    });
  }
  return result.data;
}

/**
 * One line per issue, "path: reason", joined by "; ". Also used by the error middleware for a ZodError
 * thrown outside these helpers.
 */
export function describeIssues(issues: readonly Issue[], root = 'request'): string {
  // A value of the wrong type gets one message: zod may still check a string's length against an array's
  // bound ("must be an array; must be at most 10 characters").
  const mistyped = new Set(
    issues.filter((issue) => issue.code === 'invalid_type').map((issue) => formatPath(issue.path, root)),
  );
  return issues
    .filter((issue) => issue.code === 'invalid_type' || !mistyped.has(formatPath(issue.path, root)))
    .flatMap((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${formatPath([...issue.path, key], root)}: is not allowed`)
        : [`${formatPath(issue.path, root)}: ${issue.message}`],
    )
    .join('; ');
}

/** ['items', 0, 'name'] → "items[0].name"; the empty path is the part of the request itself. */
function formatPath(path: readonly PropertyKey[], root: string): string {
  if (path.length === 0) return root;
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      const name = String(segment);
      return index === 0 ? name : `.${name}`;
    })
    .join('');
}

/** A zod per-parse error map in the words of an API reference. Undefined falls back to zod's message. */
function describeRawIssue(issue: z.core.$ZodRawIssue, where: Where): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      // A query parameter sent twice arrives as an array; in a body an array is just the wrong type.
      if (where === 'query' && Array.isArray(issue.input) && issue.expected !== 'array')
        return 'must not be sent more than once';
      return `must be ${article(typeName(issue.expected))}`;
    case 'too_big':
      return `must be ${issue.inclusive ? 'at most' : 'less than'} ${bound(issue.origin, issue.maximum)}`;
    case 'too_small':
      if (issue.origin === 'string' && issue.minimum === 1) return 'must not be empty';
      return `must be ${issue.inclusive ? 'at least' : 'more than'} ${bound(issue.origin, issue.minimum)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'has an invalid format' : `must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return 'is not allowed';
    case 'invalid_union':
      return 'is invalid';
    default:
      return undefined;
  }
}

function typeName(expected: string): string {
  return expected === 'int' ? 'integer' : expected;
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** "100" for numbers, "500 characters" for strings, "1000 items" for arrays. */
function bound(origin: string, limit: number | bigint): string {
  const value = String(limit);
  if (origin === 'string') return `${value} characters`;
  if (origin === 'array' || origin === 'set') return `${value} items`;
  return value;
}

/** A request has a body when it announces a non-empty one (an empty body is a missing body). */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}
