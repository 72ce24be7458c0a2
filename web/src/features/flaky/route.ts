import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';
import { ANALYTICS_RANGES, integer, oneOf, type Raw } from '../../search';

export const flakyRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/flaky',
  validateSearch: (raw: Raw): { range?: (typeof ANALYTICS_RANGES)[number]; page?: number } => ({
    range: oneOf(raw, 'range', ANALYTICS_RANGES),
    page: integer(raw, 'page', 1),
  }),
  component: lazyRouteComponent(() => import('./FlakyPage'), 'FlakyPage'),
});
