// NUL characters in what a request carries. PostgreSQL stores no NUL in text or JSON, and a query with
// one fails: bodies, query strings and path segments get U+FFFD in its place, in one way everywhere.
import querystring from 'node:querystring';

/** How JSON text escapes a NUL: a body without it holds none, and is not walked. */
export const ESCAPED_NUL = '\\u0000';

/** The query string as Express's 'simple' parser reads it, with NUL characters replaced as withoutNul does. */
export function parseQueryString(text: string | null | undefined): unknown {
  // Express passes null for a URL without a query string.
  const query = querystring.parse(text ?? '');
  return text?.includes('%00') || text?.includes('\u0000') ? withoutNul(query) : query;
}

/**
 * JSON.parse of one JSON text, with NUL characters replaced as withoutNul does; the value is walked only
 * when the text holds the escape.
 *
 * @example parseJsonWithoutNul('{"stdout":["a\\u0000b"]}'); // { stdout: ['a\uFFFDb'] }
 */
export function parseJsonWithoutNul(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return text.includes(ESCAPED_NUL) ? withoutNul(value) : value;
}

/**
 * The value with every NUL character in its strings and keys replaced by U+FFFD. PostgreSQL stores no NUL
 * in text or JSON, and test output sometimes carries one (a binary written to stdout): the request is
 * kept, with the character a reader can see was there.
 *
 * @example withoutNul({ stdout: ['a\u0000b'] }); // { stdout: ['a\uFFFDb'] }
 */
export function withoutNul(value: unknown): unknown {
  if (typeof value === 'string')
    return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
  if (Array.isArray(value)) return value.map(withoutNul);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key.replaceAll('\u0000', '\uFFFD'), withoutNul(item)]),
    );
  }
  return value;
}
