import type { StoredEvent } from '../eventStore/types';
import type { Logger } from '../logging';
import type { SqlExecutor } from '../sql/types';
import { applyNew, place, type Projection, type StoredEventsBetween } from './readModelTables';

/**
 * A projection run inline (emmett's and Marten's inline projections): the function to give an event store
 * as `inline`, so the read model is written in the transaction of each append and a reader sees an append
 * as soon as it is acknowledged. It applies the events the way a projector's batch does, into the live
 * tables with the streams' positions saved beside them, under the projection's shared lock: a projector's
 * `init` and `rebuild` of the same projection (same name, same tables) keep working, and its swap waits for
 * the appends in flight. A stream whose saved position is behind the append (events stored before the read
 * model was inline, which no projector has applied yet) is caught up from the store first, in the same
 * transaction, so an upgrade leaves no hole.
 *
 * @example createSqlEventStore({ db, schema, inline: inlineProjection(runsProjection(), { logger }) });
 */
export function inlineProjection(
  projection: Projection,
  options: { logger: Logger },
): (tx: SqlExecutor, events: readonly StoredEvent[], missed: StoredEventsBetween) => Promise<void> {
  const { live, lockKey } = place(projection);
  const logger = options.logger.child({ component: 'inline-projection', projection: projection.name });
  return async (tx, events, missed) => {
    await tx.query('SELECT pg_advisory_xact_lock_shared(hashtext($1))', [lockKey]);
    await applyNew(tx, projection, live, [...events], logger, { missed });
  };
}
