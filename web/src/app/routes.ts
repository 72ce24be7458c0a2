/**
 * The layout routes every feature hangs from: the root, the signed-in layout and a project. Pages other
 * than sign-in need a session: without one the app goes to sign-in and comes back after.
 */
import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, redirect } from '@tanstack/react-router';
import { isSignedOut } from '../api/client';
import { sessionQuery } from '../api/queries';
import { AppLayout } from '../components/AppLayout';
import { NotFoundPage, RootErrorPage } from '../components/states';

export interface RouterContext {
  queryClient: QueryClient;
}

export const rootRoute = createRootRouteWithContext<RouterContext>()({
  notFoundComponent: NotFoundPage,
  errorComponent: RootErrorPage,
});

/** The session, or the way to sign-in when there is none (401): back to `next` after. */
async function sessionOrSignIn(queryClient: QueryClient, next: string) {
  try {
    return await queryClient.ensureQueryData(sessionQuery());
  } catch (error) {
    if (isSignedOut(error)) throw redirect({ to: '/sign-in', search: { next } });
    throw error;
  }
}

/**
 * Every page below needs a session. Its check does not hold the page back: the page's own requests start
 * beside it (a deep link to a big run loads the run at once), and a 401 from any of them, the session's
 * included, leads to sign-in (api/queryClient.ts).
 */
export const signedInRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signed-in',
  beforeLoad: ({ context }) => {
    void context.queryClient.prefetchQuery(sessionQuery());
  },
  component: AppLayout,
});

export const indexRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/',
  beforeLoad: async ({ context, location }) => {
    const session = await sessionOrSignIn(context.queryClient, location.href);
    // One project: straight to its runs; several: the list.
    const [only, ...others] = session.projects;
    if (only && others.length === 0) {
      throw redirect({ to: '/projects/$projectId/runs', params: { projectId: only.id } });
    }
    throw redirect({ to: '/projects' });
  },
});

export const projectRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/projects/$projectId',
});

export const projectIndexRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/',
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/projects/$projectId/runs', params });
  },
});
