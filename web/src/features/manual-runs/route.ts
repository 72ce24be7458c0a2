import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';
import { text, type Raw } from '../../search';

export const manualRunRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/manual-runs/$runId',
  validateSearch: (raw: Raw): { case?: string } => ({ case: text(raw, 'case') }),
  component: lazyRouteComponent(() => import('./ManualRunPage'), 'ManualRunPage'),
});
