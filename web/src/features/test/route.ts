import { createRoute, lazyRouteComponent, redirect } from '@tanstack/react-router';
import { projectRoute } from '../../app/routes';
import { integer, text, type Raw } from '../../search';
import { testHistoryQuery } from './api';

export const testRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/runs/$runId/tests/$caseId',
  validateSearch: (raw: Raw): { attempt?: number; project?: string } => ({
    attempt: integer(raw, 'attempt'),
    project: text(raw, 'project'),
  }),
  component: lazyRouteComponent(() => import('./TestPage'), 'TestPage'),
});

/**
 * A test without a run (the quarantine page's links): its page in its latest run, on the platform asked
 * for when it ran there.
 */
export const latestTestRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: '/tests/$caseId',
  validateSearch: (raw: Raw): { project?: string } => ({ project: text(raw, 'project') }),
  loaderDeps: ({ search }) => ({ project: search.project }),
  loader: async ({ context, params, deps }) => {
    const detail = await context.queryClient.fetchQuery(testHistoryQuery(params.projectId, params.caseId));
    const items = detail.history?.items ?? [];
    const latest = items.find((item) => !deps.project || item.project === deps.project) ?? items[0];
    if (!latest) return { title: detail.titlePath.join(' › ') };
    throw redirect({
      to: '/projects/$projectId/runs/$runId/tests/$caseId',
      params: { projectId: params.projectId, runId: latest.runId, caseId: params.caseId },
      search: latest.project ? { project: latest.project } : {},
      replace: true,
    });
  },
  component: lazyRouteComponent(() => import('./NoRunYet'), 'NoRunYet'),
});
