/**
 * The event store over the SQL port: one implementation, the same SQL on PostgreSQL and on PGlite.
 *
 * Reading everything in order (the technique of Emmett). A bigserial position is taken when a row is
 * inserted, not when its transaction commits: transaction A takes position 10, transaction B takes 11 and
 * commits first. A reader asking for "position > 9" sees 11 and moves its cursor there; when A commits, 10
 * is behind the cursor and is skipped for good. So each row also records the transaction that wrote it
 * (`transaction_id`, pg_current_xact_id()), readers order by (transaction_id, global_position), and they
 * only see rows whose transaction id is below the xmin of their snapshot. Every transaction below xmin has
 * ended, and every transaction still running or yet to start has an id at or above it, so no row can ever
 * appear behind a cursor that stays below xmin. The price: a transaction that holds an id anywhere in the
 * cluster holds readers back until it ends, so keep write transactions short.
 *
 * Appending is one prepared statement (a version check and a multi-row INSERT in one CTE, atomic on its
 * own), so a batch costs one round trip and no planning; the unique (stream_id, stream_position)
 * constraint is the final guard against a concurrent writer that passed the same check.
 */
import { EventEnvelope, keptInstant } from '@verdict/contracts';
import type { Clock } from '../clock';
import { systemClock } from '../clock';
import { ConflictError, ServiceUnavailableError, VersionConflictError } from '../errors';
import { newId } from '../ids';
import { createSharedObjects } from '../sql/sharedObjects';
import type { SqlDatabase, SqlExecutor } from '../sql/types';
import { isSqlError, SQLSTATE } from '../sql/types';
import type {
  AppendMetadata,
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedVersion,
  GlobalCursor,
  NewEvent,
  ReadAllResult,
  ReadAllSerializedResult,
  SerializedEvent,
  StoredEvent,
} from './types';

export interface SqlEventStoreOptions {
  db: SqlDatabase;
  /** The PostgreSQL schema that holds this store's `events` table: lower-case letters, digits, `_`. */
  schema: string;
  /** Gives `occurredAt` when an append does not; the system clock by default. */
  clock?: Clock;
  /**
   * An inline projection (emmett's, Marten's): called with the events of every append, in the append's
   * transaction, so the read model it writes commits with them or not at all. Keep it to a few statements:
   * it holds the append's transaction open. `storedBetween` reads the stream's earlier events in the same
   * transaction (positions `from` to `to`, both included), for a read model that finds it missed some.
   */
  inline?: (
    tx: SqlExecutor,
    events: readonly StoredEvent[],
    storedBetween: (streamId: string, from: number, to: number) => Promise<StoredEvent[]>,
  ) => Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
const EVENT_ID_KEY = 'events_event_id_key';
const STREAM_POSITION_KEY = 'events_stream_position_key';
const PREPARED = { prepare: true } as const;
/**
 * An `any` append that loses the race for the next positions tries again, under the stream's lock after
 * the first loss; only a lock-free first attempt of yet another writer can beat it again.
 */
const ANY_VERSION_ATTEMPTS = 10;

interface EventToAppend {
  eventId: string;
  /** The caller gave the id, so finding it already stored means this append was done before. */
  idGiven: boolean;
  type: string;
  version: number;
  data: unknown;
}

interface AppendRow {
  head: number;
  event_id: string | null;
  stream_position: number | null;
  global_position: string | number | null;
}

interface EventRow {
  event_id: string;
  type: string;
  version: number;
  stream_id: string;
  stream_position: number;
  global_position: string | number;
  transaction_id: string;
  occurred_at: Date | string;
  correlation_id: string | null;
  causation_id: string | null;
  project_id: string | null;
  data: unknown;
}

const EVENT_COLUMNS = `event_id, type, version, stream_id, stream_position, global_position,
  transaction_id::text AS transaction_id, occurred_at, correlation_id, causation_id, project_id, data`;

/** The same columns with the data as the database prints it, for a reader that only forwards it. */
const SERIALIZED_COLUMNS = EVENT_COLUMNS.replace(/data$/, 'data::text AS data');

type CursorRow = Pick<EventRow, 'transaction_id' | 'global_position'>;

type SerializedRow = Omit<EventRow, 'data'> & { data: string };

/**
 * `data` is json, the text as appended, not jsonb: nothing queries inside it, readers parse it in Node and
 * the relay forwards it as text, so converting it to jsonb on every append and back on every read was pure
 * cost (about an eighth of an append of 500 results). Tables created with jsonb keep it: PostgreSQL casts
 * json to jsonb on insert and prints both as JSON text.
 */
function tableDefinition(schema: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${schema}`,
    `CREATE TABLE IF NOT EXISTS ${schema}.events (
       global_position bigserial PRIMARY KEY,
       transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
       event_id text NOT NULL,
       stream_id text NOT NULL,
       stream_position integer NOT NULL CHECK (stream_position >= 1),
       type text NOT NULL,
       version integer NOT NULL CHECK (version >= 1),
       data json NOT NULL,
       project_id text,
       correlation_id text,
       causation_id text,
       occurred_at timestamptz NOT NULL,
       recorded_at timestamptz NOT NULL DEFAULT now(),
       CONSTRAINT ${EVENT_ID_KEY} UNIQUE (event_id),
       CONSTRAINT ${STREAM_POSITION_KEY} UNIQUE (stream_id, stream_position)
     )`,
    `CREATE INDEX IF NOT EXISTS events_transaction_order ON ${schema}.events (transaction_id, global_position)`,
  ];
}

/**
 * The one statement that appends events, only if the stream is at the expected version, and always answers
 * at least one row carrying the stream's head before the append (so a refusal says where the stream is).
 * Events travel as one JSON array, so the text is the same for every batch size (prepared once) and no
 * batch runs into PostgreSQL's limit of 65,535 parameters.
 * $1 stream, $2 expected version (null: any), $3–$5 project, correlation, causation, $6 occurred at,
 * $7 the events as JSON: [{ event_id, type, version, data }].
 */
function appendStatement(schema: string): string {
  return `WITH head AS (
      SELECT coalesce(max(stream_position), 0) AS version FROM ${schema}.events WHERE stream_id = $1::text
    ), inserted AS (
      INSERT INTO ${schema}.events (event_id, stream_id, stream_position, type, version, data,
        project_id, correlation_id, causation_id, occurred_at)
      SELECT v.event_id, $1::text, head.version + v.ord::int, v.type, v.version,
        coalesce(v.data, 'null'::json), $3::text, $4::text, $5::text, $6::text::timestamptz
      FROM head, ROWS FROM (
        json_to_recordset($7::text::json) AS (event_id text, type text, version int, data json)
      ) WITH ORDINALITY AS v (event_id, type, version, data, ord)
      WHERE $2::int IS NULL OR head.version = $2::int
      ORDER BY v.ord
      RETURNING event_id, stream_position, global_position
    )
    SELECT head.version AS head, inserted.* FROM head LEFT JOIN inserted ON true`;
}

function expectedAsNumber(expected: ExpectedVersion): number | null {
  if (expected === 'any') return null;
  return expected === 'no_stream' ? 0 : expected;
}

function eventsToAppend(events: NewEvent[]): EventToAppend[] {
  const seen = new Set<string>();
  return events.map((event) => {
    if (typeof event.type !== 'string' || event.type === '') throw new TypeError('An event needs a type');
    if (!Number.isInteger(event.version) || event.version < 1) {
      throw new TypeError(`Event ${event.type} needs a version that is a positive integer`);
    }
    if (event.eventId === '') throw new TypeError(`Event ${event.type} has an empty event id`);
    const eventId = event.eventId ?? newId();
    if (seen.has(eventId)) throw new TypeError(`Event id ${eventId} appears twice in one append`);
    seen.add(eventId);
    return {
      eventId,
      idGiven: event.eventId !== undefined,
      type: event.type,
      version: event.version,
      data: event.data,
    };
  });
}

/** The envelope of a row read back from the store, without its data. */
function metadataOf(row: Omit<EventRow, 'data'>): EventMetadata {
  return {
    eventId: row.event_id,
    type: row.type,
    version: row.version,
    streamId: row.stream_id,
    streamPosition: row.stream_position,
    globalPosition: Number(row.global_position),
    occurredAt: keptInstant(row.occurred_at),
    correlationId: row.correlation_id,
    causationId: row.causation_id,
    projectId: row.project_id,
  };
}

/** Parses a row read back from the store into the contract's envelope. */
function eventOfRow(row: EventRow): StoredEvent {
  return EventEnvelope.parse({ ...metadataOf(row), data: row.data });
}

/**
 * The envelope's JSON with the data spliced in as stored: the columns come from this table's constraints,
 * the data is JSON the store itself validated on append, so neither is parsed here.
 */
function serializedOfRow(row: SerializedRow): SerializedEvent {
  const metadata = metadataOf(row);
  const head = JSON.stringify(metadata);
  return { ...metadata, json: `${head.slice(0, -1)},"data":${row.data}}` };
}

/**
 * The event store of one service, in `<schema>.events`.
 *
 * Idempotent appends: when every event of an append carries a caller-given `eventId` and all of them are
 * already stored in that stream, in that order, the append is a retry of one that succeeded: it returns the
 * stored events and the version right after them, whatever the expected version. If only some of the ids
 * are stored, or they belong to another stream, it fails with a ConflictError. The id alone decides: the
 * type and data of the retry are not compared. The events an append returns carry the `data` objects it
 * was given; reading them back gives their JSON round trip.
 *
 * @example const store = createSqlEventStore({ db, schema: 'test_results' }); await store.init();
 */
export function createSqlEventStore(options: SqlEventStoreOptions): EventStore {
  const { db, schema } = options;
  if (!IDENTIFIER.test(schema)) throw new TypeError(`Schema name must match ${IDENTIFIER}: ${schema}`);
  const clock = options.clock ?? systemClock;
  const appendText = appendStatement(schema);
  const streamLockKey = (streamId: string) => `verdict.event_store.${schema}.${streamId}`;

  async function streamVersion(executor: SqlExecutor, streamId: string): Promise<number> {
    const { rows } = await executor.query<{ version: number }>(
      `SELECT coalesce(max(stream_position), 0) AS version FROM ${schema}.events WHERE stream_id = $1`,
      [streamId],
      PREPARED,
    );
    return rows[0]?.version ?? 0;
  }

  /** Inserts the events if the stream is at `expected`; a VersionConflictError when it is not. */
  async function insert(
    executor: SqlExecutor,
    streamId: string,
    events: EventToAppend[],
    expected: ExpectedVersion,
    metadata: AppendMetadata,
    occurredAt: string,
  ): Promise<StoredEvent[]> {
    const eventsJson = JSON.stringify(
      events.map((event) => ({
        event_id: event.eventId,
        type: event.type,
        version: event.version,
        data: event.data ?? null,
      })),
    );
    const params = [
      streamId,
      expectedAsNumber(expected),
      metadata.projectId ?? null,
      metadata.correlationId ?? null,
      metadata.causationId ?? null,
      occurredAt,
      eventsJson,
    ];
    const { rows: answer } = await executor.query<AppendRow>(appendText, params, PREPARED);
    const positions = new Map<string, { streamPosition: number; globalPosition: number }>();
    for (const row of answer) {
      if (row.event_id !== null && row.stream_position !== null && row.global_position !== null) {
        positions.set(row.event_id, {
          streamPosition: row.stream_position,
          globalPosition: Number(row.global_position),
        });
      }
    }
    if (positions.size === 0) throw new VersionConflictError(streamId, expected, answer[0]?.head ?? 0);
    return events.map((event) => {
      const position = positions.get(event.eventId);
      if (!position) throw new Error(`The store did not report the position of event ${event.eventId}`);
      return {
        eventId: event.eventId,
        type: event.type,
        version: event.version,
        streamId,
        streamPosition: position.streamPosition,
        globalPosition: position.globalPosition,
        occurredAt,
        correlationId: metadata.correlationId ?? null,
        causationId: metadata.causationId ?? null,
        projectId: metadata.projectId ?? null,
        data: event.data,
      };
    });
  }

  /**
   * Appends in one statement, in autocommit. With `lockStream` it first takes the stream's advisory lock in a
   * transaction, so writers who lost a race for the same positions take turns instead of racing again (each
   * statement after the lock sees the previous holder's commit).
   */
  async function appendOnce(
    streamId: string,
    events: EventToAppend[],
    expected: ExpectedVersion,
    metadata: AppendMetadata,
    lockStream: boolean,
  ): Promise<AppendResult> {
    const occurredAt = (metadata.occurredAt ?? clock.now()).toISOString();
    const { inline } = options;
    const stored =
      lockStream || inline
        ? await db.transaction(async (tx) => {
            if (lockStream) {
              await tx.query(
                'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
                [streamLockKey(streamId)],
                PREPARED,
              );
            }
            const appended = await insert(tx, streamId, events, expected, metadata, occurredAt);
            await inline?.(tx, appended, async (id, from, to) => {
              const { rows } = await tx.query<EventRow>(
                `SELECT ${EVENT_COLUMNS} FROM ${schema}.events
                 WHERE stream_id = $1 AND stream_position BETWEEN $2 AND $3 ORDER BY stream_position`,
                [id, from, to],
              );
              return rows.map(eventOfRow);
            });
            return appended;
          })
        : await insert(db, streamId, events, expected, metadata, occurredAt);
    return { nextExpectedVersion: stored[stored.length - 1]?.streamPosition ?? 0, events: stored };
  }

  /**
   * The earlier append this one repeats (see the rule on createSqlEventStore), or null when none of its
   * caller-given ids is stored. Reads committed rows only: called after the failed attempt is over.
   */
  async function earlierAppend(streamId: string, events: EventToAppend[]): Promise<AppendResult | null> {
    const given = events.filter((event) => event.idGiven).map((event) => event.eventId);
    if (given.length === 0) return null;
    const { rows } = await db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${schema}.events
       WHERE event_id IN (SELECT jsonb_array_elements_text($1::text::jsonb))
       ORDER BY stream_position`,
      [JSON.stringify(given)],
    );
    if (rows.length === 0) return null;
    const stored = rows.map(eventOfRow);
    const first = stored[0]?.streamPosition ?? 0;
    const isRepeat =
      stored.length === events.length &&
      stored.every(
        (event, i) =>
          event.streamId === streamId &&
          event.eventId === events[i]?.eventId &&
          event.streamPosition === first + i,
      );
    if (!isRepeat) {
      const where = [...new Set(stored.map((event) => event.streamId))].join(', ');
      throw new ConflictError(
        `Events of this append are already stored (${stored.length} of ${events.length}, in ${where})`,
      );
    }
    return { nextExpectedVersion: stored[stored.length - 1]?.streamPosition ?? 0, events: stored };
  }

  async function append(
    streamId: string,
    newEvents: NewEvent[],
    options: { expectedVersion: ExpectedVersion } & AppendMetadata,
  ): Promise<AppendResult> {
    if (typeof streamId !== 'string' || streamId === '') throw new TypeError('A stream id is required');
    const { expectedVersion, ...metadata } = options;
    const events = eventsToAppend(newEvents);
    if (events.length === 0) {
      const version = await streamVersion(db, streamId);
      const expected = expectedAsNumber(expectedVersion);
      if (expected !== null && expected !== version) {
        throw new VersionConflictError(streamId, expectedVersion, version);
      }
      return { nextExpectedVersion: version, events: [] };
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await appendOnce(streamId, events, expectedVersion, metadata, attempt > 1);
      } catch (error) {
        // Two appends whose rows share unique keys can deadlock: PostgreSQL rolls one back whole, so trying
        // it again is the same as trying it the first time.
        if (
          isSqlError(error, SQLSTATE.deadlockDetected) ||
          isSqlError(error, SQLSTATE.serializationFailure)
        ) {
          if (attempt < ANY_VERSION_ATTEMPTS) continue;
          throw new ServiceUnavailableError(
            'The event store is too busy to take this append; retry it',
            error,
          );
        }
        const positionTaken = isSqlError(error, SQLSTATE.uniqueViolation, STREAM_POSITION_KEY);
        const idTaken = isSqlError(error, SQLSTATE.uniqueViolation, EVENT_ID_KEY);
        if (!positionTaken && !idTaken && !(error instanceof VersionConflictError)) throw error;
        // Any refusal may be a retry of an append that already succeeded: that is not an error.
        const earlier = await earlierAppend(streamId, events);
        if (earlier) return earlier;
        if (idTaken) throw new ConflictError('An event id of this append is already stored');
        if (!positionTaken) throw error;
        if (expectedVersion === 'any' && attempt < ANY_VERSION_ATTEMPTS) continue;
        // Another writer passed the same version check and committed first: where is the stream now?
        throw new VersionConflictError(streamId, expectedVersion, await streamVersion(db, streamId));
      }
    }
  }

  /** Up to `limit` rows after the cursor in commit-safe order, and the cursor after them. */
  async function readAfter<Row extends CursorRow>(
    columns: string,
    after: GlobalCursor,
    limit: number,
  ): Promise<{ rows: Row[]; cursor: GlobalCursor }> {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new TypeError(`readAll needs a positive integer limit, got ${limit}`);
    }
    const { rows } = await db.query<Row>(
      // Ordered by the table's column, qualified: a bare `transaction_id` in ORDER BY names the output
      // column, which the columns cast to text, and as text '1000000' sorts before '999999'. The cursor
      // would then jump past every id with fewer digits still unread and never come back.
      `SELECT ${columns} FROM ${schema}.events e
       WHERE e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())
         AND (e.transaction_id, e.global_position) > ($1::text::xid8, $2::bigint)
       ORDER BY e.transaction_id, e.global_position
       LIMIT $3`,
      [after.transactionId, after.globalPosition, limit],
      PREPARED,
    );
    const last = rows[rows.length - 1];
    const cursor: GlobalCursor = last
      ? { transactionId: last.transaction_id, globalPosition: Number(last.global_position) }
      : after;
    return { rows, cursor };
  }

  async function existingEventIds(eventIds: readonly string[]): Promise<Set<string>> {
    const distinct = [...new Set(eventIds)];
    if (distinct.length === 0) return new Set();
    // One statement, one parameter whatever the count; answered from the unique index on event_id.
    const { rows } = await db.query<{ event_id: string }>(
      `SELECT event_id FROM ${schema}.events WHERE event_id = ANY($1::text[])`,
      [distinct],
      PREPARED,
    );
    return new Set(rows.map((row) => row.event_id));
  }

  return {
    async init() {
      // A service's replicas may start at once.
      await createSharedObjects(db, `verdict.event_store.${schema}`, async (tx) => {
        for (const statement of tableDefinition(schema)) await tx.query(statement);
      });
    },

    append,

    async readStream(streamId, readOptions = {}) {
      const { rows } = await db.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM ${schema}.events
         WHERE stream_id = $1 AND stream_position >= $2 ORDER BY stream_position`,
        [streamId, readOptions.fromVersion ?? 1],
        PREPARED,
      );
      return rows.map(eventOfRow);
    },

    async readAll({ after, limit }): Promise<ReadAllResult> {
      const { rows, cursor } = await readAfter<EventRow>(EVENT_COLUMNS, after, limit);
      return { events: rows.map(eventOfRow), cursor };
    },

    async readAllSerialized({ after, limit }): Promise<ReadAllSerializedResult> {
      const { rows, cursor } = await readAfter<SerializedRow>(SERIALIZED_COLUMNS, after, limit);
      return { events: rows.map(serializedOfRow), cursor };
    },

    existingEventIds,
  };
}
