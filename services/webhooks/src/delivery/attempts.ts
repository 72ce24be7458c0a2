/**
 * The statements of the queue's senders. A claim takes due deliveries in one statement (FOR UPDATE SKIP
 * LOCKED, then a lease: `next_attempt_at` moved past the longest send), so replicas never take the same
 * one and a delivery whose sender died comes back when its lease runs out. Recording an attempt is
 * guarded by the lease, so a sender that lost its lease records nothing.
 */
import { WEBHOOK_TEST_EVENT, type DeliveryEventName } from '@verdict/contracts';
import type { SqlDatabase, SqlExecutor } from '@verdict/platform';
import type { SendOutcome } from './send';

/** A leased delivery with its subscription's target and sealed secret: what an attempt needs. */
export interface Claimed {
  id: string;
  subscription_id: string;
  project_id: string;
  event_name: DeliveryEventName;
  run_json: string;
  occurred_at: Date;
  attempts: number;
  lease: string;
  url: string;
  sealed_secret: string;
}

/** One attempt over: when it started (the history's `attemptedAt`) and ended (retries count from it). */
export interface Attempt {
  delivery: Claimed;
  outcome: SendOutcome;
  startedAt: Date;
  at: Date;
}

/**
 * Takes up to `limit` due deliveries under a new lease that ends at `until`: those of active subscriptions,
 * and test deliveries of any subscription not deleted.
 */
export async function claimDue(
  db: SqlDatabase,
  schema: string,
  options: { now: Date; until: Date; lease: string; limit: number },
): Promise<Claimed[]> {
  const { rows } = await db.query<Claimed>(
    `WITH due AS (
       SELECT d.id FROM ${schema}.deliveries d
       JOIN ${schema}.subscriptions s ON s.id = d.subscription_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND s.deleted_at IS NULL
         AND (s.active OR d.event_name = $5)
       ORDER BY d.next_attempt_at, d.occurred_at, d.id
       LIMIT $2
       FOR UPDATE OF d SKIP LOCKED
     ), claimed AS (
       UPDATE ${schema}.deliveries d SET next_attempt_at = $3, lease = $4
       FROM due WHERE d.id = due.id
       RETURNING d.id, d.subscription_id, d.project_id, d.event_name, d.run_json, d.occurred_at, d.attempts, d.lease
     )
     SELECT c.*, s.url, s.sealed_secret FROM claimed c JOIN ${schema}.subscriptions s ON s.id = c.subscription_id`,
    [options.now, options.limit, options.until, options.lease, WEBHOOK_TEST_EVENT],
  );
  return rows;
}

/**
 * Records one attempt: the delivery's attempts, its retry (`nextAttemptAt`, null for none) or its end,
 * and the attempt in the history. False when the lease was lost. A delivery dropped while its attempt was
 * in flight (its subscription paused, disabled or deleted meanwhile) gets the attempt, and nothing after.
 */
export async function markAttempt(
  tx: SqlExecutor,
  schema: string,
  { delivery, outcome, startedAt }: Attempt,
  nextAttemptAt: Date | null,
): Promise<{ recorded: boolean; dropped: boolean }> {
  const number = Number(delivery.attempts) + 1;
  const status = outcome.ok ? 'succeeded' : nextAttemptAt === null ? 'failed' : 'pending';
  const { rows } = await tx.query<{ dropped: boolean }>(
    `UPDATE ${schema}.deliveries SET attempts = $4, lease = NULL,
       status = CASE WHEN status = 'dropped' THEN status ELSE $3 END,
       next_attempt_at = CASE WHEN status = 'dropped' THEN NULL ELSE $5::timestamptz END
     WHERE id = $1 AND lease = $2
     RETURNING status = 'dropped' AS dropped`,
    [delivery.id, delivery.lease, status, number, nextAttemptAt],
  );
  const row = rows[0];
  if (row === undefined) return { recorded: false, dropped: false };
  await tx.query(
    `INSERT INTO ${schema}.delivery_attempts (id, delivery_id, subscription_id, attempt, status, status_code,
       response_time_ms, error, attempted_at, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (delivery_id, attempt) DO NOTHING`,
    [
      `${delivery.id}-${number}`,
      delivery.id,
      delivery.subscription_id,
      number,
      outcome.ok ? 'succeeded' : 'failed',
      outcome.statusCode,
      outcome.responseTimeMs,
      outcome.error,
      startedAt,
      row.dropped ? null : nextAttemptAt,
    ],
  );
  return { recorded: true, dropped: row.dropped };
}

/**
 * Records successful attempts together, in one statement: each delivery done (if its lease still holds)
 * and its attempt listed. Answers the deliveries recorded with their subscription's failure count.
 */
export async function markSucceeded(
  tx: SqlExecutor,
  schema: string,
  batch: Attempt[],
): Promise<Map<string, number>> {
  const { rows } = await tx.query<{ id: string; failure_count: number }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS i(id text, lease text, attempt integer, status_code integer, response_time_ms integer,
           attempted_at timestamptz)
     ), done AS (
       UPDATE ${schema}.deliveries d SET status = 'succeeded', attempts = i.attempt, next_attempt_at = NULL,
         lease = NULL
       FROM input i WHERE d.id = i.id AND d.lease = i.lease
       RETURNING d.id, d.subscription_id
     ), listed AS (
       INSERT INTO ${schema}.delivery_attempts (id, delivery_id, subscription_id, attempt, status,
         status_code, response_time_ms, error, attempted_at, next_attempt_at)
       SELECT done.id || '-' || i.attempt, done.id, done.subscription_id, i.attempt, 'succeeded',
         i.status_code, i.response_time_ms, NULL, i.attempted_at, NULL
       FROM done JOIN input i ON i.id = done.id
       ON CONFLICT (delivery_id, attempt) DO NOTHING
     )
     SELECT done.id, s.failure_count FROM done JOIN ${schema}.subscriptions s ON s.id = done.subscription_id`,
    [
      JSON.stringify(
        batch.map(({ delivery, outcome, startedAt }) => ({
          id: delivery.id,
          lease: delivery.lease,
          attempt: Number(delivery.attempts) + 1,
          status_code: outcome.statusCode,
          response_time_ms: outcome.responseTimeMs,
          attempted_at: startedAt.toISOString(),
        })),
      ),
    ],
  );
  return new Map(rows.map((row) => [row.id, Number(row.failure_count)]));
}
