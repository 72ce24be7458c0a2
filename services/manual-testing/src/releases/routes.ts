/** The release routes: list, create (API.md), get with progress (spec §4.5), update. */
import { manualReleaseRoutes, paginationOf } from '@verdict/contracts';
import { bindRoutes, NotFoundError, newId, reply, type BoundRoute } from '@verdict/platform';
import { releaseIdOf, type ManualReadStore } from '../shared/readStore';
import type { RouteDeps } from '../shared/routeDeps';
import { listReleases, releaseDetail } from './releaseList';
import { checkDates, releaseDecider, releaseStream } from './release';

async function detailOf(read: ManualReadStore, projectId: string, releaseId: string) {
  const detail = await releaseDetail(read, projectId, releaseId);
  if (!detail) throw new NotFoundError('Release not found');
  return detail;
}

async function requireRelease(read: ManualReadStore, projectId: string, ref: string): Promise<string> {
  const releaseId = await releaseIdOf(read, projectId, ref);
  if (releaseId === null) throw new NotFoundError('Release not found');
  return releaseId;
}

/**
 * @example registerRoutes(router, releaseRoutes(deps));
 */
export function releaseRoutes(deps: RouteDeps): BoundRoute[] {
  const { read, writes, clock } = deps;
  return bindRoutes(manualReleaseRoutes, {
    'get /{projectId}/releases': async ({ query }, { projectId }) => {
      const { items, total } = await listReleases(read, projectId, query);
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'post /{projectId}/releases': async ({ body }, ctx) => {
      const { projectId } = ctx;
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
        { type: 'createRelease', releaseId, projectId, number, fields, by: ctx.actor, now: clock.now() },
        ctx,
      );
      return detailOf(read, projectId, releaseId);
    },
    'get /{projectId}/releases/{releaseId}': async ({ params }, { projectId }) =>
      detailOf(read, projectId, await requireRelease(read, projectId, params.releaseId)),
    'patch /{projectId}/releases/{releaseId}': async ({ params, body }, ctx) => {
      const releaseId = await requireRelease(read, ctx.projectId, params.releaseId);
      await writes.run(
        releaseStream(releaseId),
        releaseDecider,
        {
          type: 'updateRelease',
          set: Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)),
          by: ctx.actor,
          now: clock.now(),
        },
        ctx,
      );
      return detailOf(read, ctx.projectId, releaseId);
    },
  });
}
