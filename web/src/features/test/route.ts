import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';
import { integer, text, type Raw } from '../../search';

export const testRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/runs/$runId/tests/$caseId',
  validateSearch: (raw: Raw): { attempt?: number; project?: string } => ({
    attempt: integer(raw, 'attempt'),
    project: text(raw, 'project'),
  }),
  component: lazyRouteComponent(() => import('./TestPage'), 'TestPage'),
});
