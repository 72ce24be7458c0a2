/** The exploratory session routes of API.md: list, create, get, update. */
import type { RequestHandler, Response } from 'express';
import {
  CreateSessionRequest,
  type FindingInput,
  paginationOf,
  SessionPath,
  SessionsQuery,
  UpdateSessionRequest,
  type Finding,
} from '@verdict/contracts';
import {
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
import type { z } from 'zod';
import { listSessions, releaseIdOf, sessionDetail, type ReadStore } from '../projections/queries';
import { assigneeOf } from '../runs/http';
import { actorOf, contextOf, projectOf, routesOf, type RouteDeps } from '../shared/http';
import { sessionDecider, sessionStream } from './session';

const findingOf = (input: z.infer<typeof FindingInput>): Finding =>
  typeof input === 'string'
    ? { title: input.slice(0, 500), description: input, severity: 'not_set', issueKey: null }
    : {
        title: input.title,
        description: input.description ?? '',
        severity: input.severity ?? 'not_set',
        issueKey: input.issueKey ?? null,
      };

async function detailOf(read: ReadStore, projectId: string, sessionId: string) {
  const detail = await sessionDetail(read, projectId, sessionId);
  if (!detail) throw new NotFoundError('Session not found');
  return detail;
}

async function releaseOf(read: ReadStore, projectId: string, ref: string | null | undefined) {
  if (ref === undefined || ref === null) return ref;
  const releaseId = await releaseIdOf(read, projectId, ref);
  if (releaseId === null) throw new ValidationError('releaseId: no release with this id in the project');
  return releaseId;
}

export function sessionRoutes(deps: RouteDeps): ApiRoute[] {
  const { read, writes, clock } = deps;
  const fieldsOf = async (res: Response, projectId: string, body: z.infer<typeof UpdateSessionRequest>) => {
    const releaseId = await releaseOf(read, projectId, body.releaseId);
    const assigneeUserId = await assigneeOf(read, res, body.assigneeUserId);
    return {
      ...(body.charter === undefined ? {} : { charter: body.charter }),
      ...(body.status === undefined ? {} : { status: body.status }),
      ...(body.notes === undefined ? {} : { notes: body.notes }),
      ...(body.findings === undefined ? {} : { findings: body.findings.map(findingOf) }),
      ...(releaseId === undefined ? {} : { releaseId }),
      ...(assigneeUserId === undefined ? {} : { assigneeUserId }),
    };
  };
  const handlers: Record<string, RequestHandler[]> = {
    'get /{projectId}/sessions': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const query = parseQuery(SessionsQuery, req);
        const { items, total } = await listSessions(read, projectId, query);
        sendList(res, items, paginationOf(query.page, query.limit, total));
      },
    ],
    'post /{projectId}/sessions': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const body = parseBody(CreateSessionRequest, req);
        const fields = await fieldsOf(res, projectId, body);
        const sessionId = newId();
        await writes.run(
          sessionStream(sessionId),
          sessionDecider,
          {
            type: 'createSession',
            sessionId,
            projectId,
            fields: {
              charter: body.charter,
              status: 'planned',
              notes: '',
              findings: [],
              releaseId: null,
              assigneeUserId: null,
              ...fields,
            },
            by: actorOf(res),
            now: clock.now(),
          },
          contextOf(req, projectId),
        );
        sendData(res, await detailOf(read, projectId, sessionId));
      },
    ],
    'get /{projectId}/sessions/{sessionId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { sessionId } = parseParams(SessionPath, req);
        sendData(res, await detailOf(read, projectId, sessionId));
      },
    ],
    'patch /{projectId}/sessions/{sessionId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { sessionId } = parseParams(SessionPath, req);
        const body = parseBody(UpdateSessionRequest, req);
        await detailOf(read, projectId, sessionId);
        await writes.run(
          sessionStream(sessionId),
          sessionDecider,
          {
            type: 'updateSession',
            set: await fieldsOf(res, projectId, body),
            by: actorOf(res),
            now: clock.now(),
          },
          contextOf(req, projectId),
        );
        sendData(res, await detailOf(read, projectId, sessionId));
      },
    ],
  };
  return routesOf(['/{projectId}/sessions'], handlers);
}
