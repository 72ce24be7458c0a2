/**
 * Webhook subscriptions (spec §2, §3, §4.9): rows in the service's schema, always read and written with
 * the project of the request, so one project never sees another's. The secret is sealed before it is
 * stored and returned in cleartext by create only.
 */
import {
  paginationOf,
  type CreateWebhookRequest,
  type CreatedWebhook,
  type DeliveryAttemptStatus,
  type Pagination,
  type UpdateWebhookRequest,
  type Webhook,
  type WebhookDeliveryAttempt,
  type WebhookEventName,
  type WebhookOutcome,
  keptInstant,
  keptInstantOrNull,
} from '@verdict/contracts';
import { NotFoundError, ValidationError, newId, type Clock, type SqlDatabase } from '@verdict/platform';
import { checkTarget, checkUrlShape, type TargetPolicy } from '../security/targets';
import { newSigningSecret, type SecretBox } from '../security/secrets';
import { displayEventName, normalizeEventNames } from './eventNames';

export interface SubscriptionsDeps {
  db: SqlDatabase;
  schema: string;
  clock: Clock;
  cutover: Date;
  targets: TargetPolicy;
  secrets: SecretBox;
}

interface SubscriptionRow {
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

function webhookOf(row: SubscriptionRow, now: Date, cutover: Date): Webhook {
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

/**
 * A URL whose name resolves to a forbidden address is refused now. One that does not resolve at all is
 * accepted: DNS may be down, or the receiver's record not published yet; every delivery checks the
 * address again and an unresolvable one fails that attempt.
 */
async function requireReachableUrl(url: string, targets: TargetPolicy): Promise<string> {
  const target = await checkTarget(url, targets);
  if (target.ok) return target.url.toString();
  if (target.unresolved) {
    const shape = checkUrlShape(url);
    if (shape.ok) return shape.url.toString();
  }
  throw new ValidationError(`url: ${target.reason}`);
}

export function createSubscriptions(deps: SubscriptionsDeps) {
  const { db, schema, clock, cutover } = deps;

  async function find(projectId: string, webhookId: string): Promise<SubscriptionRow> {
    const { rows } = await db.query<SubscriptionRow>(
      `SELECT ${COLUMNS} FROM ${schema}.subscriptions WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL`,
      [projectId, webhookId],
    );
    const row = rows[0];
    if (!row) throw new NotFoundError(`Webhook ${webhookId} not found`);
    return row;
  }

  return {
    async create(projectId: string, body: CreateWebhookRequest): Promise<CreatedWebhook> {
      const now = clock.now();
      const events = normalizeEventNames(body.events, now, cutover);
      const url = await requireReachableUrl(body.url, deps.targets);
      const secret = newSigningSecret();
      const id = `wh_${newId(now.getTime()).replace(/-/g, '')}`;
      const { rows } = await db.query<SubscriptionRow>(
        `INSERT INTO ${schema}.subscriptions (id, project_id, url, events, outcome, description, active,
           failure_count, sealed_secret, created_at, updated_at)
         VALUES ($1, $2, $3, $4::text[], $5, $6, true, 0, $7, $8, $8)
         RETURNING ${COLUMNS}`,
        [
          id,
          projectId,
          url,
          events,
          body.conditions.outcome,
          body.description,
          deps.secrets.seal(secret),
          now,
        ],
      );
      return { ...webhookOf(rows[0] as SubscriptionRow, now, cutover), secret };
    },

    async list(
      projectId: string,
      page: number,
      limit: number,
    ): Promise<{ items: Webhook[]; pagination: Pagination }> {
      const now = clock.now();
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
      return {
        items: rows.map((row) => webhookOf(row, now, cutover)),
        pagination: paginationOf(page, limit, Number(count.rows[0]?.total ?? 0)),
      };
    },

    async get(projectId: string, webhookId: string): Promise<Webhook> {
      return webhookOf(await find(projectId, webhookId), clock.now(), cutover);
    },

    async update(projectId: string, webhookId: string, body: UpdateWebhookRequest): Promise<Webhook> {
      const now = clock.now();
      await find(projectId, webhookId);
      const events = body.events === undefined ? null : normalizeEventNames(body.events, now, cutover);
      const url = body.url === undefined ? null : await requireReachableUrl(body.url, deps.targets);
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<SubscriptionRow>(
          `UPDATE ${schema}.subscriptions SET
             url = coalesce($3, url),
             events = coalesce($4::text[], events),
             outcome = coalesce($5, outcome),
             description = coalesce($6, description),
             active = coalesce($7, active),
             -- Spec §3: active=true re-enables and clears the count; pausing keeps the count as it is.
             failure_count = CASE WHEN $7 IS TRUE THEN 0 ELSE failure_count END,
             disabled_at = CASE WHEN $7 IS NULL THEN disabled_at ELSE NULL END,
             updated_at = $8
           WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL
           RETURNING ${COLUMNS}`,
          [
            projectId,
            webhookId,
            url,
            events,
            body.conditions?.outcome ?? null,
            body.description ?? null,
            body.active ?? null,
            now,
          ],
        );
        const row = rows[0];
        if (!row) throw new NotFoundError(`Webhook ${webhookId} not found`);
        // A paused subscription sends nothing more, queued retries included.
        if (body.active === false) await dropPending(tx, schema, webhookId);
        return webhookOf(row, now, cutover);
      });
    },

    async remove(projectId: string, webhookId: string): Promise<{ id: string; deleted: true }> {
      const now = clock.now();
      await db.transaction(async (tx) => {
        const { rowCount } = await tx.query(
          `UPDATE ${schema}.subscriptions SET deleted_at = $3, active = false, updated_at = $3
           WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL`,
          [projectId, webhookId, now],
        );
        if (rowCount === 0) throw new NotFoundError(`Webhook ${webhookId} not found`);
        await dropPending(tx, schema, webhookId);
      });
      return { id: webhookId, deleted: true };
    },

    async deliveries(
      projectId: string,
      webhookId: string,
      query: { page: number; limit: number; status?: DeliveryAttemptStatus | undefined },
    ): Promise<{ items: WebhookDeliveryAttempt[]; pagination: Pagination }> {
      await find(projectId, webhookId);
      // Attempts made, plus the next attempt of every delivery still queued (status pending).
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
    },
  };
}

export type Subscriptions = ReturnType<typeof createSubscriptions>;

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
    eventName: row.event_name as WebhookEventName,
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

/**
 * Queued deliveries of a subscription that will not be sent: it was paused, disabled or deleted. Their
 * attempt records no longer announce a retry. A delivery being sent right now keeps its lease, so the
 * attempt in flight is still recorded (as dropped, unless it succeeded): it did reach the receiver.
 */
export async function dropPending(
  tx: { query: SqlDatabase['query'] },
  schema: string,
  subscriptionId: string,
): Promise<void> {
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
