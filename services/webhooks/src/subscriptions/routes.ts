import { webhookRoutes } from '@verdict/contracts';
import { bindRoutes, reply, type BoundRoute } from '@verdict/platform';
import type { Subscriptions } from './subscriptions';

/**
 * The routes of spec §4.9 on the subscriptions. The binder has checked the path's project against the
 * caller's and the roles the contract declares (owner or admin for every write).
 *
 * @example registerRoutes(router, webhookHttpRoutes(subscriptions));
 */
export function webhookHttpRoutes(subscriptions: Subscriptions): BoundRoute[] {
  return bindRoutes(webhookRoutes, {
    'get /{projectId}/webhooks': async ({ query }, { projectId }) => {
      const { items, pagination } = await subscriptions.list(projectId, query.page, query.limit);
      return reply.page(items, pagination);
    },
    // Spec §4: "Unless stated otherwise, success is HTTP 200", and §4.9 states nothing else for create.
    'post /{projectId}/webhooks': ({ body }, { projectId }) => subscriptions.create(projectId, body),
    'get /{projectId}/webhooks/{webhookId}': ({ params }, { projectId }) =>
      subscriptions.get(projectId, params.webhookId),
    'patch /{projectId}/webhooks/{webhookId}': ({ params, body }, { projectId }) =>
      subscriptions.update(projectId, params.webhookId, body),
    'delete /{projectId}/webhooks/{webhookId}': ({ params }, { projectId }) =>
      subscriptions.remove(projectId, params.webhookId),
    // 202: queued; the delivery log shows the attempt once it is made.
    'post /{projectId}/webhooks/{webhookId}/test': async ({ params }, { projectId }) =>
      reply.accepted(await subscriptions.sendTest(projectId, params.webhookId)),
    'get /{projectId}/webhooks/{webhookId}/deliveries': async ({ params, query }, { projectId }) => {
      const { items, pagination } = await subscriptions.deliveries(projectId, params.webhookId, query);
      return reply.page(items, pagination);
    },
  });
}
