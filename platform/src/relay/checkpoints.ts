import type { GlobalCursor } from '../eventStore/types';
import { createSharedObjects } from '../sql/sharedObjects';
import type { SqlDatabase } from '../sql/types';

/** Where the relay stands in the store, saved after each published batch. */
export interface CheckpointStore {
  load(name: string): Promise<GlobalCursor | null>;
  save(name: string, cursor: GlobalCursor): Promise<void>;
}

/**
 * Checkpoints kept in `<schema>.relay_checkpoints`, beside the events they point into.
 *
 * @example const checkpoints = await createSqlCheckpointStore(db, 'test_results');
 */
export async function createSqlCheckpointStore(db: SqlDatabase, schema: string): Promise<CheckpointStore> {
  // A service's replicas may start at once.
  await createSharedObjects(db, `${schema}.relay_checkpoints`, async (tx) => {
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.relay_checkpoints (
         name text PRIMARY KEY,
         transaction_id text NOT NULL,
         global_position bigint NOT NULL,
         updated_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
  });
  return {
    async load(name) {
      const { rows } = await db.query<{ transaction_id: string; global_position: string | number }>(
        `SELECT transaction_id, global_position FROM ${schema}.relay_checkpoints WHERE name = $1`,
        [name],
      );
      const row = rows[0];
      return row ? { transactionId: row.transaction_id, globalPosition: Number(row.global_position) } : null;
    },
    async save(name, cursor) {
      await db.query(
        `INSERT INTO ${schema}.relay_checkpoints (name, transaction_id, global_position) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET transaction_id = EXCLUDED.transaction_id,
           global_position = EXCLUDED.global_position, updated_at = now()`,
        [name, cursor.transactionId, cursor.globalPosition],
      );
    },
  };
}

/**
 * Checkpoints that live as long as the process. The embedded mode pairs them with the in-process bus,
 * whose log is lost on restart too: the relay then republishes from the start and consumers, which are
 * idempotent per stream position, skip what they have already applied.
 */
export function createMemoryCheckpointStore(): CheckpointStore {
  const cursors = new Map<string, GlobalCursor>();
  return {
    load: async (name) => cursors.get(name) ?? null,
    save: async (name, cursor) => {
      cursors.set(name, cursor);
    },
  };
}
