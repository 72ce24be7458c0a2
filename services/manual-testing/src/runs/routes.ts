/**
 * The run routes: create (API.md), list, get (spec §4.4), update a run case (spec §4.4), and the run
 * case's evidence: files attached to the verdict (multipart, streamed into the blob store) and removed.
 */
import {
  MANUAL_LIMITS,
  manualRunRoutes,
  paginationOf,
  type CreateManualRunRequest,
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
import { casesForRun } from '../cases/caseDetail';
import { receiveAttachment, removeAttachment } from '../shared/attachments';
import { releaseIdOf, type ManualReadStore } from '../shared/readStore';
import type { RouteDeps } from '../shared/routeDeps';
import { suiteExists } from '../suites/suiteTree';
import { memberUserId } from '../users/userDirectory';
import { findRunCase, runDecider, runStream } from './run';
import { listRuns, runCase, runCaseRefOf, runDetail, runIdOf } from './runProgress';

/** A user `_id` or e-mail among the members of the caller's organization; a 400 naming the field if not. */
export async function assigneeOf(
  read: ManualReadStore,
  ctx: ProjectContext,
  ref: string | null | undefined,
  field = 'assigneeUserId',
): Promise<string | null | undefined> {
  if (ref === undefined || ref === null) return ref;
  const userId = await memberUserId(read, ctx.organizationId, ref);
  if (userId === null) {
    throw new ValidationError(`${field}: no member of this organization has this user id or e-mail`);
  }
  return userId;
}

async function requireRun(read: ManualReadStore, projectId: string, ref: string): Promise<string> {
  const runId = await runIdOf(read, projectId, ref);
  if (runId === null) throw new NotFoundError('Manual run not found');
  return runId;
}

async function detailOf(read: ManualReadStore, projectId: string, runId: string) {
  const detail = await runDetail(read, projectId, runId);
  if (!detail) throw new NotFoundError('Manual run not found');
  return detail;
}

/** Creates a run of the cases named (by id, or by suite; every case of the project without either). */
async function createRun(deps: RouteDeps, body: CreateManualRunRequest, ctx: ProjectContext) {
  const { read, writes, clock } = deps;
  const { projectId } = ctx;
  let releaseId: string | null = null;
  if (body.releaseId !== undefined) {
    releaseId = await releaseIdOf(read, projectId, body.releaseId);
    if (releaseId === null) throw new ValidationError('releaseId: no release with this id in the project');
  }
  const assigneeUserId = (await assigneeOf(read, ctx, body.assigneeUserId)) ?? null;
  const everyCase = body.caseIds === undefined && body.suiteIds === undefined;
  const { found, missing } = await casesForRun(
    read,
    projectId,
    body.caseIds ?? [],
    body.suiteIds ?? [],
    everyCase,
  );
  if (missing.length > 0) {
    throw new ValidationError(`caseIds: no case ${missing.slice(0, 10).join(', ')} in the project`);
  }
  for (const suiteId of body.suiteIds ?? []) {
    if (!(await suiteExists(read, projectId, suiteId))) {
      throw new ValidationError(`suiteIds: no suite ${suiteId} in the project`);
    }
  }
  if (found.length === 0) {
    throw new ValidationError(
      everyCase ? 'caseIds: the project has no manual test cases yet' : 'suiteIds: the suites hold no cases',
    );
  }
  if (found.length > MANUAL_LIMITS.runCases) {
    throw new ValidationError(`caseIds: a run holds at most ${MANUAL_LIMITS.runCases} cases`);
  }
  const runId = newId();
  const number = await writes.allocate('run', projectId, runId);
  await writes.run(
    runStream(runId),
    runDecider,
    {
      type: 'createRun',
      runId,
      projectId,
      number,
      name: body.name,
      description: body.description ?? '',
      releaseId,
      assigneeUserId,
      cases: found.map((c) => ({
        refId: newId(),
        caseId: c.id,
        number: c.number,
        title: c.title,
        revision: c.revision,
      })),
      by: ctx.actor,
      now: clock.now(),
    },
    ctx,
  );
  return reply.created(await detailOf(read, projectId, runId));
}

/** The run and the reference id of its case `ref` names; 404 when either is unknown. */
async function requireRunCase(read: ManualReadStore, projectId: string, runRef: string, ref: string) {
  const runId = await requireRun(read, projectId, runRef);
  const refId = await runCaseRefOf(read, runId, ref);
  if (refId === null) throw new NotFoundError('Run case not found in this run');
  return { runId, refId };
}

/** Streams the multipart `file` into the blob store and records it as evidence of the run case. */
async function attachEvidence(deps: RouteDeps, runRef: string, ref: string, ctx: ProjectContext) {
  const { read, writes, clock } = deps;
  const { runId, refId } = await requireRunCase(read, ctx.projectId, runRef, ref);
  const keyPrefix = `manual/${ctx.projectId}/runs/${runId}/${refId}`;
  const attachmentId = await receiveAttachment(deps, ctx, keyPrefix, (attachment) =>
    writes.run(
      runStream(runId),
      runDecider,
      { type: 'attachEvidence', runCaseRef: refId, attachment, by: ctx.actor, now: clock.now() },
      ctx,
    ),
  );
  const attachment = (await runCase(read, runId, refId))?.attachments.find((a) => a._id === attachmentId);
  if (!attachment) throw new NotFoundError('Attachment not found on this run case');
  return reply.created(attachment);
}

/** Removes evidence (recorded once; removing again answers the same), then its blob. */
function removeEvidence(
  deps: RouteDeps,
  params: { runId: string; runCaseId: string; attachmentId: string },
  ctx: ProjectContext,
) {
  const { read, writes, clock } = deps;
  return removeAttachment(deps, params.attachmentId, async () => {
    const { runId, refId } = await requireRunCase(read, ctx.projectId, params.runId, params.runCaseId);
    const { state } = await writes.run(
      runStream(runId),
      runDecider,
      {
        type: 'removeEvidence',
        runCaseRef: refId,
        attachmentId: params.attachmentId,
        by: ctx.actor,
        now: clock.now(),
      },
      ctx,
    );
    return (state.status === 'exists' && findRunCase(state.cases, refId)?.evidence) || [];
  });
}

/**
 * @example registerRoutes(router, runRoutes(deps));
 */
export function runRoutes(deps: RouteDeps): BoundRoute[] {
  const { read, writes, clock } = deps;
  return bindRoutes(manualRunRoutes, {
    'post /{projectId}/manual-runs': ({ body }, ctx) => createRun(deps, body, ctx),
    'get /{projectId}/manual-runs': async ({ query }, { projectId }) => {
      const { items, total } = await listRuns(read, projectId, query);
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'get /{projectId}/manual-runs/{runId}': async ({ params }, { projectId }) =>
      detailOf(read, projectId, await requireRun(read, projectId, params.runId)),
    'patch /{projectId}/manual-runs/{runId}/test-cases/{runCaseId}': async (
      { params, body: request },
      ctx,
    ) => {
      const { runCaseId } = params;
      const runId = await requireRun(read, ctx.projectId, params.runId);
      const assigneeUserId = await assigneeOf(read, ctx, request.assigneeUserId);
      const { events } = await writes.run(
        runStream(runId),
        runDecider,
        {
          type: 'updateRunCase',
          runCaseRef: runCaseId,
          request,
          assigneeUserId,
          by: ctx.actor,
          now: clock.now(),
        },
        ctx,
      );
      const refId = (events[0]?.data as { refId: string } | undefined)?.refId ?? runCaseId;
      const updated = await runCase(read, runId, refId);
      if (!updated) throw new NotFoundError('Run case not found in this run');
      return updated;
    },
    'post /{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments': ({ params }, ctx) =>
      attachEvidence(deps, params.runId, params.runCaseId, ctx),
    'delete /{projectId}/manual-runs/{runId}/test-cases/{runCaseId}/attachments/{attachmentId}': (
      { params },
      ctx,
    ) => removeEvidence(deps, params, ctx),
  });
}
