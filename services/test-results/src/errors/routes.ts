/**
 * The errors explorer (issue 31): a project's error groups and one group's tests and runs. Only these two
 * of the failure-analysis routes are bound here; comparison and suspect commits are bound by their slices.
 */
import { failureAnalysisRoutes, paginationOf } from '@verdict/contracts';
import {
  bindRoutes,
  NotFoundError,
  reply,
  type BoundRoute,
  type Clock,
  type SqlExecutor,
} from '@verdict/platform';
import type { TestResultsReadModels, TestResultsReadStore } from '../readStore';
import { findErrorGroup, listErrorGroups, rangeOf } from './queries';

type ErrorsRoute = Extract<(typeof failureAnalysisRoutes)[number], { path: `/{projectId}/errors${string}` }>;

const errorsRoutes = failureAnalysisRoutes.filter((route): route is ErrorsRoute =>
  route.path.startsWith('/{projectId}/errors'),
);

export interface ErrorRoutesOptions {
  db: SqlExecutor;
  schemas: TestResultsReadModels;
  /** "Now", the end of the default range. */
  clock: Clock;
}

/**
 * The errors explorer's routes, paths relative to the service root.
 *
 * @example registerRoutes(router, createErrorRoutes({ db, schemas: readModelSchemas(), clock: systemClock }));
 */
export function createErrorRoutes(options: ErrorRoutesOptions): BoundRoute[] {
  const store: TestResultsReadStore = { db: options.db, schemas: options.schemas };
  return bindRoutes(errorsRoutes, {
    'get /{projectId}/errors': async ({ query }, { projectId }) => {
      const { items, total } = await listErrorGroups(
        store,
        projectId,
        query,
        rangeOf(query, options.clock.now()),
      );
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'get /{projectId}/errors/{signatureId}': async ({ params, query }, { projectId }) => {
      const group = await findErrorGroup(store, projectId, params.signatureId, {
        range: rangeOf(query, options.clock.now()),
        branch: query.branch,
        environment: query.environment,
      });
      if (!group) throw new NotFoundError('Error group not found');
      return group;
    },
  });
}
