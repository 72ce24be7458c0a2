/**
 * The delivery queue as a subscription sees it: its attempt history (spec §4.9's deliveries), queuing its
 * test delivery, and dropping what it will not send once it stopped. The queue's senders (delivery/)
 * claim and record attempts with statements of their own; they depend on this slice, never the reverse.
 */
import { randomBytes } from 'node:crypto';
import {
  WEBHOOK_TEST_EVENT,
  keptInstant,
  keptInstantOrNull,
  paginationOf,
  type DeliveryAttemptStatus,
  type Pagination,
  type DeliveryEventName,
  type WebhookDeliveryAttempt,
  type WebhookTestPayload,
} from '@verdict/contracts';
import { NotFoundError, type SqlExecutor } from '@verdict/platform';

interface AttemptRow {
  id: string;
  delivery_id: string;
  event_name: string;
  attempt: number;
  status: string;
  status_code: number | null;
  response_time_ms: number | null;
  error: string | null;
  created_at: Date;
  attempted_at: Date | null;
  next_attempt_at: Date | null;
}

function attemptOf(row: AttemptRow, webhookId: string): WebhookDeliveryAttempt {
  return {
    id: row.id,
    deliveryId: row.delivery_id,
    webhookId,
    eventName: row.event_name as DeliveryEventName,
    attempt: Number(row.attempt),
    status: row.status as DeliveryAttemptStatus,
    statusCode: row.status_code === null ? null : Number(row.status_code),
    responseTimeMs: row.response_time_ms === null ? null : Number(row.response_time_ms),
    error: row.error,
    createdAt: keptInstant(row.created_at),
    attemptedAt: keptInstantOrNull(row.attempted_at),
    nextAttemptAt: keptInstantOrNull(row.next_attempt_at),
  };
}

/** A page of a subscription's attempts, newest first: those made, and the next of each queued delivery. */
export async function deliveryHistory(
  db: SqlExecutor,
  schema: string,
  webhookId: string,
  query: { page: number; limit: number; status?: DeliveryAttemptStatus | undefined },
): Promise<{ items: WebhookDeliveryAttempt[]; pagination: Pagination }> {
  const source = `(
      SELECT a.id, a.delivery_id, d.event_name, a.attempt, a.status, a.status_code, a.response_time_ms,
        a.error, d.created_at, a.attempted_at, a.next_attempt_at,
        a.attempted_at AS sort_at
      FROM ${schema}.delivery_attempts a JOIN ${schema}.deliveries d ON d.id = a.delivery_id
      WHERE a.subscription_id = $1
      UNION ALL
      SELECT d.id || '-' || (d.attempts + 1), d.id, d.event_name, d.attempts + 1, 'pending', NULL, NULL,
        NULL, d.created_at, NULL, d.next_attempt_at,
        d.next_attempt_at AS sort_at
      FROM ${schema}.deliveries d
      WHERE d.subscription_id = $1 AND d.status = 'pending'
    ) AS attempts
    WHERE ($2::text IS NULL OR status = $2)`;
  const [{ rows }, count] = await Promise.all([
    db.query<AttemptRow>(
      `SELECT * FROM ${source} ORDER BY sort_at DESC, attempt DESC, id DESC LIMIT $3 OFFSET $4`,
      [webhookId, query.status ?? null, query.limit, (query.page - 1) * query.limit],
    ),
    db.query<{ total: number }>(`SELECT count(*)::int AS total FROM ${source}`, [
      webhookId,
      query.status ?? null,
    ]),
  ]);
  return {
    items: rows.map((row) => attemptOf(row, webhookId)),
    pagination: paginationOf(query.page, query.limit, Number(count.rows[0]?.total ?? 0)),
  };
}

/**
 * Queued deliveries of a subscription that will not be sent: it was paused, disabled or deleted. Their
 * attempt records no longer announce a retry. A delivery being sent right now keeps its lease, so the
 * attempt in flight is still recorded (as dropped, unless it succeeded): it did reach the receiver.
 */
export async function dropPending(tx: SqlExecutor, schema: string, subscriptionId: string): Promise<void> {
  await tx.query(
    `WITH dropped AS (
       UPDATE ${schema}.deliveries SET status = 'dropped', next_attempt_at = NULL
       WHERE subscription_id = $1 AND status = 'pending'
       RETURNING id
     )
     UPDATE ${schema}.delivery_attempts a SET next_attempt_at = NULL
     FROM dropped WHERE a.delivery_id = dropped.id AND a.next_attempt_at IS NOT NULL`,
    [subscriptionId],
  );
}

/**
 * Queues one `webhook.test` delivery to a subscription of the project, due now, whatever its state (a
 * paused or disabled one too: testing the receiver before re-enabling is the point). The row's `run_json`
 * holds the payload's `data`. Throws NotFoundError for a subscription that is not there (or not the
 * project's, or deleted), checked in the insert itself so a delete meanwhile cannot leave one behind.
 */
export async function enqueueTest(
  db: SqlExecutor,
  schema: string,
  options: { projectId: string; webhookId: string; now: Date },
): Promise<string> {
  const { projectId, webhookId, now } = options;
  const id = `dlv_${randomBytes(16).toString('hex')}`;
  const data: WebhookTestPayload['data'] = { test: true, webhookId, projectId };
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO ${schema}.deliveries (id, subscription_id, project_id, source_event_id, event_name, run_json,
       occurred_at, status, attempts, next_attempt_at, created_at)
     SELECT $1, s.id, s.project_id, $1, $4, $5, $6, 'pending', 0, $6, $6
     FROM ${schema}.subscriptions s WHERE s.id = $2 AND s.project_id = $3 AND s.deleted_at IS NULL
     RETURNING id`,
    [id, webhookId, projectId, WEBHOOK_TEST_EVENT, JSON.stringify(data), now],
  );
  if (rows.length === 0) throw new NotFoundError(`Webhook ${webhookId} not found`);
  return id;
}
