/**
 * The expiry sweep (issue 32): every so often, each quarantine whose expiry has come (by the injected
 * clock) is sent `expire`, which records test.quarantine-expired once. A quarantine stops forgiving at its
 * expiry whether or not the sweep has run (the reads compare with the clock); the sweep makes the end an
 * event, for the list, the webhooks and the history. Several processes may sweep: the decider records
 * nothing for a quarantine already expired, and a concurrent append is retried.
 */
import type { Clock, CommandHandler, Logger, SqlExecutor } from '@verdict/platform';
import { quarantineDecider, quarantineStream } from './quarantine';
import { dueQuarantines } from './quarantineList';

/** Quarantines expired per round; a longer backlog takes the next rounds. */
const BATCH = 100;

export interface QuarantineSweep {
  /** Expires what is due now; resolves to how many expired. */
  sweep(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

export interface QuarantineSweepOptions {
  db: SqlExecutor;
  schema: string;
  commands: CommandHandler;
  clock: Clock;
  logger: Logger;
  /** Between rounds; default a minute. */
  intervalMs?: number;
}

/** @example const sweep = createQuarantineSweep({ db, schema, commands, clock, logger }); sweep.start(); */
export function createQuarantineSweep(options: QuarantineSweepOptions): QuarantineSweep {
  const { db, schema, commands, clock, logger } = options;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<number> | null = null;

  async function round(): Promise<number> {
    let expired = 0;
    for (;;) {
      const now = clock.now();
      const due = await dueQuarantines(db, schema, now, BATCH);
      let expiredNow = 0;
      for (const { quarantineId, projectId } of due) {
        const { events } = await commands.handle(
          quarantineStream(quarantineId),
          quarantineDecider,
          { type: 'expire', now },
          { metadata: { projectId, occurredAt: now }, retries: 5 },
        );
        expiredNow += events.length;
      }
      expired += expiredNow;
      // A full batch of which nothing expired would come back the same: wait for the next round.
      if (due.length < BATCH || expiredNow === 0) return expired;
    }
  }

  const sweep = (): Promise<number> => {
    // One round at a time: a timer firing during a long round joins it.
    running ??= round().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    sweep,
    start() {
      if (timer) return;
      timer = setInterval(() => {
        sweep().then(
          (expired) => {
            if (expired > 0) logger.info({ expired }, 'quarantines expired');
          },
          (error: unknown) => logger.warn({ err: error }, 'the quarantine sweep failed; retrying next round'),
        );
      }, options.intervalMs ?? 60_000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => undefined);
    },
  };
}
