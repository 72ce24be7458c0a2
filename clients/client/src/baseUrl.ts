import { VerdictConfigError } from './errors';

/** The two API prefixes of spec §1 (either spelling is the public API). */
const PUBLIC_PREFIXES = ['/api/public/v1', '/api/v1/public'];
const PUBLIC_PREFIX = '/api/public/v1';
const ADMIN_PREFIX = '/admin/v1';

export interface ApiBases {
  /** The public API base, e.g. `http://localhost:8080/api/public/v1`. */
  api: URL;
  /** The administration API base, e.g. `http://localhost:8080/admin/v1`. */
  admin: URL;
}

/**
 * The API bases of what a user calls the server's address: its origin (`http://localhost:8080`), the
 * address it is served under behind a proxy (`https://ci.example.com/verdict`), or a full public API base
 * (`…/api/public/v1` or `…/api/v1/public`, kept as given). A relative address (`/`) is resolved against
 * the page's location in a browser.
 */
export function apiBases(baseUrl: string): ApiBases {
  let url: URL;
  try {
    const page = (globalThis as { location?: { href?: string } }).location?.href;
    url = new URL(baseUrl, page);
  } catch {
    throw new VerdictConfigError(
      `baseUrl: ${JSON.stringify(baseUrl)} is not a URL (e.g. http://localhost:8080)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new VerdictConfigError(`baseUrl: ${baseUrl} must be an http:// or https:// address`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  const prefix = PUBLIC_PREFIXES.find((candidate) => path.toLowerCase().endsWith(candidate));
  const root = prefix ? path.slice(0, path.length - prefix.length) : path;
  const at = (pathname: string) => new URL(`${url.origin}${pathname}`);
  return { api: at(prefix ? path : `${root}${PUBLIC_PREFIX}`), admin: at(`${root}${ADMIN_PREFIX}`) };
}
