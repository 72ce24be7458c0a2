/**
 * What every operation of the SQL event store works on: the database, the schema of its `events` table,
 * the clock and the inline projection. The operations are module-level functions over this state (as
 * emmett's appendToStream and readStream are), and createSqlEventStore only assembles them.
 */
import { EventEnvelope, keptInstant } from '@verdict/contracts';
import type { Clock } from '../../clock';
import { systemClock } from '../../clock';
import type { SqlDatabase, SqlExecutor } from '../../sql/types';
import type { EventMetadata, SerializedEvent, StoredEvent } from '../types';
import { appendStatement } from './tables';

/**
 * An inline projection (emmett's, Marten's): called with the events of every append, in the append's
 * transaction, so the read model it writes commits with them or not at all. Keep it to a few statements:
 * it holds the append's transaction open. `storedBetween` reads the stream's earlier events in the same
 * transaction (positions `from` to `to`, both included), for a read model that finds it missed some.
 */
export type InlineProjection = (
  tx: SqlExecutor,
  events: readonly StoredEvent[],
  storedBetween: (streamId: string, from: number, to: number) => Promise<StoredEvent[]>,
) => Promise<void>;

export interface SqlEventStoreState {
  db: SqlDatabase;
  /** A checked identifier: lower-case letters, digits, `_`. */
  schema: string;
  clock: Clock;
  inline: InlineProjection | undefined;
  /** The append statement's text, built once: the same text is prepared once per connection. */
  appendText: string;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
export const PREPARED = { prepare: true } as const;

export interface EventRow {
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

export const EVENT_COLUMNS = `event_id, type, version, stream_id, stream_position, global_position,
  transaction_id::text AS transaction_id, occurred_at, correlation_id, causation_id, project_id, data`;

/** The same columns with the data as the database prints it, for a reader that only forwards it. */
export const SERIALIZED_COLUMNS = EVENT_COLUMNS.replace(/data$/, 'data::text AS data');

export type SerializedRow = Omit<EventRow, 'data'> & { data: string };

/**
 * The state of the store in `<schema>.events`; refuses a schema name that is not a plain identifier, as
 * it goes into every statement's text.
 *
 * @example const state = eventStoreState({ db, schema: 'test_results' });
 */
export function eventStoreState(options: {
  db: SqlDatabase;
  schema: string;
  clock?: Clock;
  inline?: InlineProjection;
}): SqlEventStoreState {
  const { db, schema } = options;
  if (!IDENTIFIER.test(schema)) throw new TypeError(`Schema name must match ${IDENTIFIER}: ${schema}`);
  return {
    db,
    schema,
    clock: options.clock ?? systemClock,
    inline: options.inline,
    appendText: appendStatement(schema),
  };
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
export function eventOfRow(row: EventRow): StoredEvent {
  return EventEnvelope.parse({ ...metadataOf(row), data: row.data });
}

/**
 * The envelope's JSON with the data spliced in as stored: the columns come from this table's constraints,
 * the data is JSON the store itself validated on append, so neither is parsed here.
 */
export function serializedOfRow(row: SerializedRow): SerializedEvent {
  const metadata = metadataOf(row);
  const head = JSON.stringify(metadata);
  return { ...metadata, json: `${head.slice(0, -1)},"data":${row.data}}` };
}
