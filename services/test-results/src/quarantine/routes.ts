/**
 * The quarantine routes (issue 32): list, make, read, extend and lift. A write decides on the quarantine's
 * stream and answers the quarantine as the read model holds it, written in the same transaction.
 */
import { paginationOf, quarantineRoutes } from '@verdict/contracts';
import {
  bindRoutes,
  ConflictError,
  newId,
  NotFoundError,
  reply,
  ValidationError,
  type BoundRoute,
  type Clock,
  type CommandHandler,
  type ProjectContext,
} from '@verdict/platform';
import type { TestResultsReadStore } from '../readStore';
import { evidenceOf, targetOf } from './evidence';
import { isMember } from './members';
import { quarantineDecider, quarantineStream, type QuarantineCommand } from './quarantine';
import {
  activeQuarantines,
  listQuarantines,
  overlappingQuarantine,
  quarantineById,
  quarantinePolicyOf,
} from './quarantineList';
import { quarantinePolicyDecider, quarantinePolicyStream } from './policy';

export interface QuarantineRouteDeps {
  store: TestResultsReadStore;
  commands: CommandHandler;
  clock: Clock;
}

/**
 * The quarantine routes, paths relative to the service root.
 *
 * @example registerRoutes(router, createQuarantineRoutes({ store, commands, clock }));
 */
export function createQuarantineRoutes({ store, commands, clock }: QuarantineRouteDeps): BoundRoute[] {
  const schema = store.schemas.quarantines;

  async function found(projectId: string, quarantineId: string) {
    const quarantine = await quarantineById(store.db, schema, projectId, quarantineId, clock.now());
    if (!quarantine) throw new NotFoundError('Quarantine not found');
    return quarantine;
  }

  /** Decides on an existing quarantine of the project; answers it as it is afterwards. */
  async function decide(ctx: ProjectContext, quarantineId: string, command: QuarantineCommand) {
    await found(ctx.projectId, quarantineId);
    await commands.handle(quarantineStream(quarantineId), quarantineDecider, command, {
      metadata: { projectId: ctx.projectId, correlationId: ctx.correlationId, occurredAt: command.now },
    });
    return found(ctx.projectId, quarantineId);
  }

  return bindRoutes(quarantineRoutes, {
    'get /{projectId}/quarantines': async ({ query }, { projectId }) => {
      const { items, total } = await listQuarantines(store.db, schema, projectId, query, clock.now());
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'post /{projectId}/quarantines': async ({ body }, ctx) => {
      const now = clock.now();
      const { projectId } = ctx;
      const ref =
        body.testCaseId !== undefined
          ? { testCaseId: body.testCaseId }
          : { file: body.file ?? '', titlePath: body.titlePath ?? [] };
      const target = await targetOf(store, projectId, ref, body.project ?? null);
      if (!(await isMember(store.db, store.schemas.members, ctx.organizationId, body.ownerId))) {
        throw new ValidationError('ownerId: not a member of this project’s organization');
      }
      const existing = await overlappingQuarantine(
        store.db,
        schema,
        projectId,
        target.testCaseId,
        target.project,
        now,
      );
      if (existing) {
        throw new ConflictError(
          `The test is quarantined already (quarantine ${existing}): extend or lift it`,
        );
      }
      const evidence = await evidenceOf(store, projectId, target, body.signatures, now);
      const quarantineId = newId();
      await commands.handle(
        quarantineStream(quarantineId),
        quarantineDecider,
        {
          type: 'quarantine',
          quarantineId,
          projectId,
          target,
          reason: body.reason,
          ownerId: body.ownerId,
          expiresAt: new Date(body.expiresAt),
          evidence,
          releaseRule: body.releaseRule ?? null,
          automatic: false,
          by: ctx.actor,
          now,
        },
        { metadata: { projectId, correlationId: ctx.correlationId, occurredAt: now } },
      );
      return reply.created(await found(projectId, quarantineId), {
        location: `/${encodeURIComponent(projectId)}/quarantines/${quarantineId}`,
      });
    },
    'get /{projectId}/quarantine-policy': (_input, { projectId }) =>
      quarantinePolicyOf(store.db, schema, projectId),
    'put /{projectId}/quarantine-policy': async ({ body }, ctx) => {
      if (!(await isMember(store.db, store.schemas.members, ctx.organizationId, body.ownerId))) {
        throw new ValidationError('ownerId: not a member of this project’s organization');
      }
      const now = clock.now();
      await commands.handle(
        quarantinePolicyStream(ctx.projectId),
        quarantinePolicyDecider,
        { type: 'setPolicy', projectId: ctx.projectId, policy: body, by: ctx.actor, now },
        { metadata: { projectId: ctx.projectId, correlationId: ctx.correlationId, occurredAt: now } },
      );
      return quarantinePolicyOf(store.db, schema, ctx.projectId);
    },
    'get /{projectId}/quarantined-tests': async (_input, { projectId }) => {
      const now = clock.now();
      const active = await activeQuarantines(store.db, schema, projectId, null, now);
      return {
        at: now.toISOString(),
        items: active.map(({ platform, ...quarantine }) => ({ ...quarantine, project: platform })),
      };
    },
    'get /{projectId}/quarantines/{quarantineId}': ({ params }, { projectId }) =>
      found(projectId, params.quarantineId),
    'post /{projectId}/quarantines/{quarantineId}/extend': ({ params, body }, ctx) =>
      decide(ctx, params.quarantineId, {
        type: 'extend',
        expiresAt: new Date(body.expiresAt),
        by: ctx.actor,
        now: clock.now(),
      }),
    'post /{projectId}/quarantines/{quarantineId}/lift': ({ params, body }, ctx) =>
      decide(ctx, params.quarantineId, {
        type: 'lift',
        reason: body.reason ?? '',
        automatic: false,
        by: ctx.actor,
        now: clock.now(),
      }),
  });
}
