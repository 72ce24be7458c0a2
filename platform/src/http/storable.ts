// Characters PostgreSQL cannot store, in what a request carries: a NUL (no text or JSON value holds one)
// and a lone UTF-16 surrogate (`"\ud800"` is valid JSON text, but json and jsonb refuse it, and text stores
// it as garbage). A query with either fails, so bodies, query strings and path segments get U+FFFD in
// their place, in one way everywhere, and the request is kept with a character a reader can see was there.
import querystring from 'node:querystring';
import { assertJsonDepth } from './jsonDepth';

/** A NUL, or a surrogate without its other half. */
// eslint-disable-next-line no-control-regex -- the NUL is what this looks for.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Whether JSON text may hold an unstorable character: only escapes can put one there (`\u0000`, `\ud800`;
 * UTF-8 has no bytes for a lone surrogate). Text without them is not walked, which keeps large ingest
 * bodies cheap; `\ud` also matches ordinary escapes (`\ud55c`), which are merely walked for nothing.
 */
export function mayHoldUnstorable(text: string | Buffer): boolean {
  return text.includes('\\u0000') || text.includes('\\ud') || text.includes('\\uD');
}

/** The query string as Express's 'simple' parser reads it, with unstorable characters replaced. */
export function parseQueryString(text: string | null | undefined): unknown {
  // Express passes null for a URL without a query string.
  const query = querystring.parse(text ?? '');
  // Percent-encoded bytes decode as UTF-8, which has no lone surrogates: only a NUL needs looking for.
  return text?.includes('%00') || text?.includes('\u0000') ? storable(query) : query;
}

/**
 * JSON.parse of one JSON text, with unstorable characters replaced; the value is walked only when the text
 * may hold one. Nesting deeper than MAX_JSON_DEPTH is a ValidationError.
 *
 * @example parseStorableJson('{"stdout":["a\\u0000b"]}'); // { stdout: ['a\uFFFDb'] }
 */
export function parseStorableJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  assertJsonDepth(value);
  return mayHoldUnstorable(text) ? storable(value) : value;
}

/**
 * The value with every NUL and lone surrogate in its strings and keys replaced by U+FFFD. Test output
 * sometimes carries either (a binary written to stdout, a string cut in the middle of an emoji).
 *
 * @example storable({ stdout: ['a\u0000b', '\ud800'] }); // { stdout: ['a\uFFFDb', '\uFFFD'] }
 */
export function storable(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [storableText(key), storable(item)]),
    );
  }
  return value;
}

/** One string with its NULs and lone surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE, '\uFFFD') : text;
}
