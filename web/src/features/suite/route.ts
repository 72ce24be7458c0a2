import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';

export const suiteRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/runs/$runId/suites/$suiteId',
  component: lazyRouteComponent(() => import('./SuitePage'), 'SuitePage'),
});
