/** The exploratory session routes of API.md: list, create, get, update. */
import {
  manualSessionRoutes,
  paginationOf,
  type Finding,
  type FindingInput,
  type UpdateSessionRequest,
} from '@verdict/contracts';
import {
  bindRoutes,
  NotFoundError,
  newId,
  reply,
  ValidationError,
  type BoundRoute,
  type ProjectContext,
} from '@verdict/platform';
import type { z } from 'zod';
import { assigneeOf } from '../runs/routes';
import { releaseIdOf, type ManualReadStore } from '../shared/readStore';
import type { RouteDeps } from '../shared/routeDeps';
import { sessionDecider, sessionStream } from './session';
import { listSessions, sessionDetail } from './sessionList';

const findingOf = (input: z.infer<typeof FindingInput>): Finding =>
  typeof input === 'string'
    ? { title: input.slice(0, 500), description: input, severity: 'not_set', issueKey: null }
    : {
        title: input.title,
        description: input.description ?? '',
        severity: input.severity ?? 'not_set',
        issueKey: input.issueKey ?? null,
      };

async function detailOf(read: ManualReadStore, projectId: string, sessionId: string) {
  const detail = await sessionDetail(read, projectId, sessionId);
  if (!detail) throw new NotFoundError('Session not found');
  return detail;
}

async function releaseOf(read: ManualReadStore, projectId: string, ref: string | null | undefined) {
  if (ref === undefined || ref === null) return ref;
  const releaseId = await releaseIdOf(read, projectId, ref);
  if (releaseId === null) throw new ValidationError('releaseId: no release with this id in the project');
  return releaseId;
}

/**
 * @example registerRoutes(router, sessionRoutes(deps));
 */
export function sessionRoutes(deps: RouteDeps): BoundRoute[] {
  const { read, writes, clock } = deps;
  const fieldsOf = async (ctx: ProjectContext, body: z.infer<typeof UpdateSessionRequest>) => {
    const releaseId = await releaseOf(read, ctx.projectId, body.releaseId);
    const assigneeUserId = await assigneeOf(read, ctx, body.assigneeUserId);
    return {
      ...(body.charter === undefined ? {} : { charter: body.charter }),
      ...(body.status === undefined ? {} : { status: body.status }),
      ...(body.notes === undefined ? {} : { notes: body.notes }),
      ...(body.findings === undefined ? {} : { findings: body.findings.map(findingOf) }),
      ...(releaseId === undefined ? {} : { releaseId }),
      ...(assigneeUserId === undefined ? {} : { assigneeUserId }),
      ...(body.timeBoxMinutes === undefined ? {} : { timeBoxMinutes: body.timeBoxMinutes }),
    };
  };
  return bindRoutes(manualSessionRoutes, {
    'get /{projectId}/sessions': async ({ query }, { projectId }) => {
      const { items, total } = await listSessions(read, projectId, query);
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'post /{projectId}/sessions': async ({ body }, ctx) => {
      const fields = await fieldsOf(ctx, body);
      const sessionId = newId();
      await writes.run(
        sessionStream(sessionId),
        sessionDecider,
        {
          type: 'createSession',
          sessionId,
          projectId: ctx.projectId,
          fields: {
            charter: body.charter,
            status: 'planned',
            notes: '',
            findings: [],
            releaseId: null,
            assigneeUserId: null,
            timeBoxMinutes: null,
            ...fields,
          },
          by: ctx.actor,
          now: clock.now(),
        },
        ctx,
      );
      return detailOf(read, ctx.projectId, sessionId);
    },
    'get /{projectId}/sessions/{sessionId}': ({ params }, { projectId }) =>
      detailOf(read, projectId, params.sessionId),
    'patch /{projectId}/sessions/{sessionId}': async ({ params, body }, ctx) => {
      const { sessionId } = params;
      await detailOf(read, ctx.projectId, sessionId);
      await writes.run(
        sessionStream(sessionId),
        sessionDecider,
        { type: 'updateSession', set: await fieldsOf(ctx, body), by: ctx.actor, now: clock.now() },
        ctx,
      );
      return detailOf(read, ctx.projectId, sessionId);
    },
  });
}
