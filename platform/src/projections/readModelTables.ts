import type { StoredEvent } from '../eventStore/types';
import type { Logger } from '../logging';
import type { SqlExecutor } from '../sql/types';

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
  /**
   * The schemas of earlier read models it takes over (a service's single read model cut into slices).
   * Created while one of them is still there, it is built from position 0 as after a version bump, and
   * its projector drops them once all its projections are ready.
   */
  readonly replaces?: readonly string[];
  /** Creates its tables inside `schema`; idempotent. */
  setup(tx: SqlExecutor, schema: string): Promise<void>;
  /** Applies events, each new to the projection and in order within its stream, inside the transaction. */
  apply(tx: SqlExecutor, events: StoredEvent[], schema: string): Promise<void>;
}

export const IDENTIFIER = /^[a-z][a-z0-9_]{0,40}$/;
const REBUILD_SUFFIX = '__rebuild';
const RETIRED_SUFFIX = '__retired';

/** The version of a projection's code (1 unless it says otherwise). */
export const versionOf = (projection: Projection): number => projection.version ?? 1;

/**
 * Creates the schema and the runner's own tables (checkpoints, replays, version), not the projection's,
 * and returns the version of the tables the schema holds: as recorded; 1 for a read model made before
 * versions were recorded (it has a checkpoints table but no version); `fresh` for a new one.
 */
export async function prepareSchema(tx: SqlExecutor, schema: string, fresh: number): Promise<number> {
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
export async function createTables(tx: SqlExecutor, projection: Projection, schema: string): Promise<void> {
  await prepareSchema(tx, schema, versionOf(projection));
  await projection.setup(tx, schema);
}

/** Reads the stored events of a stream from one position to another, both included, in order. */
export type StoredEventsBetween = (
  streamId: string,
  fromPosition: number,
  toPosition: number,
) => Promise<StoredEvent[]>;

export interface ApplyOptions {
  /** Dead letters sent again (the projector's `replays`): applied even though their streams moved on. */
  replays?: ReadonlySet<string>;
  /**
   * Inline only: the store's events a stream's position says the read model has not seen (appended before
   * it was inline, by an earlier version). They are applied first, holding the read model's gap lock
   * exclusively (projector batches hold it shared, see `gapLockKey`), so an upgrade leaves no hole and no
   * event is applied twice; in a projector they would come from another service's store, so it only warns.
   */
  missed?: StoredEventsBetween;
}

/** Applies the events that are new to `schema`, and saves each stream's new position; one transaction. */
export async function applyNew(
  tx: SqlExecutor,
  projection: Projection,
  schema: string,
  given: StoredEvent[],
  logger: Logger,
  options: ApplyOptions = {},
): Promise<number> {
  if (given.length === 0) return 0;
  const replayed = await newReplays(tx, schema, given, options.replays ?? new Set());
  const streamIds = [...new Set(given.map((e) => e.streamId))];
  let stored = await positionsOf(tx, schema, streamIds);
  let events = given;
  if (options.missed) {
    const behind = streamsBehind(given, stored);
    if (behind.length > 0) {
      // Once the lock is held, a projector's batch that was applying the same events has committed: read
      // the positions again.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [gapLockKey(schema)]);
      stored = await positionsOf(tx, schema, streamIds);
      events = [...(await missedEvents(stored, given, options.missed)), ...given];
    }
  }
  const positions = new Map(stored);
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

async function positionsOf(tx: SqlExecutor, schema: string, streamIds: string[]) {
  const { rows } = await tx.query<{ stream_id: string; stream_position: number }>(
    `SELECT stream_id, stream_position FROM ${schema}.projection_checkpoints WHERE stream_id = ANY($1::text[])`,
    [streamIds],
  );
  return new Map(rows.map((r) => [r.stream_id, Number(r.stream_position)]));
}

/**
 * Taken shared by every projector batch and exclusively by an inline append that fills a gap: the two are
 * the only writers that could apply the same stored event to the same tables at the same time.
 */
export const gapLockKey = (schema: string): string => `projection-gap:${schema}`;

/** The streams whose first given event is not the one after their saved position. */
function streamsBehind(events: StoredEvent[], positions: ReadonlyMap<string, number>): string[] {
  const first = new Map<string, number>();
  for (const event of events) {
    if (!first.has(event.streamId)) first.set(event.streamId, event.streamPosition);
  }
  return [...first].filter(([id, position]) => position > (positions.get(id) ?? 0) + 1).map(([id]) => id);
}

async function missedEvents(
  positions: ReadonlyMap<string, number>,
  events: StoredEvent[],
  missed: StoredEventsBetween,
): Promise<StoredEvent[]> {
  const found: StoredEvent[] = [];
  for (const streamId of streamsBehind(events, positions)) {
    const first = events.find((event) => event.streamId === streamId)?.streamPosition ?? 0;
    found.push(...(await missed(streamId, (positions.get(streamId) ?? 0) + 1, first - 1)));
  }
  return found;
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
export interface Placed {
  projection: Projection;
  live: string;
  fresh: string;
  retired: string;
  lockKey: string;
}

export function place(projection: Projection): Placed {
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
