/**
 * The dead letters of every consumer, for operators (`/admin/v1/dead-letters`, docs/operations.md): a
 * paginated read, and a replay of the letters not replayed yet into the consumers that failed them.
 * `npm run dlq` is a client of these two routes, in both modes.
 */
import { DeadLettersQuery, paginationOf, ReplayDeadLettersRequest } from '@verdict/contracts';
import {
  parseBody,
  parseQuery,
  replayDeadLetters,
  sendData,
  sendList,
  type DeadLetterStore,
  type EventBus,
} from '@verdict/platform';
import { Router } from 'express';
import { requireAdminKey } from '../identity/admin.http';

/**
 * The dead-letter routes, behind the admin key; mount under `/admin/v1`.
 *
 * @example app.use('/admin/v1', deadLetterRouter({ store, bus }, adminKey));
 */
export function deadLetterRouter(ports: { store: DeadLetterStore; bus: EventBus }, adminKey: string): Router {
  const router = Router();
  router.use('/dead-letters', requireAdminKey(adminKey));

  router.get('/dead-letters', async (req, res) => {
    const { page, limit, ...filter } = parseQuery(DeadLettersQuery, req);
    const { items, total } = await ports.store.list({ ...filter, page, limit });
    sendList(res, items, paginationOf(page, limit, total));
  });

  router.post('/dead-letters/replay', async (req, res) => {
    const filter = parseBody(ReplayDeadLettersRequest, req);
    sendData(res, { replayed: await replayDeadLetters(ports, filter) });
  });

  return router;
}
