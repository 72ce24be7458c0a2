/**
 * The app's routes, typed: every page is a deep link (the debug bundle's `links.uiUrl` points at the run,
 * suite and test pages), and each is a route module with its loader and its states. Pages other than
 * sign-in need a session: without one the app goes to sign-in and comes back after.
 */
import type { QueryClient } from '@tanstack/react-query';
import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  lazyRouteComponent,
  redirect,
} from '@tanstack/react-router';
import { isSignedOut } from './api/client';
import { queryClient, whenSignedOut } from './api/queryClient';
import { runQuery, sessionQuery } from './api/queries';
import { AppLayout } from './components/AppLayout';
import { LoadingState, NotFoundPage, RootErrorPage } from './components/states';
import { integer, oneOf, text } from './search';
import {
  AUTOMATION_STATUSES,
  BEHAVIORS,
  CASE_STATUSES,
  CASE_TYPES,
  LAYERS,
  PRIORITIES,
  SEVERITIES,
} from './manual/values';

type Raw = Record<string, unknown>;

interface RouterContext {
  queryClient: QueryClient;
}

const rootRoute = createRootRouteWithContext<RouterContext>()({
  notFoundComponent: NotFoundPage,
  errorComponent: RootErrorPage,
});

export const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/sign-in',
  validateSearch: (raw: Raw): { next?: string } => ({ next: text(raw, 'next') }),
  component: lazyRouteComponent(() => import('./pages/SignInPage'), 'SignInPage'),
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
const signedInRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signed-in',
  beforeLoad: ({ context }) => {
    void context.queryClient.prefetchQuery(sessionQuery());
  },
  component: AppLayout,
});

const indexRoute = createRoute({
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

export const projectsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/projects',
  component: lazyRouteComponent(() => import('./pages/ProjectsPage'), 'ProjectsPage'),
});

export const projectRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/projects/$projectId',
});

const projectIndexRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/',
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/projects/$projectId/runs', params });
  },
});

export const RUN_STATUSES = ['running', 'finished', 'passed', 'failed'] as const;
export const DATE_RANGES = ['24h', '7d', '30d', '90d'] as const;

export interface RunsSearch {
  page?: number;
  branch?: string;
  environment?: string;
  status?: (typeof RUN_STATUSES)[number];
  range?: (typeof DATE_RANGES)[number];
  search?: string;
}

export const runsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/runs',
  validateSearch: (raw: Raw): RunsSearch => ({
    page: integer(raw, 'page', 1),
    branch: text(raw, 'branch'),
    environment: text(raw, 'environment'),
    status: oneOf(raw, 'status', RUN_STATUSES),
    range: oneOf(raw, 'range', DATE_RANGES),
    search: text(raw, 'search'),
  }),
  component: lazyRouteComponent(() => import('./pages/RunsPage'), 'RunsPage'),
});

export const RUN_FILTERS = ['failed', 'flaky', 'passed', 'skipped'] as const;

export const runRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/runs/$runId',
  validateSearch: (raw: Raw): { status?: (typeof RUN_FILTERS)[number]; platform?: string; q?: string } => ({
    status: oneOf(raw, 'status', RUN_FILTERS),
    platform: text(raw, 'platform'),
    q: text(raw, 'q'),
  }),
  // The run starts loading with the page's code, not after it.
  loader: ({ context, params }) => {
    void context.queryClient.prefetchQuery(runQuery(params.projectId, params.runId));
  },
  component: lazyRouteComponent(() => import('./pages/RunPage'), 'RunPage'),
});

export const testRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/runs/$runId/tests/$caseId',
  validateSearch: (raw: Raw): { attempt?: number; project?: string } => ({
    attempt: integer(raw, 'attempt'),
    project: text(raw, 'project'),
  }),
  component: lazyRouteComponent(() => import('./pages/TestPage'), 'TestPage'),
});

export const suiteRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/runs/$runId/suites/$suiteId',
  component: lazyRouteComponent(() => import('./pages/SuitePage'), 'SuitePage'),
});

export const EXPLORER_SORTS = ['lastExecution', 'failRate', 'avgDuration', 'flakyRate'] as const;
export const EXPLORER_STATUSES = ['passed', 'failed', 'flaky', 'skipped'] as const;

export interface ExplorerSearch {
  page?: number;
  search?: string;
  status?: (typeof EXPLORER_STATUSES)[number];
  platform?: string;
  environment?: string;
  specFilePath?: string;
  days?: number;
  sortBy?: (typeof EXPLORER_SORTS)[number];
  order?: 'asc' | 'desc';
}

export const explorerRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/explorer',
  validateSearch: (raw: Raw): ExplorerSearch => ({
    page: integer(raw, 'page', 1),
    search: text(raw, 'search'),
    status: oneOf(raw, 'status', EXPLORER_STATUSES),
    platform: text(raw, 'platform'),
    environment: text(raw, 'environment'),
    specFilePath: text(raw, 'specFilePath'),
    days: integer(raw, 'days', 1),
    sortBy: oneOf(raw, 'sortBy', EXPLORER_SORTS),
    order: oneOf(raw, 'order', ['asc', 'desc'] as const),
  }),
  component: lazyRouteComponent(() => import('./pages/ExplorerPage'), 'ExplorerPage'),
});

export const ANALYTICS_RANGES = ['7d', '14d', '30d', '60d', '90d'] as const;

export const flakyRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/flaky',
  validateSearch: (raw: Raw): { range?: (typeof ANALYTICS_RANGES)[number]; page?: number } => ({
    range: oneOf(raw, 'range', ANALYTICS_RANGES),
    page: integer(raw, 'page', 1),
  }),
  component: lazyRouteComponent(() => import('./pages/FlakyPage'), 'FlakyPage'),
});

export const dashboardRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/dashboard',
  component: lazyRouteComponent(() => import('./pages/DashboardPage'), 'DashboardPage'),
});

export const analyticsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/analytics',
  validateSearch: (
    raw: Raw,
  ): { range?: (typeof ANALYTICS_RANGES)[number]; environment?: string; branch?: string } => ({
    range: oneOf(raw, 'range', ANALYTICS_RANGES),
    environment: text(raw, 'environment'),
    branch: text(raw, 'branch'),
  }),
  component: lazyRouteComponent(() => import('./pages/AnalyticsPage'), 'AnalyticsPage'),
});

export const organizationRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/organization',
  component: lazyRouteComponent(() => import('./pages/OrganizationPage'), 'OrganizationPage'),
});

export const CASE_SORTS = [
  'caseId',
  'title',
  'updatedAt',
  'status',
  'severity',
  'priority',
  'type',
  'automationStatus',
] as const;
const YES_NO = ['true', 'false'] as const;

export interface CasesSearch {
  page?: number;
  /** A suite's id, or "unassigned" for the cases in no suite. */
  suite?: string;
  search?: string;
  status?: (typeof CASE_STATUSES)[number];
  severity?: (typeof SEVERITIES)[number];
  priority?: (typeof PRIORITIES)[number];
  type?: (typeof CASE_TYPES)[number];
  layer?: (typeof LAYERS)[number];
  behavior?: (typeof BEHAVIORS)[number];
  automationStatus?: (typeof AUTOMATION_STATUSES)[number];
  flaky?: (typeof YES_NO)[number];
  muted?: (typeof YES_NO)[number];
  tags?: string;
  sortBy?: (typeof CASE_SORTS)[number];
  order?: 'asc' | 'desc';
}

export const casesRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/cases',
  validateSearch: (raw: Raw): CasesSearch => ({
    page: integer(raw, 'page', 1),
    suite: text(raw, 'suite'),
    search: text(raw, 'search'),
    status: oneOf(raw, 'status', CASE_STATUSES),
    severity: oneOf(raw, 'severity', SEVERITIES),
    priority: oneOf(raw, 'priority', PRIORITIES),
    type: oneOf(raw, 'type', CASE_TYPES),
    layer: oneOf(raw, 'layer', LAYERS),
    behavior: oneOf(raw, 'behavior', BEHAVIORS),
    automationStatus: oneOf(raw, 'automationStatus', AUTOMATION_STATUSES),
    flaky: oneOf(raw, 'flaky', YES_NO),
    muted: oneOf(raw, 'muted', YES_NO),
    tags: text(raw, 'tags'),
    sortBy: oneOf(raw, 'sortBy', CASE_SORTS),
    order: oneOf(raw, 'order', ['asc', 'desc'] as const),
  }),
  component: lazyRouteComponent(() => import('./pages/CaseLibraryPage'), 'CaseLibraryPage'),
});

export const caseRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/cases/$caseId',
  component: lazyRouteComponent(() => import('./pages/CaseEditorPage'), 'CaseEditorPage'),
});

export const manualRunRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/manual-runs/$runId',
  validateSearch: (raw: Raw): { case?: string } => ({ case: text(raw, 'case') }),
  component: lazyRouteComponent(() => import('./pages/ManualRunPage'), 'ManualRunPage'),
});

export const releasesRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/releases',
  component: lazyRouteComponent(() => import('./pages/ReleasesPage'), 'ReleasesPage'),
});

export const settingsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/settings',
  component: lazyRouteComponent(() => import('./pages/SettingsPage'), 'SettingsPage'),
});

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
      suiteRoute,
      explorerRoute,
      flakyRoute,
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
