import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';

export const dashboardRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/dashboard',
  component: lazyRouteComponent(() => import('./DashboardPage'), 'DashboardPage'),
});
