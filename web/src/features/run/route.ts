import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { runQuery } from '../../api/queries';
import { projectRoute } from '../../app/routes';
import { validateRunSearch } from './search';

export const runRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/runs/$runId',
  validateSearch: validateRunSearch,
  // The run starts loading with the page's code, not after it.
  loader: ({ context, params }) => {
    void context.queryClient.prefetchQuery(runQuery(params.projectId, params.runId));
  },
  component: lazyRouteComponent(() => import('./RunPage'), 'RunPage'),
});
