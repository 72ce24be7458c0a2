import { SERVICE_ROUTES } from '@verdict/gateway';
import { analyticsRoutes } from '@verdict/analytics';
import { testResultsRoutes } from '@verdict/test-results';

// The embedded gateway forwards by the routes each module says it serves; the distributed gateway and the
// OpenAPI document by SERVICE_ROUTES. A route in one list only is documented but answered 404 in one mode.
const key = (route: { method: string; path: string }) => `${route.method.toUpperCase()} ${route.path}`;

describe('the routes each service serves', () => {
  it.each([
    ['test-results', testResultsRoutes],
    ['analytics', analyticsRoutes],
  ] as const)('when the gateway forwards to %s, then both modes forward the same routes', (name, routes) => {
    expect(routes.map(key).sort()).toEqual(SERVICE_ROUTES[name].map(key).sort());
  });
});
