/**
 * Reading everything in order (the technique of Emmett). A bigserial position is taken when a row is
 * inserted, not when its transaction commits: transaction A takes position 10, transaction B takes 11 and
 * commits first. A reader asking for "position > 9" sees 11 and moves its cursor there; when A commits, 10
 * is behind the cursor and is skipped for good. So each row also records the transaction that wrote it
 * (`transaction_id`, pg_current_xact_id()), readers order by (transaction_id, global_position), and they
 * only see rows whose transaction id is below the xmin of their snapshot. Every transaction below xmin has
 * ended, and every transaction still running or yet to start has an id at or above it, so no row can ever
 * appear behind a cursor that stays below xmin. The price: a transaction that holds an id anywhere in the
 * cluster holds readers back until it ends, so keep write transactions short.
 */
import type { GlobalCursor, ReadAllResult, ReadAllSerializedResult } from '../types';
import {
  EVENT_COLUMNS,
  PREPARED,
  SERIALIZED_COLUMNS,
  eventOfRow,
  serializedOfRow,
  type EventRow,
  type SerializedRow,
  type SqlEventStoreState,
} from './state';

type CursorRow = Pick<EventRow, 'transaction_id' | 'global_position'>;

/** Up to `limit` rows after the cursor in commit-safe order, and the cursor after them. */
async function readAfter<Row extends CursorRow>(
  state: SqlEventStoreState,
  columns: string,
  after: GlobalCursor,
  limit: number,
): Promise<{ rows: Row[]; cursor: GlobalCursor }> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new TypeError(`readAll needs a positive integer limit, got ${limit}`);
  }
  const { rows } = await state.db.query<Row>(
    // Ordered by the table's column, qualified: a bare `transaction_id` in ORDER BY names the output
    // column, which the columns cast to text, and as text '1000000' sorts before '999999'. The cursor
    // would then jump past every id with fewer digits still unread and never come back.
    `SELECT ${columns} FROM ${state.schema}.events e
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

/**
 * Up to `limit` events after the cursor, in (transaction, position) order; none that may still change.
 *
 * @example const { events, cursor } = await readAll(state, { after: START, limit: 500 });
 */
export async function readAll(
  state: SqlEventStoreState,
  { after, limit }: { after: GlobalCursor; limit: number },
): Promise<ReadAllResult> {
  const { rows, cursor } = await readAfter<EventRow>(state, EVENT_COLUMNS, after, limit);
  return { events: rows.map(eventOfRow), cursor };
}

/**
 * readAll for a relay, which only forwards the events: each as its envelope's JSON, the data as stored.
 *
 * @example const { events, cursor } = await readAllSerialized(state, { after: checkpoint, limit: 500 });
 */
export async function readAllSerialized(
  state: SqlEventStoreState,
  { after, limit }: { after: GlobalCursor; limit: number },
): Promise<ReadAllSerializedResult> {
  const { rows, cursor } = await readAfter<SerializedRow>(state, SERIALIZED_COLUMNS, after, limit);
  return { events: rows.map(serializedOfRow), cursor };
}
