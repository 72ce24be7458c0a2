/**
 * The suspect commits' route (issue 31). Only this one of the failure-analysis routes is bound here; the
 * errors explorer and the run comparison are bound by their slices.
 */
import { failureAnalysisRoutes } from '@verdict/contracts';
import { bindRoutes, type BoundRoute } from '@verdict/platform';
import type { TestResultsReadStore } from '../readStore';
import { suspectCommits } from './query';

const PATH = '/{projectId}/test-cases/{caseId}/suspect-commits';
type SuspectsRoute = Extract<(typeof failureAnalysisRoutes)[number], { path: typeof PATH }>;

const suspectsRoutes = failureAnalysisRoutes.filter((route): route is SuspectsRoute => route.path === PATH);

/**
 * The suspect commits route, paths relative to the service root.
 *
 * @example registerRoutes(router, createSuspectsRoutes({ db, schemas: readModelSchemas() }));
 */
export function createSuspectsRoutes(store: TestResultsReadStore): BoundRoute[] {
  return bindRoutes(suspectsRoutes, {
    'get /{projectId}/test-cases/{caseId}/suspect-commits': ({ params, query }, { projectId }) =>
      suspectCommits(store, projectId, params.caseId, query),
  });
}
