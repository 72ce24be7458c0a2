/**
 * Claiming due deliveries and recording what their attempts did. A claim takes due deliveries in one
 * statement (FOR UPDATE SKIP LOCKED, then a lease: `next_attempt_at` moved past the longest send), so
 * replicas never take the same one and a delivery whose sender died comes back when its lease runs out.
 * An attempt's record and the retry it schedules commit together, guarded by the lease, so a sender that
 * lost its lease records nothing. A delivery's final outcome goes to its subscription as a command in the
 * same transaction (spec §3: five failed in a row disable it); most are successes on a clean count, which
 * record nothing.
 */
import type { WebhookEventName } from '@verdict/contracts';
import type { Clock, Logger, SqlDatabase, SqlExecutor } from '@verdict/platform';
import { subscriptionDecider } from '../subscriptions/decide';
import { subscriptionStream } from '../subscriptions/subscription';
import type { SubscriptionStore } from '../subscriptions/subscriptionStore';
import type { SendOutcome } from './send';

/** A leased delivery with its subscription's target and sealed secret: what an attempt needs. */
export interface Claimed {
  id: string;
  subscription_id: string;
  project_id: string;
  event_name: WebhookEventName;
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

/** Takes up to `limit` due deliveries of active subscriptions under a new lease that ends at `until`. */
export async function claimDue(
  db: SqlDatabase,
  schema: string,
  options: { now: Date; until: Date; lease: string; limit: number },
): Promise<Claimed[]> {
  const { rows } = await db.query<Claimed>(
    `WITH due AS (
       SELECT d.id FROM ${schema}.deliveries d
       JOIN ${schema}.subscriptions s ON s.id = d.subscription_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND s.active AND s.deleted_at IS NULL
       ORDER BY d.next_attempt_at, d.occurred_at, d.id
       LIMIT $2
       FOR UPDATE OF d SKIP LOCKED
     ), claimed AS (
       UPDATE ${schema}.deliveries d SET next_attempt_at = $3, lease = $4
       FROM due WHERE d.id = due.id
       RETURNING d.id, d.subscription_id, d.project_id, d.event_name, d.run_json, d.occurred_at, d.attempts, d.lease
     )
     SELECT c.*, s.url, s.sealed_secret FROM claimed c JOIN ${schema}.subscriptions s ON s.id = c.subscription_id`,
    [options.now, options.limit, options.until, options.lease],
  );
  return rows;
}

export interface AttemptRecorderOptions {
  db: SqlDatabase;
  schema: string;
  clock: Clock;
  logger: Logger;
  /** A delivery's final outcome is a command on its subscription, in the attempt's transaction. */
  subscriptions: Pick<SubscriptionStore, 'within'>;
  /** Waits before attempts 2, 3, …; attempts in all: one more than its length. */
  retryDelaysMs: readonly number[];
}

export function createAttemptRecorder(options: AttemptRecorderOptions) {
  const { db, schema, logger } = options;
  const maxAttempts = options.retryDelaysMs.length + 1;

  /**
   * Locks the subscription's row: the outcomes of one subscription's deliveries take turns instead of
   * racing for its stream's next version. Taken before the delivery's row, as an owner's pause takes them.
   */
  async function lockSubscription(tx: SqlExecutor, subscriptionId: string): Promise<void> {
    await tx.query(`SELECT 1 FROM ${schema}.subscriptions WHERE id = $1 FOR UPDATE`, [subscriptionId]);
  }

  /** The subscription hears of a delivery that will not be tried again, in the transaction recording it. */
  async function tellSubscription(tx: SqlExecutor, delivery: Claimed, ok: boolean, now: Date): Promise<void> {
    const id = delivery.subscription_id;
    await options.subscriptions
      .within(tx)
      .handle(
        subscriptionStream(id),
        subscriptionDecider(id),
        { type: 'recordDelivery', deliveryId: delivery.id, ok, now },
        { metadata: { projectId: delivery.project_id }, retries: 0 },
      );
  }

  function logAttempt({ delivery, outcome }: Attempt, recorded: boolean): void {
    if (!recorded) {
      logger.warn({ deliveryId: delivery.id }, 'lease lost before the attempt was recorded');
      return;
    }
    const { statusCode, ok, error } = outcome;
    const attempt = Number(delivery.attempts) + 1;
    logger.info(
      { deliveryId: delivery.id, subscriptionId: delivery.subscription_id, attempt, statusCode, ok, error },
      'webhook attempt',
    );
  }

  /** Records one attempt, the retry it schedules and, when it was the last, its subscription's count. */
  async function recordOne(attempt: Attempt): Promise<void> {
    const { delivery, outcome, at, startedAt } = attempt;
    const number = Number(delivery.attempts) + 1;
    const retry = !outcome.ok && number < maxAttempts;
    const nextAttemptAt = retry ? new Date(at.getTime() + (options.retryDelaysMs[number - 1] ?? 0)) : null;
    const status = outcome.ok ? 'succeeded' : retry ? 'pending' : 'failed';
    const recorded = await db.transaction(async (tx) => {
      if (!retry) await lockSubscription(tx, delivery.subscription_id);
      // Dropped while in flight (its subscription paused or disabled meanwhile): the attempt is recorded,
      // and nothing follows it.
      const { rows } = await tx.query<{ dropped: boolean }>(
        `UPDATE ${schema}.deliveries SET attempts = $4, lease = NULL,
           status = CASE WHEN status = 'dropped' THEN status ELSE $3 END,
           next_attempt_at = CASE WHEN status = 'dropped' THEN NULL ELSE $5::timestamptz END
         WHERE id = $1 AND lease = $2
         RETURNING status = 'dropped' AS dropped`,
        [delivery.id, delivery.lease, status, number, nextAttemptAt],
      );
      const row = rows[0];
      if (row === undefined) return false;
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
      if (!retry && !row.dropped) await tellSubscription(tx, delivery, outcome.ok, at);
      return true;
    });
    logAttempt(attempt, recorded);
  }

  /**
   * Records successful attempts together, in one statement: the delivery done (if its lease still holds)
   * and the attempt listed. Successes are nearly every attempt, and one round trip each would cap a
   * replica's rate at what its pool can do one by one. Only a subscription with failures to clear hears
   * of it, in the same transaction.
   */
  async function recordSuccesses(batch: Attempt[]): Promise<void> {
    const recorded = await db.transaction(async (tx) => {
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
      const failing = new Map(rows.map((row) => [row.id, Number(row.failure_count)]));
      for (const { delivery, at } of batch) {
        if ((failing.get(delivery.id) ?? 0) === 0) continue;
        await lockSubscription(tx, delivery.subscription_id);
        await tellSubscription(tx, delivery, true, at);
      }
      return failing;
    });
    for (const attempt of batch) logAttempt(attempt, recorded.has(attempt.delivery.id));
  }

  const successes: (Attempt & { done(error?: unknown): void })[] = [];
  let flushing = false;

  /** Group commit: successes that arrive while a flush runs go together in the next one. */
  async function flushSuccesses(): Promise<void> {
    flushing = true;
    try {
      while (successes.length > 0) {
        const batch = successes.splice(0);
        try {
          await recordSuccesses(batch);
          for (const item of batch) item.done();
        } catch (error) {
          // One at a time instead (a deadlock with another replica's statement on the same rows, say).
          logger.warn({ err: error, count: batch.length }, 'recording successes together failed; one by one');
          for (const item of batch) await recordOne(item).then(() => item.done(), item.done);
        }
      }
    } finally {
      flushing = false;
    }
  }

  return {
    /** Records an attempt with its consequences; resolves once they are committed. */
    record(attempt: Attempt): Promise<void> {
      if (!attempt.outcome.ok) return recordOne(attempt);
      return new Promise((resolve, reject) => {
        successes.push({
          ...attempt,
          done: (error?: unknown) => (error === undefined ? resolve() : reject(error as Error)),
        });
        if (!flushing) void flushSuccesses();
      });
    },
  };
}

export type AttemptRecorder = ReturnType<typeof createAttemptRecorder>;
