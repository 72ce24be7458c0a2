import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';
import { validateExplorerSearch } from './search';

export const explorerRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/explorer',
  validateSearch: validateExplorerSearch,
  component: lazyRouteComponent(() => import('./ExplorerPage'), 'ExplorerPage'),
});
