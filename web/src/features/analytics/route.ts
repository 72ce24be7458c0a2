import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';
import { ANALYTICS_RANGES, oneOf, text, type Raw } from '../../search';

export const analyticsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/analytics',
  validateSearch: (
    raw: Raw,
  ): { range?: (typeof ANALYTICS_RANGES)[number]; environment?: string; branch?: string } => ({
    range: oneOf(raw, 'range', ANALYTICS_RANGES),
    environment: text(raw, 'environment'),
    branch: text(raw, 'branch'),
  }),
  component: lazyRouteComponent(() => import('./AnalyticsPage'), 'AnalyticsPage'),
});
