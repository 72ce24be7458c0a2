import { EventEnvelope } from '@verdict/contracts';
import { replayedEventIds } from '../deadLetters/bus';
import type { EventBus, IncomingMessage, Subscription } from '../eventBus/types';
import type { EventStore, GlobalCursor, StoredEvent } from '../eventStore/types';
import { START } from '../eventStore/types';
import type { Logger } from '../logging';
import type { SqlDatabase, SqlExecutor } from '../sql/types';

/**
 * A read model: its tables live in a PostgreSQL schema named after it, so that a rebuild can fill a fresh
 * copy beside the live one and swap the two in one transaction while queries keep reading the old copy.
 */
export interface Projection {
  /** Lower-case identifier; also the schema that holds its tables. */
  readonly name: string;
  /** Creates its tables inside `schema`; idempotent. */
  setup(tx: SqlExecutor, schema: string): Promise<void>;
  /** Applies events, each new to the projection and in order within its stream, inside the transaction. */
  apply(tx: SqlExecutor, events: StoredEvent[], schema: string): Promise<void>;
}

export interface Projector {
  readonly name: string;
  /** Creates the projection's schema, its tables and its checkpoints; idempotent. */
  init(): Promise<void>;
  /**
   * Applies events once: those at or below the stored position of their stream are skipped, the rest are
   * applied and the positions saved in the same transaction. Returns how many were applied. `replays` names
   * events that are dead letters sent again (replayedEventIds): never applied when they were dead-lettered,
   * they are applied now even though their stream has moved past them, once (their ids are kept).
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
   * Replays `source` from position 0 into fresh tables, then, holding the projection's lock so live
   * batches wait, catches up to the head and swaps the fresh tables in. Returns the events replayed.
   */
  rebuild(source: EventStore, options?: { batchSize?: number }): Promise<number>;
}

const IDENTIFIER = /^[a-z][a-z0-9_]{0,40}$/;
const REBUILD_SUFFIX = '__rebuild';
const RETIRED_SUFFIX = '__retired';

/** Parses a bus message into the event it carries; a malformed one throws and ends in the dead letters. */
export function eventOfMessage(message: IncomingMessage): StoredEvent {
  return EventEnvelope.parse(JSON.parse(message.value));
}

async function createTables(tx: SqlExecutor, projection: Projection, schema: string): Promise<void> {
  await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await tx.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.projection_checkpoints (
       stream_id text PRIMARY KEY,
       stream_position integer NOT NULL
     )`,
  );
  await tx.query(`CREATE TABLE IF NOT EXISTS ${schema}.projection_replays (event_id text PRIMARY KEY)`);
  await projection.setup(tx, schema);
}

/** Applies the events that are new to `schema`, and saves each stream's new position; one transaction. */
async function applyNew(
  tx: SqlExecutor,
  projection: Projection,
  schema: string,
  events: StoredEvent[],
  logger: Logger,
  replays: ReadonlySet<string> = new Set(),
): Promise<number> {
  if (events.length === 0) return 0;
  const replayed = await newReplays(tx, schema, events, replays);
  const streamIds = [...new Set(events.map((e) => e.streamId))];
  const { rows } = await tx.query<{ stream_id: string; stream_position: number }>(
    `SELECT stream_id, stream_position FROM ${schema}.projection_checkpoints WHERE stream_id = ANY($1::text[])`,
    [streamIds],
  );
  const positions = new Map(rows.map((r) => [r.stream_id, Number(r.stream_position)]));
  const stored = new Map(positions);
  const fresh: StoredEvent[] = [];
  for (const event of events) {
    const at = positions.get(event.streamId) ?? 0;
    if (replayed.has(event.eventId)) {
      // A dead letter sent again: its stream moved on without it, so its position is no guide.
      fresh.push(event);
      if (event.streamPosition > at) positions.set(event.streamId, event.streamPosition);
      continue;
    }
    if (event.streamPosition <= at) continue;
    if (event.streamPosition > at + 1 && at > 0) {
      logger.warn(
        {
          projection: projection.name,
          streamId: event.streamId,
          expected: at + 1,
          got: event.streamPosition,
        },
        'gap in stream positions',
      );
    }
    positions.set(event.streamId, event.streamPosition);
    fresh.push(event);
  }
  if (fresh.length === 0) return 0;
  await projection.apply(tx, fresh, schema);
  if (replayed.size > 0) {
    await tx.query(
      `INSERT INTO ${schema}.projection_replays (event_id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`,
      [[...replayed]],
    );
  }
  const changed = [...positions].filter(([id, position]) => stored.get(id) !== position);
  await tx.query(
    `INSERT INTO ${schema}.projection_checkpoints (stream_id, stream_position)
     SELECT * FROM unnest($1::text[], $2::int[])
     ON CONFLICT (stream_id) DO UPDATE SET stream_position = EXCLUDED.stream_position`,
    [changed.map(([id]) => id), changed.map(([, position]) => position)],
  );
  return fresh.length;
}

/** Of the events that are replays, those this projection has not applied as a replay before. */
async function newReplays(
  tx: SqlExecutor,
  schema: string,
  events: StoredEvent[],
  replays: ReadonlySet<string>,
): Promise<Set<string>> {
  const candidates = events.filter((event) => replays.has(event.eventId)).map((event) => event.eventId);
  if (candidates.length === 0) return new Set();
  const { rows } = await tx.query<{ event_id: string }>(
    `SELECT event_id FROM ${schema}.projection_replays WHERE event_id = ANY($1::text[])`,
    [candidates],
  );
  const applied = new Set(rows.map((row) => row.event_id));
  return new Set(candidates.filter((id) => !applied.has(id)));
}

/**
 * Runs one projection: live from the bus, or rebuilt from an event store.
 *
 * @example const projector = createProjector({ db, projection: runList, logger }); await projector.init(); await projector.subscribe(bus, ['test-results']);
 */
export function createProjector(options: {
  db: SqlDatabase;
  projection: Projection;
  logger: Logger;
}): Projector {
  const { db, projection } = options;
  if (!IDENTIFIER.test(projection.name))
    throw new Error(`Projection name must match ${IDENTIFIER}: ${projection.name}`);
  const logger = options.logger.child({ component: 'projector', projection: projection.name });
  const live = projection.name;
  const fresh = `${projection.name}${REBUILD_SUFFIX}`;
  const retired = `${projection.name}${RETIRED_SUFFIX}`;
  const lockKey = `projection:${projection.name}`;

  async function applyEvents(
    events: StoredEvent[],
    applyOptions: { replays?: ReadonlySet<string> } = {},
  ): Promise<number> {
    return db.transaction(async (tx) => {
      // Shared: live batches run side by side; a rebuild's swap takes it exclusively and waits for them.
      await tx.query('SELECT pg_advisory_xact_lock_shared(hashtext($1))', [lockKey]);
      return applyNew(tx, projection, live, events, logger, applyOptions.replays);
    });
  }

  async function replay(source: EventStore, from: GlobalCursor, batchSize: number, tx?: SqlExecutor) {
    let cursor = from;
    let count = 0;
    for (;;) {
      const { events, cursor: next } = await source.readAll({ after: cursor, limit: batchSize });
      if (events.length === 0) return { cursor, count };
      count += tx
        ? await applyNew(tx, projection, fresh, events, logger)
        : await db.transaction((t) => applyNew(t, projection, fresh, events, logger));
      cursor = next;
    }
  }

  return {
    name: projection.name,
    async init() {
      await db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
        await createTables(tx, projection, live);
      });
    },
    applyEvents,
    subscribe(bus, topics, subscribeOptions = {}) {
      return bus.subscribe({
        groupId: `projector.${projection.name}`,
        topics,
        fromBeginning: true,
        ...subscribeOptions,
        handleBatch: async (messages) => {
          await applyEvents(messages.map(eventOfMessage), { replays: replayedEventIds(messages) });
        },
      });
    },
    async rebuild(source, rebuildOptions = {}) {
      const batchSize = rebuildOptions.batchSize ?? 1000;
      await db.exec(`DROP SCHEMA IF EXISTS ${fresh} CASCADE`);
      await db.transaction((tx) => createTables(tx, projection, fresh));
      const started = Date.now();
      const first = await replay(source, START, batchSize);
      const total = await db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
        const last = await replay(source, first.cursor, batchSize, tx);
        await tx.query(`DROP SCHEMA IF EXISTS ${retired} CASCADE`);
        await tx.query(`CREATE SCHEMA IF NOT EXISTS ${live}`);
        await tx.query(`ALTER SCHEMA ${live} RENAME TO ${retired}`);
        await tx.query(`ALTER SCHEMA ${fresh} RENAME TO ${live}`);
        await tx.query(`DROP SCHEMA ${retired} CASCADE`);
        return first.count + last.count;
      });
      logger.info({ events: total, ms: Date.now() - started }, 'projection rebuilt');
      return total;
    },
  };
}
