import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';

export const settingsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/settings',
  component: lazyRouteComponent(() => import('./SettingsPage'), 'SettingsPage'),
});
