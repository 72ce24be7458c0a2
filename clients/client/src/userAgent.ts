import { VERSION } from './generated/version';

const isNode = () =>
  typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';

/**
 * The User-Agent header: the one given, else `@verdict/client/<version>` from Node. A browser sends its
 * own (and a page's script setting one would only add a header to every CORS preflight).
 */
export function userAgentHeader(given: string | undefined): Record<string, string> {
  const userAgent = given ?? (isNode() ? `@verdict/client/${VERSION}` : undefined);
  return userAgent ? { 'user-agent': userAgent } : {};
}
