import { systemClock, type Clock } from '../clock';
import { isSqlError, SQLSTATE, type SqlDatabase } from '../sql/types';
import { assertIncrement, assertTtlMs } from './memory';
import type { KeyValue } from './types';

/**
 * The embedded mode's key-value store: a table in its own database, so what it keeps (token usage, the
 * identity version) outlives a restart, as the memory store's Map did not. The semantics of the Redis
 * adapter: expiry on the clock given, increment atomic (one upsert), a value that is no integer refused.
 */

export interface SqlKeyValueOptions {
  db: SqlDatabase;
  /** The schema of its table: lower-case letters, digits, `_`. */
  schema: string;
  clock?: Clock;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A KeyValue in `<schema>.key_values`; creates the table.
 *
 * @example const kv = await createSqlKeyValue({ db, schema: 'verdict_key_values' });
 */
export async function createSqlKeyValue(options: SqlKeyValueOptions): Promise<KeyValue> {
  const { db, schema } = options;
  if (!IDENTIFIER.test(schema)) throw new TypeError(`Schema name must match ${IDENTIFIER}: ${schema}`);
  const clock = options.clock ?? systemClock;
  const table = `${schema}.key_values`;
  await db.exec(
    `CREATE SCHEMA IF NOT EXISTS ${schema};
     CREATE TABLE IF NOT EXISTS ${table} (key text PRIMARY KEY, value text NOT NULL, expires_at timestamptz)`,
  );
  let closed = false;
  const open = () => {
    if (closed) throw new Error('The key-value store is closed');
  };
  const at = (ms = 0) => new Date(clock.now().getTime() + ms).toISOString();
  const expired = (alias: string) => `${alias}.expires_at IS NOT NULL AND ${alias}.expires_at <= $2`;

  return {
    async get(key) {
      open();
      const { rows } = await db.query<{ value: string }>(
        `SELECT value FROM ${table} kv WHERE key = $1 AND NOT (${expired('kv')})`,
        [key, at()],
      );
      return rows[0]?.value ?? null;
    },

    async set(key, value, setOptions) {
      open();
      const ttlMs = setOptions?.ttlMs;
      if (ttlMs !== undefined) assertTtlMs(ttlMs);
      await db.query(
        `INSERT INTO ${table} (key, value, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at`,
        [key, value, ttlMs === undefined ? null : at(ttlMs)],
      );
    },

    async delete(key) {
      open();
      await db.query(`DELETE FROM ${table} WHERE key = $1`, [key]);
    },

    async increment(key, incrementOptions) {
      open();
      const by = incrementOptions?.by ?? 1;
      const ttlMs = incrementOptions?.ttlMs;
      assertIncrement(by);
      if (ttlMs !== undefined) assertTtlMs(ttlMs);
      // An expired counter starts again, with this call's TTL; a live one keeps its own (or none). One
      // reading of the clock for both instants: two could straddle a millisecond and report a TTL of 60,001.
      const now = clock.now().getTime();
      const instant = (ms: number) => new Date(now + ms).toISOString();
      try {
        const { rows } = await db.query<{ value: string; ttl_ms: number | string }>(
          `INSERT INTO ${table} AS kv (key, value, expires_at) VALUES ($1, $3::bigint::text, $4)
           ON CONFLICT (key) DO UPDATE SET
             value = CASE WHEN ${expired('kv')} THEN EXCLUDED.value ELSE (kv.value::bigint + $3::bigint)::text END,
             expires_at = CASE WHEN ${expired('kv')} THEN EXCLUDED.expires_at ELSE kv.expires_at END
           RETURNING value, CASE WHEN expires_at IS NULL THEN -1
             ELSE ceil(EXTRACT(EPOCH FROM (expires_at - $2::timestamptz)) * 1000) END AS ttl_ms`,
          [key, instant(0), by, ttlMs === undefined ? null : instant(ttlMs)],
        );
        const row = rows[0];
        if (!row) throw new Error(`Counter ${key} was not stored`);
        return { value: Number(row.value), ttlMs: Number(row.ttl_ms) };
      } catch (error) {
        if (
          isSqlError(error, SQLSTATE.invalidTextRepresentation) ||
          isSqlError(error, SQLSTATE.numericValueOutOfRange)
        ) {
          throw new TypeError(`The value of ${key} is not an integer`, { cause: error });
        }
        throw error;
      }
    },

    async ping() {
      open();
      await db.ping();
    },

    async close() {
      // The database belongs to the process: closing the store only stops its use.
      closed = true;
    },
  };
}
