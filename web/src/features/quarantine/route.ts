import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';
import { validateQuarantineSearch } from './search';

export const quarantineRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/quarantine',
  validateSearch: validateQuarantineSearch,
  component: lazyRouteComponent(() => import('./QuarantinePage'), 'QuarantinePage'),
});
