/**
 * The analytics routes (spec §4.6–§4.8, API.md). The binder has checked the caller's project and role;
 * every query reads only that project.
 */
import { analyticsRoutes } from '@verdict/contracts';
import {
  bindRoutes,
  reply,
  type BoundRoute,
  type Clock,
  type ReadStore,
  type SqlExecutor,
} from '@verdict/platform';
import { explore } from './queries/explorer';
import { dashboardOf, executionPerformance, filtersOf } from './queries/overview';
import { analyticsSummary } from './queries/summary';
import { usageOf } from './queries/usage';
import { periodReport, runReport } from './reports/content';
import { renderReport } from './reports/pdf';

export interface AnalyticsRoutesOptions {
  db: SqlExecutor;
  /** Schema of the analytics read model. */
  schema: string;
  /** Schema of the organizations read model. */
  organizations: string;
  clock: Clock;
  /** VERDICT_PUBLIC_URL: where a report's links to the web app point. */
  publicUrl: string;
}

/**
 * @example registerRoutes(router, createAnalyticsRoutes({ db, schema, organizations, clock }));
 */
export function createAnalyticsRoutes(options: AnalyticsRoutesOptions): BoundRoute[] {
  const store: ReadStore = { db: options.db, schema: options.schema };
  const now = () => options.clock.now();
  return bindRoutes(analyticsRoutes, {
    'get /{projectId}/test-case-explorer': ({ query }, { projectId }) =>
      explore(store, projectId, query, now()),
    'get /{projectId}/analytics/summary': ({ query }, { projectId }) =>
      analyticsSummary(store, projectId, query, now()),
    'get /{projectId}/analytics/execution-performance': ({ query }, { projectId }) =>
      executionPerformance(store, projectId, query, now()),
    'get /{projectId}/usage': (_input, { projectId }) =>
      usageOf({ ...store, organizations: options.organizations }, projectId, now()),
    'get /{projectId}/dashboard': (_input, { projectId }) => dashboardOf(store, projectId, now()),
    'get /{projectId}/filters': (_input, { projectId }) => filtersOf(store, projectId),
    'post /{projectId}/reports': async ({ body }, { projectId }) => {
      const at = now();
      const content =
        body.runId !== undefined
          ? await runReport(store, projectId, body.runId, at, options.publicUrl)
          : await periodReport(store, projectId, body.dateRange ?? '30d', at);
      const name = body.runId !== undefined ? `run-${body.runId}` : `report-${body.dateRange ?? '30d'}`;
      return reply.body('application/pdf', await renderReport(content), {
        filename: `${name.replace(/[^A-Za-z0-9_-]/g, '_')}.pdf`,
      });
    },
  });
}
