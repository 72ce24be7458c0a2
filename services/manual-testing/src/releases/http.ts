/** The release routes: list, create (API.md), get with progress (spec §4.5), update. */
import type { RequestHandler } from 'express';
import {
  CreateReleaseRequest,
  paginationOf,
  ReleasePath,
  ReleasesQuery,
  UpdateReleaseRequest,
} from '@verdict/contracts';
import {
  NotFoundError,
  newId,
  parseBody,
  parseParams,
  parseQuery,
  sendData,
  sendList,
  type ApiRoute,
} from '@verdict/platform';
import { listReleases, releaseDetail, releaseIdOf, type ReadStore } from '../projections/queries';
import { actorOf, contextOf, projectOf, routesOf, type RouteDeps } from '../shared/http';
import { checkDates, releaseDecider, releaseStream } from './release';

async function detailOf(read: ReadStore, projectId: string, releaseId: string) {
  const detail = await releaseDetail(read, projectId, releaseId);
  if (!detail) throw new NotFoundError('Release not found');
  return detail;
}

async function requireRelease(read: ReadStore, projectId: string, ref: string): Promise<string> {
  const releaseId = await releaseIdOf(read, projectId, ref);
  if (releaseId === null) throw new NotFoundError('Release not found');
  return releaseId;
}

export function releaseRoutes(deps: RouteDeps): ApiRoute[] {
  const { read, writes, clock } = deps;
  const handlers: Record<string, RequestHandler[]> = {
    'get /{projectId}/releases': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const query = parseQuery(ReleasesQuery, req);
        const { items, total } = await listReleases(read, projectId, query);
        sendList(res, items, paginationOf(query.page, query.limit, total));
      },
    ],
    'post /{projectId}/releases': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const body = parseBody(CreateReleaseRequest, req);
        const fields = {
          name: body.name,
          description: body.description ?? '',
          startDate: body.startDate ?? null,
          dueDate: body.dueDate ?? null,
          status: body.status ?? 'planned',
        };
        // Refused before a number is taken, so a refusal leaves no gap in MS-<n>.
        checkDates(fields);
        const releaseId = newId();
        const number = await writes.allocate('release', projectId, releaseId);
        await writes.run(
          releaseStream(releaseId),
          releaseDecider,
          {
            type: 'createRelease',
            releaseId,
            projectId,
            number,
            fields,
            by: actorOf(res),
            now: clock.now(),
          },
          contextOf(req, projectId),
        );
        sendData(res, await detailOf(read, projectId, releaseId));
      },
    ],
    'get /{projectId}/releases/{releaseId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { releaseId: ref } = parseParams(ReleasePath, req);
        sendData(res, await detailOf(read, projectId, await requireRelease(read, projectId, ref)));
      },
    ],
    'patch /{projectId}/releases/{releaseId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { releaseId: ref } = parseParams(ReleasePath, req);
        const body = parseBody(UpdateReleaseRequest, req);
        const releaseId = await requireRelease(read, projectId, ref);
        await writes.run(
          releaseStream(releaseId),
          releaseDecider,
          {
            type: 'updateRelease',
            set: Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)),
            by: actorOf(res),
            now: clock.now(),
          },
          contextOf(req, projectId),
        );
        sendData(res, await detailOf(read, projectId, releaseId));
      },
    ],
  };
  return routesOf(['/{projectId}/releases'], handlers);
}
