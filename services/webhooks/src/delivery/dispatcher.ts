/**
 * The delivery loop: it claims due deliveries and sends them, nothing else (the runs projection queues
 * them, attempts.ts records what happened). It sends at most `concurrency` requests at once; a delivery
 * whose request is over frees its slot while its outcome is recorded (its lease keeps it from being
 * claimed again), so slow recording never idles the senders. It wakes on a poll timer, on notify() after
 * an enqueue, and on a freed slot while the last claim found more than it could take.
 */
import { randomBytes } from 'node:crypto';
import type { Clock, Logger, SqlDatabase } from '@verdict/platform';
import type { TargetPolicy } from '../security/targets';
import type { SecretBox } from '../security/secrets';
import type { SubscriptionStore } from '../subscriptions/subscriptionStore';
import { claimDue, type Claimed } from './attempts';
import { createAttemptRecorder } from './recorder';
import { attemptDelivery } from './request';
import { createSender } from './send';

export const DEFAULT_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000];
export const DEFAULT_TIMEOUT_MS = 15_000;

export interface DispatcherOptions {
  db: SqlDatabase;
  schema: string;
  clock: Clock;
  logger: Logger;
  /** A delivery's final outcome is a command on its subscription, in the attempt's transaction. */
  subscriptions: Pick<SubscriptionStore, 'handle'>;
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
  /** Sends every delivery due now, until none is left; resolves with how many attempts were made. */
  drain(): Promise<number>;
  stop(): Promise<void>;
}

/** A sleep of `ms` that wake() ends early: the loop's poll timer. */
function createAlarm(ms: number) {
  let ring: () => void = () => undefined;
  return {
    sleep: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        timer.unref();
        function done() {
          clearTimeout(timer);
          ring = () => undefined;
          resolve();
        }
        ring = done;
      }),
    wake: () => ring(),
  };
}

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, schema, clock } = options;
  const logger = options.logger.child({ component: 'webhook-dispatcher' });
  const concurrency = options.concurrency ?? 64;
  const sender = createSender({ maxSocketsPerAddress: concurrency });
  const recorder = createAttemptRecorder({ ...options, logger });
  // A lease outlives the longest send, with room for recording its outcome.
  const leaseMs = options.timeoutMs + 30_000;

  function claim(limit: number): Promise<Claimed[]> {
    const now = clock.now();
    const until = new Date(now.getTime() + leaseMs);
    return claimDue(db, schema, { now, until, lease: randomBytes(12).toString('hex'), limit });
  }

  /** Sends and records one delivery; `sent` runs once the request is over, before the record. */
  async function deliver(delivery: Claimed, sent: () => void = () => undefined): Promise<void> {
    const startedAt = clock.now();
    const outcome = await attemptDelivery(delivery, startedAt, { ...options, sender });
    sent();
    await recorder.record({ delivery, outcome, startedAt, at: clock.now() });
  }

  let running = false;
  let sending = 0;
  // Whether due deliveries may be waiting unclaimed: the last claim took all it asked for.
  let backlog = true;
  // notify() came during a claim, which may have missed what was just queued.
  let notified = false;
  const alarm = createAlarm(options.pollIntervalMs ?? 1_000);
  let loop: Promise<void> = Promise.resolve();
  const inFlight = new Set<Promise<void>>();

  function launch(delivery: Claimed): void {
    sending += 1;
    let slot = true;
    const release = () => {
      if (!slot) return;
      slot = false;
      sending -= 1;
      if (backlog) alarm.wake();
    };
    const work: Promise<void> = deliver(delivery, release)
      .catch((error: unknown) => logger.error({ err: error, deliveryId: delivery.id }, 'recording failed'))
      .finally(() => {
        release();
        inFlight.delete(work);
      });
    inFlight.add(work);
  }

  async function run(): Promise<void> {
    while (running) {
      const limit = concurrency - sending;
      if (limit > 0) {
        try {
          notified = false;
          const claimed = await claim(limit);
          backlog = claimed.length === limit;
          for (const delivery of claimed) launch(delivery);
          if (backlog || notified) continue;
        } catch (error) {
          logger.warn({ err: error }, 'claiming deliveries failed; retrying on the next poll');
        }
      }
      await alarm.sleep();
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    notify() {
      backlog = true;
      notified = true;
      alarm.wake();
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
      alarm.wake();
      await loop;
      await Promise.all([...inFlight]);
      sender.close();
    },
  };
}
