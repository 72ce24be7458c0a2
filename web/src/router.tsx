/**
 * The app's route tree, assembled from the features' routes, and the router. Every page is a deep link
 * (the debug bundle's `links.uiUrl` points at the run, suite and test pages); each feature's `route.ts`
 * holds its path, search and loader. Only main.tsx imports this module: pages read their params and search
 * through `getRouteApi(id)`.
 */
import { createRouter } from '@tanstack/react-router';
import { queryClient, whenSignedOut } from './api/queryClient';
import { indexRoute, projectIndexRoute, projectRoute, rootRoute, signedInRoute } from './app/routes';
import { LoadingState } from './components/states';
import { analyticsRoute } from './features/analytics/route';
import { caseRoute, casesRoute } from './features/cases/route';
import { dashboardRoute } from './features/dashboard/route';
import { errorGroupRoute, errorsRoute } from './features/errors/route';
import { explorerRoute } from './features/explorer/route';
import { flakyRoute } from './features/flaky/route';
import { manualRunRoute } from './features/manual-runs/route';
import { organizationRoute } from './features/organization/route';
import { projectsRoute } from './features/projects/route';
import { quarantineRoute } from './features/quarantine/route';
import { releasesRoute } from './features/releases/route';
import { runRoute } from './features/run/route';
import { runsRoute } from './features/runs/route';
import { settingsRoute } from './features/settings/route';
import { signInRoute } from './features/sign-in/route';
import { suiteRoute } from './features/suite/route';
import { latestTestRoute, testRoute } from './features/test/route';

const routeTree = rootRoute.addChildren([
  signInRoute,
  signedInRoute.addChildren([
    indexRoute,
    projectsRoute,
    projectRoute.addChildren([
      projectIndexRoute,
      runsRoute,
      runRoute,
      testRoute,
      latestTestRoute,
      suiteRoute,
      explorerRoute,
      flakyRoute,
      errorsRoute,
      errorGroupRoute,
      quarantineRoute,
      dashboardRoute,
      analyticsRoute,
      organizationRoute,
      casesRoute,
      caseRoute,
      manualRunRoute,
      releasesRoute,
      settingsRoute,
    ]),
  ]),
]);

export const router = createRouter({
  routeTree,
  context: { queryClient },
  defaultPreload: 'intent',
  // A page whose code or data is still coming shows its loading state at once, and no longer than needed.
  defaultPendingMs: 100,
  defaultPendingMinMs: 0,
  defaultPendingComponent: () => <LoadingState label="Loading…" rows={4} />,
  // Loaders read through the query cache, which decides freshness.
  defaultPreloadStaleTime: 0,
  scrollRestoration: true,
});

whenSignedOut(() => {
  const { pathname, href } = router.state.location;
  if (pathname === '/sign-in') return;
  void router.navigate({ to: '/sign-in', search: { next: href } });
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
