import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';

export const releasesRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/releases',
  component: lazyRouteComponent(() => import('./ReleasesPage'), 'ReleasesPage'),
});
