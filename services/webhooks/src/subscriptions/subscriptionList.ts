/**
 * The subscriptions read model: the `subscriptions` table (schema.ts), written inline, in the transaction
 * of each append to a subscription stream, so a write is readable when it returns and the delivery queue
 * (which joins it) never sends for a subscription its stream has paused, disabled or deleted. A
 * subscription that leaves the active state drops its queued deliveries in the same transaction.
 */
import {
  keptInstant,
  keptInstantOrNull,
  paginationOf,
  type Pagination,
  type Webhook,
  type WebhookEventName,
  type WebhookOutcome,
} from '@verdict/contracts';
import { NotFoundError, type SqlExecutor, type StoredEvent } from '@verdict/platform';
import { dropPending } from './deliveryQueue';
import { displayEventName } from './eventNames';
import { parseSubscriptionEvent, type SubscriptionEvent } from './subscription';

/** The table's columns, as SQL gives them. */
export interface SubscriptionRow {
  id: string;
  project_id: string;
  url: string;
  events: string[];
  outcome: string;
  description: string;
  active: boolean;
  failure_count: number;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, project_id, url, events, outcome, description, active, failure_count, disabled_at, created_at, updated_at';

/** How a row reads at `now` (event names in the spelling of the moment, spec §6). */
export function webhookOf(row: SubscriptionRow, now: Date, cutover: Date): Webhook {
  return {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    events: row.events.map((name) => displayEventName(name as WebhookEventName, now, cutover)),
    conditions: { outcome: row.outcome as WebhookOutcome },
    description: row.description,
    active: row.active,
    failureCount: Number(row.failure_count),
    disabledAt: keptInstantOrNull(row.disabled_at),
    createdAt: keptInstant(row.created_at),
    updatedAt: keptInstant(row.updated_at),
  };
}

/** One event's change to its row. */
async function applyOne(
  tx: SqlExecutor,
  schema: string,
  id: string,
  event: SubscriptionEvent,
): Promise<void> {
  const table = `${schema}.subscriptions`;
  switch (event.type) {
    case 'webhook.subscribed':
    case 'webhook.imported': {
      const d =
        event.type === 'webhook.imported'
          ? event.data
          : {
              ...event.data,
              active: true,
              failureCount: 0,
              disabledAt: null,
              createdAt: event.data.at,
              updatedAt: event.data.at,
              deletedAt: null,
            };
      // An imported row is the row itself: it is there already, and stays as it is.
      await tx.query(
        `INSERT INTO ${table} (id, project_id, url, events, outcome, description, active, failure_count,
           disabled_at, sealed_secret, created_at, updated_at, deleted_at)
         VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $9, $10, $11, $12, $13)
         ON CONFLICT (id) DO NOTHING`,
        [
          id,
          d.projectId,
          d.url,
          d.events,
          d.outcome,
          d.description,
          d.active,
          d.failureCount,
          d.disabledAt,
          d.sealedSecret,
          d.createdAt,
          d.updatedAt,
          d.deletedAt,
        ],
      );
      return;
    }
    case 'webhook.changed': {
      const { set, at } = event.data;
      await tx.query(
        `UPDATE ${table} SET url = coalesce($2, url), events = coalesce($3::text[], events),
           outcome = coalesce($4, outcome), description = coalesce($5, description), updated_at = $6
         WHERE id = $1`,
        [id, set.url ?? null, set.events ?? null, set.outcome ?? null, set.description ?? null, at],
      );
      return;
    }
    case 'webhook.activated':
      await tx.query(
        `UPDATE ${table} SET active = true, failure_count = 0, disabled_at = NULL, updated_at = $2 WHERE id = $1`,
        [id, event.data.at],
      );
      return;
    case 'webhook.paused':
      await tx.query(
        `UPDATE ${table} SET active = false, disabled_at = NULL, updated_at = $2 WHERE id = $1`,
        [id, event.data.at],
      );
      // A paused subscription sends nothing more, queued retries included.
      await dropPending(tx, schema, id);
      return;
    case 'webhook.delivery-failed':
      await tx.query(`UPDATE ${table} SET failure_count = failure_count + 1 WHERE id = $1`, [id]);
      return;
    case 'webhook.failures-cleared':
      await tx.query(`UPDATE ${table} SET failure_count = 0 WHERE id = $1`, [id]);
      return;
    case 'webhook.disabled':
      await tx.query(`UPDATE ${table} SET active = false, disabled_at = $2, updated_at = $2 WHERE id = $1`, [
        id,
        event.data.at,
      ]);
      // Spec §3: a disabled subscription is sent nothing more, queued retries included.
      await dropPending(tx, schema, id);
      return;
    case 'webhook.deleted':
      await tx.query(`UPDATE ${table} SET deleted_at = $2, active = false, updated_at = $2 WHERE id = $1`, [
        id,
        event.data.at,
      ]);
      await dropPending(tx, schema, id);
      return;
  }
}

/**
 * The inline projection of the subscription streams, for the webhooks event store.
 *
 * @example createSqlEventStore({ db, schema, inline: projectSubscriptions(schema) });
 */
export function projectSubscriptions(schema: string) {
  return async (tx: SqlExecutor, events: readonly StoredEvent[]): Promise<void> => {
    for (const stored of events) {
      const id = stored.streamId.slice('webhook-'.length);
      await applyOne(tx, schema, id, parseSubscriptionEvent(stored));
    }
  };
}

/** A subscription of the project, not deleted; 404 otherwise (another project's included). */
export async function findWebhook(
  db: SqlExecutor,
  schema: string,
  projectId: string,
  webhookId: string,
): Promise<SubscriptionRow> {
  const { rows } = await db.query<SubscriptionRow>(
    `SELECT ${COLUMNS} FROM ${schema}.subscriptions WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL`,
    [projectId, webhookId],
  );
  const row = rows[0];
  if (!row) throw new NotFoundError(`Webhook ${webhookId} not found`);
  return row;
}

/** A page of the project's subscriptions, in creation order. */
export async function listWebhooks(
  db: SqlExecutor,
  schema: string,
  projectId: string,
  page: number,
  limit: number,
): Promise<{ rows: SubscriptionRow[]; pagination: Pagination }> {
  const [{ rows }, count] = await Promise.all([
    db.query<SubscriptionRow>(
      `SELECT ${COLUMNS} FROM ${schema}.subscriptions WHERE project_id = $1 AND deleted_at IS NULL
       ORDER BY created_at, id LIMIT $2 OFFSET $3`,
      [projectId, limit, (page - 1) * limit],
    ),
    db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM ${schema}.subscriptions WHERE project_id = $1 AND deleted_at IS NULL`,
      [projectId],
    ),
  ]);
  return { rows, pagination: paginationOf(page, limit, Number(count.rows[0]?.total ?? 0)) };
}

/** Rows that have no stream yet: kept before subscriptions were event-sourced, deleted ones included. */
export async function rowsWithoutStream(db: SqlExecutor, schema: string) {
  const { rows } = await db.query<SubscriptionRow & { sealed_secret: string; deleted_at: Date | null }>(
    `SELECT ${COLUMNS}, sealed_secret, deleted_at FROM ${schema}.subscriptions s
     WHERE NOT EXISTS (SELECT 1 FROM ${schema}.events e WHERE e.stream_id = 'webhook-' || s.id)
     ORDER BY created_at, id`,
  );
  return rows;
}
