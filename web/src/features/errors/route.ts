import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';
import { validateErrorGroupSearch, validateErrorsSearch } from './search';

export const errorsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/errors',
  validateSearch: validateErrorsSearch,
  component: lazyRouteComponent(() => import('./ErrorsPage'), 'ErrorsPage'),
});

export const errorGroupRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/errors/$signatureId',
  validateSearch: validateErrorGroupSearch,
  component: lazyRouteComponent(() => import('./ErrorGroupPage'), 'ErrorGroupPage'),
});
