/**
 * What an attempt did, recorded: the attempt and the retry it schedules commit together, and a delivery's
 * final outcome goes to its subscription as a command in the same transaction (spec §3: five failed in a
 * row disable it). Most attempts are successes on a clean count: they are recorded in groups, and their
 * subscription records nothing. A test delivery (`webhook.test`) is tried once and its outcome is only
 * listed: the subscription's failure count is about the events it subscribed to.
 */
import { WEBHOOK_TEST_EVENT } from '@verdict/contracts';
import type { Logger, SqlDatabase, SqlExecutor } from '@verdict/platform';
import { lockSubscription, type SubscriptionStore } from '../subscriptions/subscriptionStore';
import { markAttempt, markSucceeded, type Attempt, type Claimed } from './attempts';

export interface AttemptRecorderOptions {
  db: SqlDatabase;
  schema: string;
  logger: Logger;
  /** A delivery's final outcome is a command on its subscription, in the attempt's transaction. */
  subscriptions: Pick<SubscriptionStore, 'handle'>;
  /** Waits before attempts 2, 3, …; attempts in all: one more than its length. */
  retryDelaysMs: readonly number[];
}

const isTest = (delivery: Claimed) => delivery.event_name === WEBHOOK_TEST_EVENT;

export function createAttemptRecorder(options: AttemptRecorderOptions) {
  const { db, schema, logger } = options;

  /** The subscription hears of a delivery that will not be tried again, in the transaction recording it. */
  async function tellSubscription(tx: SqlExecutor, delivery: Claimed, ok: boolean, now: Date): Promise<void> {
    const command = { type: 'recordDelivery' as const, deliveryId: delivery.id, ok, now };
    await options.subscriptions.handle(delivery.subscription_id, command, {
      projectId: delivery.project_id,
      tx,
    });
  }

  function logAttempt({ delivery, outcome }: Attempt, recorded: boolean): void {
    if (!recorded) {
      logger.warn({ deliveryId: delivery.id }, 'lease lost before the attempt was recorded');
      return;
    }
    const { statusCode, ok, error } = outcome;
    const attempt = Number(delivery.attempts) + 1;
    const subscriptionId = delivery.subscription_id;
    logger.info(
      { deliveryId: delivery.id, subscriptionId, attempt, statusCode, ok, error },
      'webhook attempt',
    );
  }

  async function recordOne(attempt: Attempt): Promise<void> {
    const number = Number(attempt.delivery.attempts) + 1;
    const test = isTest(attempt.delivery);
    const retry = !test && !attempt.outcome.ok && number <= options.retryDelaysMs.length;
    const delay = options.retryDelaysMs[number - 1] ?? 0;
    const nextAttemptAt = retry ? new Date(attempt.at.getTime() + delay) : null;
    const { recorded } = await db.transaction(async (tx) => {
      // The subscription's row before the delivery's, as every writer of the subscription takes them.
      const tells = !retry && !test;
      if (tells) await lockSubscription(tx, schema, attempt.delivery.subscription_id);
      const marked = await markAttempt(tx, schema, attempt, nextAttemptAt);
      if (marked.recorded && !marked.dropped && tells)
        await tellSubscription(tx, attempt.delivery, attempt.outcome.ok, attempt.at);
      return marked;
    });
    logAttempt(attempt, recorded);
  }

  async function recordSuccesses(batch: Attempt[]): Promise<void> {
    const recorded = await db.transaction(async (tx) => {
      const failures = await markSucceeded(tx, schema, batch);
      for (const { delivery, at } of batch) {
        if (!isTest(delivery) && (failures.get(delivery.id) ?? 0) > 0)
          await tellSubscription(tx, delivery, true, at);
      }
      return failures;
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
        const done = (error?: unknown) => (error === undefined ? resolve() : reject(error as Error));
        successes.push({ ...attempt, done });
        if (!flushing) void flushSuccesses();
      });
    },
  };
}
