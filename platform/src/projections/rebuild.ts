import type { EventStore, GlobalCursor } from '../eventStore/types';
import { START } from '../eventStore/types';
import { warnWhileSlow, type Logger } from '../logging';
import type { SqlDatabase, SqlExecutor } from '../sql/types';
import { applyNew, createTables, prepareSchema, versionOf, type Placed } from './readModelTables';

/**
 * Where a read model comes from and how it changes version: it is created where it lives, or, when its
 * stored version is older than its code's, replayed from position 0 into a fresh copy beside the live one
 * and swapped in under the projection's lock, while queries keep reading the old copy.
 */

interface Context {
  db: SqlDatabase;
  logger: Logger;
}

/** Replays the sources in order from the cursors into the fresh copy; inside `tx` when given. */
async function replay(
  { db, logger }: Context,
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

/**
 * Replays the sources into the fresh copy, then catches up and swaps it in under the exclusive lock.
 * Returns the events replayed.
 */
export async function rebuildProjection(
  context: Context,
  target: Placed,
  sources: readonly EventStore[],
  batchSize: number,
): Promise<number> {
  const { db, logger } = context;
  const { projection, live, fresh, retired, lockKey } = target;
  await db.exec(`DROP SCHEMA IF EXISTS ${fresh} CASCADE`);
  await db.transaction((tx) => createTables(tx, projection, fresh));
  const started = performance.now();
  const first = await warnWhileSlow(logger, `rebuilding read model ${projection.name}`, () =>
    replay(
      context,
      target,
      sources,
      sources.map(() => START),
      batchSize,
    ),
  );
  const total = await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
    const last = await replay(context, target, sources, first.cursors, batchSize, tx);
    await tx.query(`DROP SCHEMA IF EXISTS ${retired} CASCADE`);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${live}`);
    await tx.query(`ALTER SCHEMA ${live} RENAME TO ${retired}`);
    await tx.query(`ALTER SCHEMA ${fresh} RENAME TO ${live}`);
    await tx.query(`DROP SCHEMA ${retired} CASCADE`);
    return first.count + last.count;
  });
  const ms = Math.round(performance.now() - started);
  logger.info(
    { projection: projection.name, version: versionOf(projection), events: total, ms },
    'projection rebuilt',
  );
  return total;
}

/** Whether `live` is yet to be created while one of the schemas it replaces is there. */
async function replacesExisting(
  tx: SqlExecutor,
  live: string,
  replaces: readonly string[],
): Promise<boolean> {
  if (replaces.length === 0) return false;
  const { rows } = await tx.query<{ live: string | null; earlier: boolean }>(
    `SELECT to_regnamespace($1)::text AS live,
       EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ANY($2::text[])) AS earlier`,
    [live, [...replaces]],
  );
  return rows[0]?.live == null && rows[0]?.earlier === true;
}

/**
 * Creates a projection's live tables, or rebuilds them from `sources` when their stored version is older
 * than its code's. Without sources, an older version refuses to start: applying new code to old tables
 * would fail later, event by event.
 */
export async function initProjection(
  context: Context,
  target: Placed,
  sources: readonly EventStore[] | undefined,
): Promise<void> {
  const { projection, live, lockKey } = target;
  const version = versionOf(projection);
  const ready = await context.db.transaction(async (tx) => {
    // Exclusive: waits for the batches and inline appends in flight, and for another replica's rebuild.
    await warnWhileSlow(context.logger, `waiting for the lock of read model ${projection.name}`, () =>
      tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]),
    );
    // A read model taking over from an earlier one starts at version 0: built from position 0 below, and
    // again at the next start should that fail before its swap.
    const takesOver = await replacesExisting(tx, live, projection.replaces ?? []);
    const stored = await prepareSchema(tx, live, takesOver ? 0 : version);
    // The old tables may lack what the new setup refers to (an index on a new column): not touched.
    if (stored < version) return false;
    if (stored > version) {
      context.logger.warn(
        { projection: projection.name, stored, code: version },
        'the read model is newer than this code: applying to it as it is',
      );
    }
    await projection.setup(tx, live);
    return true;
  });
  if (ready) return;
  if (!sources) {
    throw new Error(
      `Projection ${projection.name} is at an older version than version ${version} of its code, and its projector has no event stores to rebuild it from (rebuildFrom)`,
    );
  }
  context.logger.info(
    { projection: projection.name, version },
    'projection version changed: rebuilding from position 0',
  );
  await rebuildProjection(context, target, sources, 1000);
}
