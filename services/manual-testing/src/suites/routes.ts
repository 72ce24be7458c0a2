/** The suite routes of API.md: list, create, get, update (rename, describe, move), delete when empty. */
import { manualSuiteRoutes, paginationOf } from '@verdict/contracts';
import {
  bindRoutes,
  ConflictError,
  NotFoundError,
  newId,
  reply,
  ValidationError,
  type BoundRoute,
} from '@verdict/platform';
import type { ManualReadStore } from '../shared/readStore';
import type { RouteDeps } from '../shared/routeDeps';
import { suiteDecider, suiteStream } from './suite';
import { findSuite, listSuites, suiteChildren, suitePath } from './suiteTree';

/** Deepest nesting accepted: deep enough for any real tree, shallow enough to walk in one query. */
const MAX_DEPTH = 20;

async function requireSuite(read: ManualReadStore, projectId: string, suiteId: string) {
  const suite = await findSuite(read, projectId, suiteId);
  if (!suite) throw new NotFoundError('Manual suite not found');
  return suite;
}

/** A parent must exist in the project, and a move must not put a suite inside itself or too deep. */
async function checkParent(
  read: ManualReadStore,
  projectId: string,
  parentId: string | null,
  suiteId?: string,
) {
  if (parentId === null) return;
  const path = await suitePath(read, projectId, parentId);
  if (path.length === 0) throw new ValidationError('parentId: no suite with this id in the project');
  if (suiteId !== undefined && path.some((ancestor) => ancestor._id === suiteId)) {
    throw new ValidationError('parentId: a suite cannot be moved inside itself or one of its sub-suites');
  }
  if (path.length >= MAX_DEPTH) throw new ValidationError(`parentId: suites nest at most ${MAX_DEPTH} deep`);
}

/**
 * @example registerRoutes(router, suiteRoutes(deps));
 */
export function suiteRoutes(deps: RouteDeps): BoundRoute[] {
  const { read, writes, clock } = deps;
  return bindRoutes(manualSuiteRoutes, {
    'get /{projectId}/manual-suites': async ({ query }, { projectId }) => {
      const { items, total } = await listSuites(read, projectId, query);
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'post /{projectId}/manual-suites': async ({ body }, ctx) => {
      const { projectId } = ctx;
      const parentId = body.parentId ?? null;
      await checkParent(read, projectId, parentId);
      const suiteId = newId();
      await writes.run(
        suiteStream(suiteId),
        suiteDecider,
        {
          type: 'createSuite',
          suiteId,
          projectId,
          fields: { name: body.name, description: body.description ?? '', parentId },
          by: ctx.actor,
          now: clock.now(),
        },
        ctx,
      );
      return requireSuite(read, projectId, suiteId);
    },
    'get /{projectId}/manual-suites/{suiteId}': ({ params }, { projectId }) =>
      requireSuite(read, projectId, params.suiteId),
    'patch /{projectId}/manual-suites/{suiteId}': async ({ params, body }, ctx) => {
      const { projectId } = ctx;
      const { suiteId } = params;
      await requireSuite(read, projectId, suiteId);
      if (body.parentId !== undefined) await checkParent(read, projectId, body.parentId, suiteId);
      await writes.run(
        suiteStream(suiteId),
        suiteDecider,
        {
          type: 'updateSuite',
          set: {
            ...(body.name === undefined ? {} : { name: body.name }),
            ...(body.description === undefined ? {} : { description: body.description }),
            ...(body.parentId === undefined ? {} : { parentId: body.parentId }),
          },
          by: ctx.actor,
          now: clock.now(),
        },
        ctx,
      );
      return requireSuite(read, projectId, suiteId);
    },
    'delete /{projectId}/manual-suites/{suiteId}': async ({ params }, ctx) => {
      const { projectId } = ctx;
      const { suiteId } = params;
      const suite = await requireSuite(read, projectId, suiteId);
      const children = await suiteChildren(read, projectId, suiteId);
      // Deleting never takes cases or their history with it: the suite must be emptied first.
      if (suite.caseCount > 0 || children > 0) {
        throw new ConflictError(
          `The suite still holds ${suite.caseCount} case(s) and ${children} suite(s); move or delete them first`,
        );
      }
      await writes.run(
        suiteStream(suiteId),
        suiteDecider,
        { type: 'deleteSuite', by: ctx.actor, now: clock.now() },
        ctx,
      );
      return { _id: suiteId, deleted: true };
    },
  });
}
