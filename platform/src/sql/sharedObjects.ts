import { isSqlError, SQLSTATE, type SqlDatabase, type SqlExecutor } from './types';

/** What PostgreSQL answers a CREATE … IF NOT EXISTS that raced another process's creation of the object. */
const DUPLICATE_OBJECT = [SQLSTATE.uniqueViolation, '42P06', '42P07', '42710'];

/**
 * Creates database objects that several processes may create at the same moment (the dead letters of
 * every service of the distributed mode, the schema of a service started as replicas): one creates while
 * the others wait on an advisory lock, then find the objects there.
 *
 * `IF NOT EXISTS` alone is not enough: PostgreSQL checks, then inserts into its catalog, and a process
 * between the two fails on the catalog's unique index (23505 on pg_namespace_nspname_index). The lock
 * orders the creations; a duplicate that still comes through (seen with four service containers starting
 * at once) is answered by trying again once, in a new transaction that sees what the other one committed.
 *
 * @example await createSharedObjects(db, 'verdict_dead_letters.dead_letters', (tx) => tx.query('CREATE …'));
 */
export async function createSharedObjects(
  db: SqlDatabase,
  lockKey: string,
  create: (tx: SqlExecutor) => Promise<void>,
): Promise<void> {
  const attempt = () =>
    db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
      await create(tx);
    });
  try {
    await attempt();
  } catch (error) {
    if (!DUPLICATE_OBJECT.some((code) => isSqlError(error, code))) throw error;
    await attempt();
  }
}
