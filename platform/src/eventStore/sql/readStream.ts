/** Reading one stream, and telling which event ids are stored: each one prepared statement. */
import type { StoredEvent } from '../types';
import { EVENT_COLUMNS, PREPARED, eventOfRow, type EventRow, type SqlEventStoreState } from './state';

/**
 * The events of one stream in order, from stream position `fromVersion` (inclusive, default 1).
 *
 * @example const events = await readStream(state, 'run-1', { fromVersion: 3 });
 */
export async function readStream(
  state: SqlEventStoreState,
  streamId: string,
  options: { fromVersion?: number } = {},
): Promise<StoredEvent[]> {
  const { rows } = await state.db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM ${state.schema}.events
     WHERE stream_id = $1 AND stream_position >= $2 ORDER BY stream_position`,
    [streamId, options.fromVersion ?? 1],
    PREPARED,
  );
  return rows.map(eventOfRow);
}

/**
 * Which of these event ids are stored, in any stream; committed events only.
 *
 * @example const known = await existingEventIds(state, ['evt-1', 'evt-2']);
 */
export async function existingEventIds(
  state: SqlEventStoreState,
  eventIds: readonly string[],
): Promise<Set<string>> {
  const distinct = [...new Set(eventIds)];
  if (distinct.length === 0) return new Set();
  // One statement, one parameter whatever the count; answered from the unique index on event_id.
  const { rows } = await state.db.query<{ event_id: string }>(
    `SELECT event_id FROM ${state.schema}.events WHERE event_id = ANY($1::text[])`,
    [distinct],
    PREPARED,
  );
  return new Set(rows.map((row) => row.event_id));
}
