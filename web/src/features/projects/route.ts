import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { signedInRoute } from '../../app/routes';

export const projectsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/projects',
  component: lazyRouteComponent(() => import('./ProjectsPage'), 'ProjectsPage'),
});
