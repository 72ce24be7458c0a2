import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { rootRoute } from '../../app/routes';
import { text, type Raw } from '../../search';

export const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/sign-in',
  validateSearch: (raw: Raw): { next?: string } => ({ next: text(raw, 'next') }),
  component: lazyRouteComponent(() => import('./SignInPage'), 'SignInPage'),
});
