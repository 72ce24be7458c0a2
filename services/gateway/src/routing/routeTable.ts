import type { HttpMethod, RouteSpec } from '@verdict/platform';

/**
 * The declared routes as matchers, so the gateway can tell an unknown path (404 before any token is
 * asked for) from a known one, and knows which service owns a path.
 */
export interface CompiledRoute {
  method: HttpMethod;
  /** As declared: `/{projectId}/test-runs/{runId}`. */
  path: string;
  pattern: RegExp;
  owner: string;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A regular expression matching an OpenAPI path such as `/{projectId}/test-runs/{runId}`. */
export function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (/^\{[A-Za-z0-9_]+\}$/.test(segment) ? '[^/]+' : escape(segment)))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

export function compileRoutes(owner: string, routes: readonly RouteSpec[]): CompiledRoute[] {
  return routes.map((route) => ({
    method: route.method,
    path: route.path,
    pattern: patternOf(route.path),
    owner,
  }));
}

/** The methods the routes of a path take, `HEAD` with `GET` (a 405's `Allow`); none for an unknown path. */
export function methodsOf(table: CompiledRoute[], path: string): string[] {
  const methods = new Set<string>(
    table.filter((route) => route.pattern.test(path)).map((route) => route.method),
  );
  if (methods.has('get')) methods.add('head');
  return [...methods].map((method) => method.toUpperCase()).sort();
}

/** The route a request matches; HEAD is answered by GET routes, as Express does. */
export function findRoute(table: CompiledRoute[], method: string, path: string): CompiledRoute | undefined {
  const wanted = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  return table.find((route) => route.method === wanted && route.pattern.test(path));
}
