/**
 * The dead letters of every consumer, for operators (`/admin/v1/dead-letters`, docs/operations.md): a
 * paginated read, and a replay of the letters not replayed yet into the consumers that failed them.
 * `npm run dlq` is a client of these two routes, in both modes.
 */
import { deadLetterAdminRoutes, paginationOf } from '@verdict/contracts';
import {
  bindRoutes,
  registerRoutes,
  replayDeadLetters,
  reply,
  type DeadLetterStore,
  type EventBus,
} from '@verdict/platform';
import { Router } from 'express';
import { requireAdminKey } from '../identity/adminKey';

/**
 * The dead-letter routes, behind the admin key; mount under `/admin/v1`.
 *
 * @example app.use('/admin/v1', deadLetterRouter({ store, bus }, adminKey));
 */
export function deadLetterRouter(ports: { store: DeadLetterStore; bus: EventBus }, adminKey: string): Router {
  const router = Router();
  router.use('/dead-letters', requireAdminKey(adminKey));
  const routes = bindRoutes(deadLetterAdminRoutes, {
    'get /dead-letters': async ({ query: { page, limit, ...filter } }) => {
      const { items, total } = await ports.store.list({ ...filter, page, limit });
      return reply.page(items, paginationOf(page, limit, total));
    },
    'post /dead-letters/replay': async ({ body }) => ({ replayed: await replayDeadLetters(ports, body) }),
  });
  registerRoutes(router, routes);
  return router;
}
