import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';
import { validateRunsSearch } from './search';

export const runsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/runs',
  validateSearch: validateRunsSearch,
  component: lazyRouteComponent(() => import('./RunsPage'), 'RunsPage'),
});
