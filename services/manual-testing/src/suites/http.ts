/** The suite routes of API.md: list, create, get, update (rename, describe, move), delete when empty. */
import type { RequestHandler } from 'express';
import {
  CreateSuiteRequest,
  ManualSuitePath,
  paginationOf,
  SuitesQuery,
  UpdateSuiteRequest,
} from '@verdict/contracts';
import {
  ConflictError,
  NotFoundError,
  newId,
  parseBody,
  parseParams,
  parseQuery,
  sendData,
  sendList,
  ValidationError,
  type ApiRoute,
} from '@verdict/platform';
import { findSuite, listSuites, suiteChildren, suitePath, type ReadStore } from '../projections/queries';
import { actorOf, contextOf, projectOf, routesOf, type RouteDeps } from '../shared/http';
import { suiteDecider, suiteStream } from './suite';

/** Deepest nesting accepted: deep enough for any real tree, shallow enough to walk in one query. */
const MAX_DEPTH = 20;

async function requireSuite(read: ReadStore, projectId: string, suiteId: string) {
  const suite = await findSuite(read, projectId, suiteId);
  if (!suite) throw new NotFoundError('Manual suite not found');
  return suite;
}

/** A parent must exist in the project, and a move must not put a suite inside itself or too deep. */
async function checkParent(read: ReadStore, projectId: string, parentId: string | null, suiteId?: string) {
  if (parentId === null) return;
  const path = await suitePath(read, projectId, parentId);
  if (path.length === 0) throw new ValidationError('parentId: no suite with this id in the project');
  if (suiteId !== undefined && path.some((ancestor) => ancestor._id === suiteId)) {
    throw new ValidationError('parentId: a suite cannot be moved inside itself or one of its sub-suites');
  }
  if (path.length >= MAX_DEPTH) throw new ValidationError(`parentId: suites nest at most ${MAX_DEPTH} deep`);
}

export function suiteRoutes(deps: RouteDeps): ApiRoute[] {
  const { read, writes, clock } = deps;
  const handlers: Record<string, RequestHandler[]> = {
    'get /{projectId}/manual-suites': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const query = parseQuery(SuitesQuery, req);
        const { items, total } = await listSuites(read, projectId, query);
        sendList(res, items, paginationOf(query.page, query.limit, total));
      },
    ],
    'post /{projectId}/manual-suites': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const body = parseBody(CreateSuiteRequest, req);
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
            by: actorOf(res),
            now: clock.now(),
          },
          contextOf(req, projectId),
        );
        sendData(res, await requireSuite(read, projectId, suiteId));
      },
    ],
    'get /{projectId}/manual-suites/{suiteId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { suiteId } = parseParams(ManualSuitePath, req);
        sendData(res, await requireSuite(read, projectId, suiteId));
      },
    ],
    'patch /{projectId}/manual-suites/{suiteId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { suiteId } = parseParams(ManualSuitePath, req);
        const body = parseBody(UpdateSuiteRequest, req);
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
            by: actorOf(res),
            now: clock.now(),
          },
          contextOf(req, projectId),
        );
        sendData(res, await requireSuite(read, projectId, suiteId));
      },
    ],
    'delete /{projectId}/manual-suites/{suiteId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { suiteId } = parseParams(ManualSuitePath, req);
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
          { type: 'deleteSuite', by: actorOf(res), now: clock.now() },
          contextOf(req, projectId),
        );
        sendData(res, { _id: suiteId, deleted: true });
      },
    ],
  };
  return routesOf(['/{projectId}/manual-suites'], handlers);
}
