/**
 * The case routes: the list of spec §4.3, create (API.md), get with history, the PATCH of spec §4.3, the
 * change history, and attachments (multipart, streamed into the blob store; removed with their blob).
 */
import { manualCaseRoutes, paginationOf, type ManualTestCaseDetail } from '@verdict/contracts';
import {
  bindRoutes,
  NotFoundError,
  newId,
  reply,
  ValidationError,
  type BoundRoute,
  type ProjectContext,
} from '@verdict/platform';
import type { ManualReadStore } from '../shared/readStore';
import { suitePath } from '../suites/suiteTree';
import { caseDetail, caseIdOf } from './caseDetail';
import { caseHistory } from './caseHistory';
import { listCases } from './caseList';
import { receiveAttachment, removeAttachment } from '../shared/attachments';
import type { RouteDeps } from '../shared/routeDeps';
import { caseStream } from './case';
import { caseDecider } from './decide';

async function requireCase(read: ManualReadStore, projectId: string, ref: string): Promise<string> {
  const caseId = await caseIdOf(read, projectId, ref);
  if (caseId === null) throw new NotFoundError('Manual test case not found');
  return caseId;
}

async function detailOf(
  read: ManualReadStore,
  projectId: string,
  caseId: string,
): Promise<ManualTestCaseDetail> {
  const detail = await caseDetail(read, projectId, caseId);
  if (!detail) throw new NotFoundError('Manual test case not found');
  return detail;
}

async function checkSuite(read: ManualReadStore, projectId: string, suiteId: string | null | undefined) {
  if (suiteId === undefined || suiteId === null) return;
  if ((await suitePath(read, projectId, suiteId)).length === 0) {
    throw new ValidationError('suiteId: no suite with this id in the project');
  }
}

/** Streams the multipart `file` into the blob store and records it on the case (an optional `stepRef` names its step). */
async function addAttachment(deps: RouteDeps, caseRef: string, ctx: ProjectContext) {
  const { read, writes, clock } = deps;
  const { projectId } = ctx;
  const caseId = await requireCase(read, projectId, caseRef);
  const attachmentId = await receiveAttachment(deps, ctx, `manual/${projectId}/${caseId}`, (attachment) =>
    writes.run(
      caseStream(caseId),
      caseDecider,
      { type: 'addAttachment', attachment, by: ctx.actor, now: clock.now() },
      ctx,
    ),
  );
  const detail = await detailOf(read, projectId, caseId);
  return detail.attachments.find((a) => a._id === attachmentId);
}

/** Removes a file from the case (recorded once; removing again answers the same), then its blob. */
function removeCaseAttachment(
  deps: RouteDeps,
  params: { caseId: string; attachmentId: string },
  ctx: ProjectContext,
) {
  const { read, writes, clock } = deps;
  return removeAttachment(deps, params.attachmentId, async () => {
    const caseId = await requireCase(read, ctx.projectId, params.caseId);
    const { state } = await writes.run(
      caseStream(caseId),
      caseDecider,
      { type: 'removeAttachment', attachmentId: params.attachmentId, by: ctx.actor, now: clock.now() },
      ctx,
    );
    return state.status === 'exists' ? state.attachments : [];
  });
}

/**
 * @example registerRoutes(router, caseRoutes(deps));
 */
export function caseRoutes(deps: RouteDeps): BoundRoute[] {
  const { read, writes, clock } = deps;
  return bindRoutes(manualCaseRoutes, {
    'get /{projectId}/manual-tests': async ({ query }, { projectId }) => {
      const { items, total } = await listCases(read, projectId, query);
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'post /{projectId}/manual-test-cases': async ({ body: request }, ctx) => {
      const { projectId } = ctx;
      await checkSuite(read, projectId, request.suiteId);
      const caseId = newId();
      const number = await writes.allocate('case', projectId, caseId);
      await writes.run(
        caseStream(caseId),
        caseDecider,
        {
          type: 'createCase',
          caseId,
          projectId,
          number,
          request,
          commentIds: (request.comments ?? []).map(() => newId()),
          by: ctx.actor,
          now: clock.now(),
        },
        ctx,
      );
      return reply.created(await detailOf(read, projectId, caseId), {
        location: `/${projectId}/manual-test-cases/${caseId}`,
      });
    },
    'get /{projectId}/manual-test-cases/{caseId}': async ({ params }, { projectId }) =>
      detailOf(read, projectId, await requireCase(read, projectId, params.caseId)),
    'patch /{projectId}/manual-test-cases/{caseId}': async ({ params, body: request }, ctx) => {
      const { projectId } = ctx;
      const caseId = await requireCase(read, projectId, params.caseId);
      await checkSuite(read, projectId, request.suiteId);
      await writes.run(
        caseStream(caseId),
        caseDecider,
        {
          type: 'reviseCase',
          request,
          commentIds: (request.comments ?? []).map(() => newId()),
          by: ctx.actor,
          now: clock.now(),
        },
        ctx,
      );
      return detailOf(read, projectId, caseId);
    },
    'get /{projectId}/manual-test-cases/{caseId}/history': async ({ params, query }, { projectId }) => {
      const caseId = await requireCase(read, projectId, params.caseId);
      const { items, total } = await caseHistory(read, caseId, query.page, query.limit);
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'post /{projectId}/manual-test-cases/{caseId}/attachments': ({ params }, ctx) =>
      addAttachment(deps, params.caseId, ctx),
    'delete /{projectId}/manual-test-cases/{caseId}/attachments/{attachmentId}': ({ params }, ctx) =>
      removeCaseAttachment(deps, params, ctx),
  });
}
