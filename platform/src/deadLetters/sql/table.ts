/**
 * The `dead_letters` table and the small state every operation of the SQL dead-letter store works on. The
 * table is made once per database; every later start only looks, taking no lock and no DDL's table lock.
 */
import type { DeadLetterRecord, DeadLetterStatus } from '@verdict/contracts';
import type { Clock } from '../../clock';
import { createSharedObjects } from '../../sql/sharedObjects';
import type { SqlDatabase } from '../../sql/types';
import type { DeadLetterFilter } from '../types';

export const DEAD_LETTERS_SCHEMA = 'verdict_dead_letters';

export interface DeadLetterTable {
  db: SqlDatabase;
  clock: Clock;
  schema: string;
  /** `<schema>.dead_letters`. */
  table: string;
  /** Set once the table is known to exist (or being made); forgotten when making it failed. */
  ready: Promise<void> | undefined;
}

export interface DeadLetterRow {
  id: string;
  consumer: string;
  topic: string;
  partition: number;
  message_offset: string;
  message_key: string;
  event_id: string | null;
  event_type: string | null;
  value: string;
  headers: Record<string, string>;
  error: string;
  attempts: number;
  times: number;
  first_at: Date;
  last_at: Date;
  status: DeadLetterStatus;
  replay_requested_at: Date | null;
  replayed_at: Date | null;
}

/**
 * The state of the dead letters in `<schema>.dead_letters` (schema `verdict_dead_letters` by default).
 *
 * @example const letters = deadLetterTable({ db, clock: systemClock });
 */
export function deadLetterTable(options: {
  db: SqlDatabase;
  clock: Clock;
  schema?: string;
}): DeadLetterTable {
  const schema = options.schema ?? DEAD_LETTERS_SCHEMA;
  return { db: options.db, clock: options.clock, schema, table: `${schema}.dead_letters`, ready: undefined };
}

// Every process of the distributed mode keeps its dead letters here, and they may all start at once.
function createTable({ db, schema, table }: DeadLetterTable): Promise<void> {
  return createSharedObjects(db, table, async (tx) => {
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${table} (
           id text PRIMARY KEY,
           consumer text NOT NULL,
           topic text NOT NULL,
           partition integer NOT NULL,
           message_offset text NOT NULL,
           message_key text NOT NULL,
           event_id text,
           event_type text,
           value text NOT NULL,
           headers jsonb NOT NULL,
           error text NOT NULL,
           attempts integer NOT NULL,
           times integer NOT NULL,
           first_at timestamptz NOT NULL,
           last_at timestamptz NOT NULL,
           status text NOT NULL,
           replay_requested_at timestamptz,
           replayed_at timestamptz
         )`,
    );
    await tx.query(`CREATE INDEX IF NOT EXISTS dead_letters_listed ON ${table} (first_at, id)`);
    await tx.query(`CREATE INDEX IF NOT EXISTS dead_letters_by_event ON ${table} (consumer, event_id)`);
  });
}

/**
 * Creates the table when missing, once per state; idempotent, safe from several processes at once.
 *
 * @example await ensureDeadLetterTable(letters);
 */
export function ensureDeadLetterTable(state: DeadLetterTable): Promise<void> {
  state.ready ??= (async () => {
    const { rows } = await state.db.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [
      state.table,
    ]);
    if (rows[0]?.found) return;
    await createTable(state);
  })().catch((error: unknown) => {
    state.ready = undefined;
    throw error;
  });
  return state.ready;
}

export const recordOf = (row: DeadLetterRow): DeadLetterRecord => ({
  id: row.id,
  consumer: row.consumer,
  topic: row.topic,
  partition: Number(row.partition),
  offset: row.message_offset,
  key: row.message_key,
  headers: row.headers,
  eventId: row.event_id,
  eventType: row.event_type,
  error: row.error,
  attempts: Number(row.attempts),
  times: Number(row.times),
  firstDeadLetteredAt: row.first_at.toISOString(),
  lastDeadLetteredAt: row.last_at.toISOString(),
  status: row.status,
  replayRequestedAt: row.replay_requested_at?.toISOString() ?? null,
  replayedAt: row.replayed_at?.toISOString() ?? null,
  value: row.value,
});

/** WHERE clause and parameters of a filter, after the `extra` clauses; parameters are numbered from $1. */
export function whereOf(filter: DeadLetterFilter, extra: string[] = []) {
  const clauses = [...extra];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    clauses.push(clause.replace('?', `$${params.length}`));
  };
  if (filter.id !== undefined) add('id = ?', filter.id);
  if (filter.status !== undefined) add('status = ?', filter.status);
  if (filter.consumer !== undefined) add('consumer = ?', filter.consumer);
  if (filter.eventId !== undefined) add('event_id = ?', filter.eventId);
  return { sql: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', params };
}
