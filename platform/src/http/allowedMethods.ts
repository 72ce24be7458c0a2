import type { Application } from 'express';

/** What this module reads of the router's layers (the `router` package behind Express 5). */
interface StackLayer {
  route?: { methods: Record<string, boolean | undefined> };
  handle?: { stack?: StackLayer[]; router?: { stack?: StackLayer[] } };
  match(path: string): { path: string } | false;
}

/**
 * The methods the routes of an app serve at a path, `HEAD` with `GET`: what a 405's `Allow` lists. Walks
 * the router's stack as dispatch does, into mounted routers and sub-apps with the rest of the path; a
 * path no route serves gives none.
 *
 * @example methodsServing(req.app, '/api/public/v1/p1/test-runs'); // ['GET', 'HEAD', 'POST']
 */
export function methodsServing(app: Application, path: string): string[] {
  const stack = (app as unknown as { router?: { stack?: StackLayer[] } }).router?.stack ?? [];
  const methods = new Set<string>();
  collect(stack, path, methods);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

function collect(stack: readonly StackLayer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    const nested = layer.handle?.stack ?? layer.handle?.router?.stack;
    if (!layer.route && !nested) continue;
    const matched = layer.match(path);
    if (matched === false) continue;
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods))
        if (on && method !== '_all') into.add(method.toUpperCase());
    } else if (nested) {
      collect(nested, path.slice(matched.path.length) || '/', into);
    }
  }
}
