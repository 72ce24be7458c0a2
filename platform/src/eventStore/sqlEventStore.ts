/**
 * The event store over the SQL port: one implementation, the same SQL on PostgreSQL and on PGlite. Each
 * operation is a module-level function over a small state (sql/: appendToStream, readStream, readAll), as
 * emmett's are; this file only assembles them into the EventStore port.
 */
import type { Clock } from '../clock';
import type { SqlDatabase } from '../sql/types';
import { appendToStream } from './sql/appendToStream';
import { readAll, readAllSerialized } from './sql/readAll';
import { existingEventIds, readStream } from './sql/readStream';
import { eventStoreState, type InlineProjection } from './sql/state';
import { createEventTables } from './sql/tables';
import type { EventStore } from './types';

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
  inline?: InlineProjection;
}

/**
 * The event store of one service, in `<schema>.events`. Appends are idempotent for caller-given event ids
 * (sql/appendToStream.ts says how); reading everything is commit-safe (sql/readAll.ts says why).
 *
 * @example const store = createSqlEventStore({ db, schema: 'test_results' }); await store.init();
 */
export function createSqlEventStore(options: SqlEventStoreOptions): EventStore {
  const state = eventStoreState(options);
  return {
    init: () => createEventTables(state),
    append: (streamId, events, appendOptions) => appendToStream(state, streamId, events, appendOptions),
    readStream: (streamId, readOptions) => readStream(state, streamId, readOptions),
    readAll: (readOptions) => readAll(state, readOptions),
    readAllSerialized: (readOptions) => readAllSerialized(state, readOptions),
    existingEventIds: (eventIds) => existingEventIds(state, eventIds),
  };
}
