/**
 * The run comparison's route (issue 31). Only this one of the failure-analysis routes is bound here; the
 * errors explorer and suspect commits are bound by their slices.
 */
import { failureAnalysisRoutes } from '@verdict/contracts';
import { bindRoutes, NotFoundError, type BoundRoute } from '@verdict/platform';
import type { TestResultsReadStore } from '../readStore';
import { compareRuns } from './query';

const PATH = '/{projectId}/test-runs/{runId}/compare';
type CompareRoute = Extract<(typeof failureAnalysisRoutes)[number], { path: typeof PATH }>;

const compareRoutes = failureAnalysisRoutes.filter((route): route is CompareRoute => route.path === PATH);

/**
 * The comparison route, paths relative to the service root.
 *
 * @example registerRoutes(router, createCompareRoutes({ db, schemas: readModelSchemas() }));
 */
export function createCompareRoutes(store: TestResultsReadStore): BoundRoute[] {
  return bindRoutes(compareRoutes, {
    'get /{projectId}/test-runs/{runId}/compare': async ({ params, query }, { projectId }) => {
      const comparison = await compareRuns(store, projectId, params.runId, query);
      if (!comparison) throw new NotFoundError('Test run not found');
      return comparison;
    },
  });
}
