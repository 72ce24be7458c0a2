/**
 * Appending to a stream. An append is one prepared statement (a version check and a multi-row INSERT in one
 * CTE, atomic on its own), so a batch costs one round trip and no planning; the unique
 * (stream_id, stream_position) constraint is the final guard against a concurrent writer that passed the
 * same check.
 *
 * Idempotent appends: when every event of an append carries a caller-given `eventId` and all of them are
 * already stored in that stream, in that order, the append is a retry of one that succeeded: it returns the
 * stored events and the version right after them, whatever the expected version. If only some of the ids
 * are stored, or they belong to another stream, it fails with a ConflictError. The id alone decides: the
 * type and data of the retry are not compared. The events an append returns carry the `data` objects it
 * was given; reading them back gives their JSON round trip.
 */
import { ConflictError, ServiceUnavailableError, VersionConflictError } from '../../errors';
import { newId } from '../../ids';
import type { SqlExecutor } from '../../sql/types';
import { isSqlError, SQLSTATE } from '../../sql/types';
import type { AppendMetadata, AppendResult, ExpectedVersion, NewEvent, StoredEvent } from '../types';
import { EVENT_COLUMNS, PREPARED, eventOfRow, type EventRow, type SqlEventStoreState } from './state';
import { EVENT_ID_KEY, STREAM_POSITION_KEY } from './tables';

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

/** One append as the statement takes it: the stream, what it expects, and the envelope's metadata. */
interface Append {
  streamId: string;
  events: EventToAppend[];
  expected: ExpectedVersion;
  metadata: AppendMetadata;
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

async function streamVersion(state: SqlEventStoreState, streamId: string): Promise<number> {
  const { rows } = await state.db.query<{ version: number }>(
    `SELECT coalesce(max(stream_position), 0) AS version FROM ${state.schema}.events WHERE stream_id = $1`,
    [streamId],
    PREPARED,
  );
  return rows[0]?.version ?? 0;
}

/** Inserts the events if the stream is at the expected version; a VersionConflictError when it is not. */
async function insert(
  state: SqlEventStoreState,
  executor: SqlExecutor,
  append: Append,
  occurredAt: string,
): Promise<StoredEvent[]> {
  const { streamId, events, expected, metadata } = append;
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
  const { rows: answer } = await executor.query<AppendRow>(state.appendText, params, PREPARED);
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

/** The stream's events at positions `from` to `to` as the transaction `tx` sees them (for an inline projection). */
function storedBetween(state: SqlEventStoreState, tx: SqlExecutor) {
  return async (streamId: string, from: number, to: number): Promise<StoredEvent[]> => {
    const { rows } = await tx.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${state.schema}.events
       WHERE stream_id = $1 AND stream_position BETWEEN $2 AND $3 ORDER BY stream_position`,
      [streamId, from, to],
    );
    return rows.map(eventOfRow);
  };
}

/**
 * Appends in one statement, in autocommit. With `lockStream` it first takes the stream's advisory lock in a
 * transaction, so writers who lost a race for the same positions take turns instead of racing again (each
 * statement after the lock sees the previous holder's commit).
 */
async function appendOnce(
  state: SqlEventStoreState,
  append: Append,
  lockStream: boolean,
): Promise<AppendResult> {
  const occurredAt = (append.metadata.occurredAt ?? state.clock.now()).toISOString();
  const { inline } = state;
  const stored =
    lockStream || inline
      ? await state.db.transaction(async (tx) => {
          if (lockStream) {
            await tx.query(
              'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))',
              [`verdict.event_store.${state.schema}.${append.streamId}`],
              PREPARED,
            );
          }
          const appended = await insert(state, tx, append, occurredAt);
          await inline?.(tx, appended, storedBetween(state, tx));
          return appended;
        })
      : await insert(state, state.db, append, occurredAt);
  return { nextExpectedVersion: stored[stored.length - 1]?.streamPosition ?? 0, events: stored };
}

/**
 * The earlier append this one repeats (see the rule at the top of this file), or null when none of its
 * caller-given ids is stored. Reads committed rows only: called after the failed attempt is over.
 */
async function earlierAppend(state: SqlEventStoreState, append: Append): Promise<AppendResult | null> {
  const { streamId, events } = append;
  const given = events.filter((event) => event.idGiven).map((event) => event.eventId);
  if (given.length === 0) return null;
  const { rows } = await state.db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM ${state.schema}.events
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

/** An append of no events: only the version check. */
async function appendNothing(
  state: SqlEventStoreState,
  streamId: string,
  expectedVersion: ExpectedVersion,
): Promise<AppendResult> {
  const version = await streamVersion(state, streamId);
  const expected = expectedAsNumber(expectedVersion);
  if (expected !== null && expected !== version) {
    throw new VersionConflictError(streamId, expectedVersion, version);
  }
  return { nextExpectedVersion: version, events: [] };
}

/**
 * What a refused attempt comes to: the earlier append it repeats, 'retry' for one worth trying again, or
 * the error to throw.
 */
async function afterRefusal(
  state: SqlEventStoreState,
  append: Append,
  attempt: number,
  error: unknown,
): Promise<AppendResult | 'retry'> {
  // Two appends whose rows share unique keys can deadlock: PostgreSQL rolls one back whole, so trying it
  // again is the same as trying it the first time.
  if (isSqlError(error, SQLSTATE.deadlockDetected) || isSqlError(error, SQLSTATE.serializationFailure)) {
    if (attempt < ANY_VERSION_ATTEMPTS) return 'retry';
    throw new ServiceUnavailableError('The event store is too busy to take this append; retry it', error);
  }
  const positionTaken = isSqlError(error, SQLSTATE.uniqueViolation, STREAM_POSITION_KEY);
  const idTaken = isSqlError(error, SQLSTATE.uniqueViolation, EVENT_ID_KEY);
  if (!positionTaken && !idTaken && !(error instanceof VersionConflictError)) throw error;
  // Any refusal may be a retry of an append that already succeeded: that is not an error.
  const earlier = await earlierAppend(state, append);
  if (earlier) return earlier;
  if (idTaken) throw new ConflictError('An event id of this append is already stored');
  if (!positionTaken) throw error;
  if (append.expected === 'any' && attempt < ANY_VERSION_ATTEMPTS) return 'retry';
  // Another writer passed the same version check and committed first: where is the stream now?
  throw new VersionConflictError(
    append.streamId,
    append.expected,
    await streamVersion(state, append.streamId),
  );
}

/**
 * Appends events to a stream at the expected version (see the top of this file for retries of an append).
 *
 * @example await appendToStream(state, 'run-1', [{ type: 'run.started', version: 1, data }], { expectedVersion: 'no_stream' });
 */
export async function appendToStream(
  state: SqlEventStoreState,
  streamId: string,
  newEvents: NewEvent[],
  options: { expectedVersion: ExpectedVersion } & AppendMetadata,
): Promise<AppendResult> {
  if (typeof streamId !== 'string' || streamId === '') throw new TypeError('A stream id is required');
  const { expectedVersion, ...metadata } = options;
  const events = eventsToAppend(newEvents);
  if (events.length === 0) return appendNothing(state, streamId, expectedVersion);
  const append: Append = { streamId, events, expected: expectedVersion, metadata };
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await appendOnce(state, append, attempt > 1);
    } catch (error) {
      const outcome = await afterRefusal(state, append, attempt, error);
      if (outcome !== 'retry') return outcome;
    }
  }
}
