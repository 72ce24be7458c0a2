import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';

export const organizationRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/organization',
  component: lazyRouteComponent(() => import('./OrganizationPage'), 'OrganizationPage'),
});
