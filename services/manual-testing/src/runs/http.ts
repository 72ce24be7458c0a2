/** The run routes: create (API.md), list, get (spec §4.4), update a run case (spec §4.4). */
import type { Request, RequestHandler, Response } from 'express';
import {
  CreateManualRunRequest,
  MANUAL_LIMITS,
  ManualRunCasePath,
  ManualRunPath,
  ManualRunsQuery,
  paginationOf,
  UpdateRunCaseRequest,
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
import {
  casesForRun,
  listRuns,
  memberUserId,
  releaseIdOf,
  runCase,
  runDetail,
  runIdOf,
  type ReadStore,
} from '../projections/queries';
import { actorOf, contextOf, projectOf, routesOf, type RouteDeps } from '../shared/http';
import { runDecider, runStream } from './run';

/** A user `_id` or e-mail among the members of the caller's organization; a 400 naming the field if not. */
export async function assigneeOf(
  read: ReadStore,
  res: Response,
  ref: string | null | undefined,
  field = 'assigneeUserId',
): Promise<string | null | undefined> {
  if (ref === undefined || ref === null) return ref;
  const userId = await memberUserId(read, res.locals.identity.organizationId, ref);
  if (userId === null) {
    throw new ValidationError(`${field}: no member of this organization has this user id or e-mail`);
  }
  return userId;
}

async function requireRun(read: ReadStore, projectId: string, ref: string): Promise<string> {
  const runId = await runIdOf(read, projectId, ref);
  if (runId === null) throw new NotFoundError('Manual run not found');
  return runId;
}

async function detailOf(read: ReadStore, projectId: string, runId: string) {
  const detail = await runDetail(read, projectId, runId);
  if (!detail) throw new NotFoundError('Manual run not found');
  return detail;
}

export function runRoutes(deps: RouteDeps): ApiRoute[] {
  const { read, writes, clock } = deps;
  const createRun = async (req: Request, res: Response) => {
    const projectId = projectOf(req, res);
    const body = parseBody(CreateManualRunRequest, req);
    let releaseId: string | null = null;
    if (body.releaseId !== undefined) {
      releaseId = await releaseIdOf(read, projectId, body.releaseId);
      if (releaseId === null) throw new ValidationError('releaseId: no release with this id in the project');
    }
    const assigneeUserId = (await assigneeOf(read, res, body.assigneeUserId)) ?? null;
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
      if (
        !(
          await read.db.query(
            `SELECT 1 FROM ${read.schema}.suites WHERE project_id = $1 AND id = $2 AND NOT deleted`,
            [projectId, suiteId],
          )
        ).rowCount
      ) {
        throw new ValidationError(`suiteIds: no suite ${suiteId} in the project`);
      }
    }
    if (found.length === 0) {
      throw new ValidationError(
        everyCase
          ? 'caseIds: the project has no manual test cases yet'
          : 'suiteIds: the suites hold no cases',
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
        by: actorOf(res),
        now: clock.now(),
      },
      contextOf(req, projectId),
    );
    sendData(res, await detailOf(read, projectId, runId), 201);
  };

  const handlers: Record<string, RequestHandler[]> = {
    'post /{projectId}/manual-runs': [createRun],
    'get /{projectId}/manual-runs': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const query = parseQuery(ManualRunsQuery, req);
        const { items, total } = await listRuns(read, projectId, query);
        sendList(res, items, paginationOf(query.page, query.limit, total));
      },
    ],
    'get /{projectId}/manual-runs/{runId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { runId: ref } = parseParams(ManualRunPath, req);
        sendData(res, await detailOf(read, projectId, await requireRun(read, projectId, ref)));
      },
    ],
    'patch /{projectId}/manual-runs/{runId}/test-cases/{runCaseId}': [
      async (req, res) => {
        const projectId = projectOf(req, res);
        const { runId: ref, runCaseId } = parseParams(ManualRunCasePath, req);
        const request = parseBody(UpdateRunCaseRequest, req);
        const runId = await requireRun(read, projectId, ref);
        const assigneeUserId = await assigneeOf(read, res, request.assigneeUserId);
        const { events } = await writes.run(
          runStream(runId),
          runDecider,
          {
            type: 'updateRunCase',
            runCaseRef: runCaseId,
            request,
            assigneeUserId,
            by: actorOf(res),
            now: clock.now(),
          },
          contextOf(req, projectId),
        );
        const refId = (events[0]?.data as { refId: string } | undefined)?.refId ?? runCaseId;
        const updated = await runCase(read, runId, refId);
        if (!updated) throw new NotFoundError('Run case not found in this run');
        sendData(res, updated);
      },
    ],
  };
  return routesOf(['/{projectId}/manual-runs'], handlers);
}
