import { EventEnvelope } from '@verdict/contracts';
import { replayedEventIds } from '../deadLetters/bus';
import type { EventBus, IncomingMessage, Subscription } from '../eventBus/types';
import type { EventStore, StoredEvent } from '../eventStore/types';
import type { Logger } from '../logging';
import type { SqlDatabase } from '../sql/types';
import { applyNew, gapLockKey, IDENTIFIER, place, type Projection } from './readModelTables';
import { initProjection, rebuildProjection } from './rebuild';

export type { Projection } from './readModelTables';

export interface Projector {
  /** The consumer group's suffix: the projection's name, or the name given to a list of projections. */
  readonly name: string;
  /**
   * Creates each projection's schema, tables and checkpoints (idempotent). A projection whose stored
   * version is older than its code's is rebuilt from the projector's `rebuildFrom` stores first.
   */
  init(): Promise<void>;
  /**
   * Applies events once: those at or below the stored position of their stream are skipped, the rest are
   * applied and the positions saved in the same transaction, every projection of the projector in that one
   * transaction. Returns how many were applied (summed over the projections). `replays` names events that
   * are dead letters sent again (replayedEventIds): never applied when they were dead-lettered, they are
   * applied now even though their stream has moved past them, once (their ids are kept).
   */
  applyEvents(events: StoredEvent[], options?: { replays?: ReadonlySet<string> }): Promise<number>;
  /** Consumes the bus as the consumer group `projector.<name>`. */
  subscribe(
    bus: EventBus,
    topics: string[],
    options?: {
      maxAttempts?: number;
      backoff?: { initialMs: number; maxMs: number };
      /** Events per transaction at most (the bus's default, 500, otherwise). */
      maxBatchSize?: number;
    },
  ): Promise<Subscription>;
  /**
   * Replays `source` (or the `rebuildFrom` stores) from position 0 into fresh tables, then, holding each
   * projection's lock so live batches wait, catches up to the head and swaps the fresh tables in. Returns
   * the events replayed.
   */
  rebuild(source?: EventStore | readonly EventStore[], options?: { batchSize?: number }): Promise<number>;
}

export interface ProjectorOptions {
  db: SqlDatabase;
  logger: Logger;
  /** One projection: the projector takes its name. */
  projection?: Projection;
  /** Several projections fed by one consumer, each batch applied to all of them in one transaction. */
  projections?: readonly Projection[];
  /** The projector's name when it runs several projections. */
  name?: string;
  /**
   * The event stores its events come from, replayed in this order when a projection's version moved on
   * (and by `rebuild()` without a source). Without them, a version bump refuses to start.
   */
  rebuildFrom?: readonly EventStore[];
}

/** Parses a bus message into the event it carries; a malformed one throws and ends in the dead letters. */
export function eventOfMessage(message: IncomingMessage): StoredEvent {
  return EventEnvelope.parse(JSON.parse(message.value));
}

/**
 * Runs projections: live from the bus, or rebuilt from event stores. Several projections given together
 * share one consumer and one transaction per batch (emmett's handleProjections), each in its own schema
 * with its own checkpoints, so each one can be rebuilt alone.
 *
 * @example const projector = createProjector({ db, projection: runList, logger, rebuildFrom: [store] }); await projector.init(); await projector.subscribe(bus, ['test-results']);
 */
export function createProjector(options: ProjectorOptions): Projector {
  const { db } = options;
  const list = [...(options.projection ? [options.projection] : []), ...(options.projections ?? [])];
  if (list.length === 0) throw new Error('A projector needs a projection');
  const name = options.name ?? (list.length === 1 ? list[0]?.name : undefined);
  if (name === undefined || !IDENTIFIER.test(name)) {
    throw new Error(`A projector of several projections needs a name matching ${IDENTIFIER}`);
  }
  const placed = list.map(place);
  for (const earlier of list.flatMap((projection) => projection.replaces ?? [])) {
    if (!IDENTIFIER.test(earlier) || list.some((projection) => projection.name === earlier)) {
      throw new Error(`A projection may replace another read model's schema, not ${earlier}`);
    }
  }
  const logger = options.logger.child({ component: 'projector', projector: name });

  async function applyEvents(
    events: StoredEvent[],
    applyOptions: { replays?: ReadonlySet<string> } = {},
  ): Promise<number> {
    return db.transaction(async (tx) => {
      let applied = 0;
      for (const { projection, live, lockKey } of placed) {
        // Shared: live batches run side by side; a rebuild's swap, or an inline append filling a gap,
        // takes one exclusively and waits for them.
        await tx.query(
          'SELECT pg_advisory_xact_lock_shared(hashtext($1)), pg_advisory_xact_lock_shared(hashtext($2))',
          [lockKey, gapLockKey(live)],
        );
        applied += await applyNew(tx, projection, live, events, logger, applyOptions);
      }
      return applied;
    });
  }

  return {
    name,
    async init() {
      for (const target of placed) await initProjection({ db, logger }, target, options.rebuildFrom);
      // Every projection that replaces an earlier read model is built by now: the earlier one goes.
      for (const earlier of new Set(list.flatMap((projection) => projection.replaces ?? []))) {
        await db.exec(`DROP SCHEMA IF EXISTS ${earlier} CASCADE`);
      }
    },
    applyEvents,
    subscribe(bus, topics, subscribeOptions = {}) {
      return bus.subscribe({
        groupId: `projector.${name}`,
        topics,
        fromBeginning: true,
        ...subscribeOptions,
        handleBatch: async (messages) => {
          await applyEvents(messages.map(eventOfMessage), { replays: replayedEventIds(messages) });
        },
      });
    },
    async rebuild(source, rebuildOptions = {}) {
      const sources: readonly EventStore[] | undefined =
        source === undefined ? options.rebuildFrom : Array.isArray(source) ? source : [source as EventStore];
      if (!sources) throw new Error(`Projector ${name} has no event stores to rebuild from`);
      let total = 0;
      for (const target of placed) {
        total += await rebuildProjection({ db, logger }, target, sources, rebuildOptions.batchSize ?? 1000);
      }
      return total;
    },
  };
}
