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
  /**
   * The version of its tables (default 1). Raise it when they change: at start, a projector finding an
   * older version rebuilds the read model from position 0 into fresh tables and swaps them in, so a read
   * model never needs `ALTER TABLE` for its own changes.
   */
  readonly version?: number;
  /** The event types it reads (default: every event). The others only move its checkpoints on. */
  readonly canHandle?: readonly string[];
  /** Creates its tables inside `schema`; idempotent. */
  setup(tx: SqlExecutor, schema: string): Promise<void>;
  /** Applies events, each new to the projection and in order within its stream, inside the transaction. */
  apply(tx: SqlExecutor, events: StoredEvent[], schema: string): Promise<void>;
}

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

const IDENTIFIER = /^[a-z][a-z0-9_]{0,40}$/;
const REBUILD_SUFFIX = '__rebuild';
const RETIRED_SUFFIX = '__retired';

/** Parses a bus message into the event it carries; a malformed one throws and ends in the dead letters. */
export function eventOfMessage(message: IncomingMessage): StoredEvent {
  return EventEnvelope.parse(JSON.parse(message.value));
}

/** The version of a projection's code (1 unless it says otherwise). */
const versionOf = (projection: Projection): number => projection.version ?? 1;

/**
 * Creates the schema and the runner's own tables (checkpoints, replays, version), not the projection's,
 * and returns the version of the tables the schema holds: as recorded; 1 for a read model made before
 * versions were recorded (it has a checkpoints table but no version); `fresh` for a new one.
 */
async function prepareSchema(tx: SqlExecutor, schema: string, fresh: number): Promise<number> {
  const { rows: existing } = await tx.query<{ checkpoints: string | null; version: string | null }>(
    `SELECT to_regclass($1)::text AS checkpoints, to_regclass($2)::text AS version`,
    [`${schema}.projection_checkpoints`, `${schema}.projection_version`],
  );
  await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  await tx.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.projection_checkpoints (
       stream_id text PRIMARY KEY,
       stream_position integer NOT NULL
     )`,
  );
  await tx.query(`CREATE TABLE IF NOT EXISTS ${schema}.projection_replays (event_id text PRIMARY KEY)`);
  await tx.query(`CREATE TABLE IF NOT EXISTS ${schema}.projection_version (version integer NOT NULL)`);
  const { rows } = await tx.query<{ version: number }>(`SELECT version FROM ${schema}.projection_version`);
  if (rows[0]) return Number(rows[0].version);
  const legacy = existing[0]?.checkpoints != null && existing[0]?.version == null;
  const version = legacy ? 1 : fresh;
  await tx.query(`INSERT INTO ${schema}.projection_version (version) VALUES ($1)`, [version]);
  return version;
}

/** The whole read model in `schema`, at the projection's version. */
async function createTables(tx: SqlExecutor, projection: Projection, schema: string): Promise<void> {
  await prepareSchema(tx, schema, versionOf(projection));
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
  // Events of other types still move the checkpoints on: a writer waiting for its stream's position
  // (read-your-writes) must not wait for an event this projection has no use for.
  const handled = projection.canHandle
    ? fresh.filter((event) => projection.canHandle?.includes(event.type))
    : fresh;
  if (handled.length > 0) await projection.apply(tx, handled, schema);
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
  return handled.length;
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

/** Where a projection lives and rebuilds: its live schema, the fresh copy, the retired one, its lock. */
interface Placed {
  projection: Projection;
  live: string;
  fresh: string;
  retired: string;
  lockKey: string;
}

function place(projection: Projection): Placed {
  if (!IDENTIFIER.test(projection.name))
    throw new Error(`Projection name must match ${IDENTIFIER}: ${projection.name}`);
  const version = versionOf(projection);
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new Error(`Projection ${projection.name}: version must be a positive integer, got ${version}`);
  }
  return {
    projection,
    live: projection.name,
    fresh: `${projection.name}${REBUILD_SUFFIX}`,
    retired: `${projection.name}${RETIRED_SUFFIX}`,
    lockKey: `projection:${projection.name}`,
  };
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
  const logger = options.logger.child({ component: 'projector', projector: name });

  async function applyEvents(
    events: StoredEvent[],
    applyOptions: { replays?: ReadonlySet<string> } = {},
  ): Promise<number> {
    return db.transaction(async (tx) => {
      let applied = 0;
      for (const { projection, live, lockKey } of placed) {
        // Shared: live batches run side by side; a rebuild's swap takes it exclusively and waits for them.
        await tx.query('SELECT pg_advisory_xact_lock_shared(hashtext($1))', [lockKey]);
        applied += await applyNew(tx, projection, live, events, logger, applyOptions.replays);
      }
      return applied;
    });
  }

  async function replay(
    target: Placed,
    sources: readonly EventStore[],
    from: readonly GlobalCursor[],
    batchSize: number,
    tx?: SqlExecutor,
  ): Promise<{ cursors: GlobalCursor[]; count: number }> {
    const cursors = [...from];
    let count = 0;
    for (const [index, source] of sources.entries()) {
      for (;;) {
        const { events, cursor: next } = await source.readAll({
          after: cursors[index] ?? START,
          limit: batchSize,
        });
        if (events.length === 0) break;
        const apply = (t: SqlExecutor) => applyNew(t, target.projection, target.fresh, events, logger);
        count += tx ? await apply(tx) : await db.transaction(apply);
        cursors[index] = next;
      }
    }
    return { cursors, count };
  }

  /** Replays into the fresh copy, then catches up and swaps it in under the exclusive lock. */
  async function rebuildOne(target: Placed, sources: readonly EventStore[], batchSize: number) {
    const { projection, live, fresh, retired, lockKey } = target;
    await db.exec(`DROP SCHEMA IF EXISTS ${fresh} CASCADE`);
    await db.transaction((tx) => createTables(tx, projection, fresh));
    const started = performance.now();
    const first = await replay(
      target,
      sources,
      sources.map(() => START),
      batchSize,
    );
    const total = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
      const last = await replay(target, sources, first.cursors, batchSize, tx);
      await tx.query(`DROP SCHEMA IF EXISTS ${retired} CASCADE`);
      await tx.query(`CREATE SCHEMA IF NOT EXISTS ${live}`);
      await tx.query(`ALTER SCHEMA ${live} RENAME TO ${retired}`);
      await tx.query(`ALTER SCHEMA ${fresh} RENAME TO ${live}`);
      await tx.query(`DROP SCHEMA ${retired} CASCADE`);
      return first.count + last.count;
    });
    logger.info(
      {
        projection: projection.name,
        version: versionOf(projection),
        events: total,
        ms: Math.round(performance.now() - started),
      },
      'projection rebuilt',
    );
    return total;
  }

  /** Creates a projection's live tables, or says it needs a rebuild (its stored version is older). */
  async function initOne({ projection, live, lockKey }: Placed): Promise<'ready' | 'outdated'> {
    return db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
      const stored = await prepareSchema(tx, live, versionOf(projection));
      // The old tables may lack what the new setup refers to (an index on a new column): not touched.
      if (stored < versionOf(projection)) return 'outdated';
      if (stored > versionOf(projection)) {
        logger.warn(
          { projection: projection.name, stored, code: versionOf(projection) },
          'the read model is newer than this code: applying to it as it is',
        );
      }
      await projection.setup(tx, live);
      return 'ready';
    });
  }

  return {
    name,
    async init() {
      for (const target of placed) {
        if ((await initOne(target)) === 'ready') continue;
        if (!options.rebuildFrom) {
          throw new Error(
            `Projection ${target.projection.name} is at an older version than version ${versionOf(target.projection)} of its code, and its projector has no event stores to rebuild it from (rebuildFrom)`,
          );
        }
        logger.info(
          { projection: target.projection.name, version: versionOf(target.projection) },
          'projection version changed: rebuilding from position 0',
        );
        await rebuildOne(target, options.rebuildFrom, 1000);
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
      const sources = source === undefined ? options.rebuildFrom : Array.isArray(source) ? source : [source];
      if (!sources) throw new Error(`Projector ${name} has no event stores to rebuild from`);
      let total = 0;
      for (const target of placed)
        total += await rebuildOne(target, sources as readonly EventStore[], rebuildOptions.batchSize ?? 1000);
      return total;
    },
  };
}
