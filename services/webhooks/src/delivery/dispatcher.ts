/**
 * The delivery loop. Due deliveries are claimed in one statement (FOR UPDATE SKIP LOCKED, then a lease:
 * `next_attempt_at` moved past the longest send), so replicas share the queue without taking the same
 * delivery, and a delivery whose sender died comes back when its lease runs out. Each attempt's outcome,
 * the retry it schedules and the subscription's failure count commit together, guarded by the lease, so a
 * sender that lost its lease records nothing. Time (due, retries, cutover) comes from the injected clock;
 * the loop wakes on a poll timer and on notify() after an enqueue.
 */
import { randomBytes } from 'node:crypto';
import { signWebhook, standardWebhookSignature, type WebhookEventName } from '@verdict/contracts';
import type { Clock, Logger, SqlDatabase, SqlExecutor } from '@verdict/platform';
import { checkTarget, type TargetPolicy } from '../security/targets';
import type { SecretBox } from '../security/secrets';
import { eventNamesOfDelivery } from '../subscriptions/eventNames';
import { dropPending } from '../subscriptions/subscriptions';
import { createSender, type SendOutcome } from './send';

/**
 * Spec §3, §6: consecutive failed deliveries after which a subscription is disabled. A delivery fails when
 * its last attempt does; an attempt that is retried later decides nothing yet.
 */
export const MAX_CONSECUTIVE_FAILURES = 5;
export const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000];
export const DEFAULT_TIMEOUT_MS = 15_000;
const USER_AGENT = 'Verdict-Webhooks/0.1';

export interface DispatcherOptions {
  db: SqlDatabase;
  schema: string;
  clock: Clock;
  logger: Logger;
  cutover: Date;
  /** Waits before attempts 2, 3, …; attempts in all: one more than its length. */
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  targets: TargetPolicy;
  secrets: SecretBox;
  /** Requests in flight at once per replica (default 64). */
  concurrency?: number;
  /** How often the loop looks for due deliveries without being notified (default 1,000 ms). */
  pollIntervalMs?: number;
}

export interface Dispatcher {
  start(): void;
  /** Wakes the loop: a delivery was just queued. */
  notify(): void;
  /**
   * Free request slots, taken for deliveries about to be queued, with the lease to queue them under (null
   * when none is free or the loop is not running): queued already leased, they need no claim.
   */
  reserve(): Reservation | null;
  /**
   * Sends the deliveries queued under the reservation (call once their transaction committed; with none
   * when it did not) and frees its other slots.
   */
  sendReserved(reservation: Reservation, claimed: Claimed[]): void;
  /** Sends every delivery due now, until none is left; resolves with how many attempts were made. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

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

export interface Reservation {
  lease: string;
  /** The lease's end: `next_attempt_at` of the deliveries queued under it. */
  until: Date;
  slots: number;
}

interface Recording {
  delivery: Claimed;
  outcome: SendOutcome;
  /** When the attempt ended: retries are counted from it. */
  at: Date;
  /** When the attempt started: the history's `attemptedAt`. */
  startedAt: Date;
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, schema, clock } = options;
  const logger = options.logger.child({ component: 'webhook-dispatcher' });
  const concurrency = options.concurrency ?? 64;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const maxAttempts = options.retryDelaysMs.length + 1;
  // A lease outlives the longest send, with room for recording its outcome.
  const leaseMs = options.timeoutMs + 30_000;
  const sender = createSender({ maxSocketsPerAddress: concurrency });

  const newLease = () => randomBytes(12).toString('hex');
  const leaseEnd = (now: Date) => new Date(now.getTime() + leaseMs);

  async function claim(limit: number): Promise<Claimed[]> {
    const now = clock.now();
    const lease = newLease();
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
      [now, limit, leaseEnd(now), lease],
    );
    return rows;
  }

  function requestOf(delivery: Claimed, secret: string, now: Date) {
    // Named as at the attempt's time: from the cutover on nothing carries the older names (spec §6), a
    // retry of an earlier event included, though its body then differs from the first attempt's.
    const names = eventNamesOfDelivery(delivery.event_name, now, options.cutover);
    const body = JSON.stringify({
      id: delivery.id,
      ...names,
      createdAt: new Date(delivery.occurred_at).toISOString(),
      projectId: delivery.project_id,
      data: { run: JSON.parse(delivery.run_json) as unknown },
    });
    const timestamp = Math.floor(now.getTime() / 1_000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-service-signature': signWebhook(body, secret, timestamp),
      'x-service-event': names.event,
      'x-service-delivery': delivery.id,
      // Standard Webhooks, so receivers can use its off-the-shelf verifiers.
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': standardWebhookSignature(delivery.id, timestamp, body, secret),
    };
    if (names.eventName !== undefined) headers['x-service-event-name'] = names.eventName;
    return { body, headers };
  }

  async function attempt(delivery: Claimed): Promise<SendOutcome> {
    const now = clock.now();
    const target = await checkTarget(delivery.url, options.targets);
    if (!target.ok)
      return { ok: false, statusCode: null, responseTimeMs: 0, error: `refused: url ${target.reason}` };
    const { body, headers } = requestOf(delivery, options.secrets.open(delivery.sealed_secret), now);
    return sender.send({
      url: target.url,
      address: target.address,
      headers,
      body,
      timeoutMs: options.timeoutMs,
    });
  }

  /** Records one attempt with its consequences (retry, failure count, disabling) in one transaction. */
  async function recordOne(
    delivery: Claimed,
    outcome: SendOutcome,
    now: Date,
    startedAt: Date,
  ): Promise<void> {
    const number = Number(delivery.attempts) + 1;
    const retry = !outcome.ok && number < maxAttempts;
    const nextAttemptAt = retry ? new Date(now.getTime() + (options.retryDelaysMs[number - 1] ?? 0)) : null;
    const status = outcome.ok ? 'succeeded' : retry ? 'pending' : 'failed';
    await db.transaction(async (tx) => {
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
      const recorded = rows[0];
      if (recorded === undefined) {
        logger.warn({ deliveryId: delivery.id }, 'lease lost before the attempt was recorded');
        return;
      }
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
          recorded.dropped ? null : nextAttemptAt,
        ],
      );
      if (status !== 'pending' && !recorded.dropped) {
        await countOutcome(tx, delivery.subscription_id, outcome.ok, now);
      }
    });
    logAttempt(delivery, outcome);
  }

  function logAttempt(delivery: Claimed, outcome: SendOutcome): void {
    logger.info(
      {
        deliveryId: delivery.id,
        subscriptionId: delivery.subscription_id,
        attempt: Number(delivery.attempts) + 1,
        statusCode: outcome.statusCode,
        ok: outcome.ok,
        error: outcome.error,
      },
      'webhook attempt',
    );
  }

  /**
   * Records successful attempts together, in one statement: the delivery done (if its lease still holds),
   * the attempt listed, the subscription's failure count cleared. Successes are nearly every attempt, and
   * one round trip per attempt would cap a replica's rate at what its pool can do one by one.
   */
  async function recordSuccesses(batch: Recording[]): Promise<void> {
    const { rows } = await db.query<{ id: string }>(
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
       ), cleared AS (
         UPDATE ${schema}.subscriptions SET failure_count = 0
         WHERE id IN (SELECT subscription_id FROM done) AND failure_count <> 0
       )
       SELECT id FROM done`,
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
    const recorded = new Set(rows.map((row) => row.id));
    for (const { delivery, outcome } of batch) {
      if (recorded.has(delivery.id)) logAttempt(delivery, outcome);
      else logger.warn({ deliveryId: delivery.id }, 'lease lost before the attempt was recorded');
    }
  }

  const successes: (Recording & { done(error?: unknown): void })[] = [];
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
          // One at a time instead (a deadlock with another replica clearing the same counts, say).
          logger.warn({ err: error, count: batch.length }, 'recording successes together failed; one by one');
          for (const item of batch) {
            await recordOne(item.delivery, item.outcome, item.at, item.startedAt).then(
              () => item.done(),
              (failure: unknown) => item.done(failure),
            );
          }
        }
      }
    } finally {
      flushing = false;
    }
  }

  function record(delivery: Claimed, outcome: SendOutcome, startedAt: Date): Promise<void> {
    const at = clock.now();
    if (!outcome.ok) return recordOne(delivery, outcome, at, startedAt);
    return new Promise((resolve, reject) => {
      successes.push({
        delivery,
        outcome,
        at,
        startedAt,
        done: (error?: unknown) => (error === undefined ? resolve() : reject(error as Error)),
      });
      if (!flushing) void flushSuccesses();
    });
  }

  async function countOutcome(
    tx: SqlExecutor,
    subscriptionId: string,
    ok: boolean,
    now: Date,
  ): Promise<void> {
    if (ok) {
      await tx.query(
        `UPDATE ${schema}.subscriptions SET failure_count = 0 WHERE id = $1 AND failure_count <> 0`,
        [subscriptionId],
      );
      return;
    }
    const { rows } = await tx.query<{ disabled: boolean }>(
      `UPDATE ${schema}.subscriptions SET
         failure_count = failure_count + 1,
         active = active AND failure_count + 1 < $2,
         disabled_at = CASE WHEN active AND failure_count + 1 >= $2 THEN $3 ELSE disabled_at END,
         updated_at = CASE WHEN active AND failure_count + 1 >= $2 THEN $3 ELSE updated_at END
       WHERE id = $1
       RETURNING (disabled_at = $3) AS disabled`,
      [subscriptionId, MAX_CONSECUTIVE_FAILURES, now],
    );
    if (rows[0]?.disabled === true) {
      // Spec §3: a disabled subscription is sent nothing more, queued retries included.
      await dropPending(tx, schema, subscriptionId);
      logger.warn({ subscriptionId }, 'webhook subscription disabled after consecutive failed deliveries');
    }
  }

  /** `sent` runs once the request is over, before its outcome is recorded. */
  async function deliver(delivery: Claimed, sent: () => void = () => undefined): Promise<void> {
    let outcome: SendOutcome;
    const startedAt = clock.now();
    try {
      outcome = await attempt(delivery);
    } catch (error) {
      outcome = { ok: false, statusCode: null, responseTimeMs: 0, error: (error as Error).message };
    }
    sent();
    await record(delivery, outcome, startedAt);
  }

  let running = false;
  let pumping = false;
  let wanted = false;
  let timer: NodeJS.Timeout | null = null;
  // The budget counts requests in flight; a delivery whose request is over frees its slot while its
  // outcome is recorded (its lease keeps it from being claimed again), so slow recording never idles the
  // senders. inFlight holds both, for stop().
  let sending = 0;
  // Whether due deliveries may be waiting unclaimed: false after a claim found fewer than it asked for,
  // true again on notify() and on the poll. A freed slot claims only then, not once per request.
  let backlog = true;
  const inFlight = new Set<Promise<void>>();

  /** Sends a claimed delivery whose slot is already counted in `sending`. */
  function launch(delivery: Claimed): void {
    let slot = true;
    const release = () => {
      if (!slot) return;
      slot = false;
      sending -= 1;
      if (backlog) void pump();
    };
    const work: Promise<void> = deliver(delivery, release)
      .catch((error: unknown) => logger.error({ err: error, deliveryId: delivery.id }, 'recording failed'))
      .finally(() => {
        release();
        inFlight.delete(work);
      });
    inFlight.add(work);
  }

  async function pump(): Promise<void> {
    if (!running) return;
    if (pumping) {
      wanted = true;
      return;
    }
    pumping = true;
    try {
      do {
        wanted = false;
        while (running && sending < concurrency) {
          const limit = concurrency - sending;
          const claimed = await claim(limit);
          backlog = claimed.length === limit;
          if (claimed.length === 0) break;
          sending += claimed.length;
          for (const delivery of claimed) launch(delivery);
        }
      } while (wanted && running);
    } catch (error) {
      logger.warn({ err: error }, 'claiming deliveries failed; retrying on the next poll');
    } finally {
      pumping = false;
    }
  }

  function schedule(): void {
    if (!running) return;
    timer = setTimeout(() => {
      backlog = true;
      void pump().finally(schedule);
    }, pollIntervalMs);
    timer.unref();
  }

  return {
    start() {
      if (running) return;
      running = true;
      void pump();
      schedule();
    },
    notify() {
      backlog = true;
      void pump();
    },
    reserve() {
      const slots = concurrency - sending;
      if (!running || slots <= 0) return null;
      sending += slots;
      return { lease: newLease(), until: leaseEnd(clock.now()), slots };
    },
    sendReserved(reservation, claimed) {
      const sent = claimed.slice(0, reservation.slots);
      sending -= reservation.slots - sent.length;
      for (const delivery of sent) launch(delivery);
      if (sent.length < reservation.slots && backlog) void pump();
    },
    async drain() {
      let attempts = 0;
      for (;;) {
        const claimed = await claim(concurrency);
        if (claimed.length === 0) return attempts;
        await Promise.all(claimed.map((delivery) => deliver(delivery)));
        attempts += claimed.length;
      }
    },
    async stop() {
      running = false;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      await Promise.all([...inFlight]);
      sender.close();
    },
  };
}
