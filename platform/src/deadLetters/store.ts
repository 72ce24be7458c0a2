import { createHash } from 'node:crypto';
import type { DeadLetterRecord, DeadLetterStatus } from '@verdict/contracts';
import type { Clock } from '../clock';
import { EVENT_ID_HEADER, type DeadLetterNotice } from '../eventBus/types';
import type { SqlDatabase } from '../sql/types';
import { createSharedObjects } from '../sql/sharedObjects';

/**
 * Where dead letters are kept for operators: one row per (consumer group, event), in SQL beside the event
 * stores, so they outlive the in-process bus of the embedded mode and every process of the distributed mode
 * (one database) reads the same list. A letter dead-lettered again (a replay that failed, or the embedded
 * mode's relay delivering it again after a restart) updates its row instead of adding one.
 */
export interface DeadLetterStore {
  /** Creates the table when missing; idempotent, safe from several processes at once. */
  init(): Promise<void>;
  /** Keeps a dead letter (status back to pending if it had been replayed). */
  record(notice: DeadLetterNotice): Promise<DeadLetterRecord>;
  list(filter: DeadLetterFilter & { page: number; limit: number }): Promise<{
    items: DeadLetterRecord[];
    total: number;
  }>;
  /** Letters not replayed yet (pending or replaying) that match the filter, oldest first. */
  unreplayed(filter: DeadLetterFilter): Promise<DeadLetterRecord[]>;
  /** The letters with these ids, in the order given (unknown ids are left out). */
  find(ids: readonly string[]): Promise<DeadLetterRecord[]>;
  /** Event ids of a consumer's letters not replayed yet: the ones a successful delivery settles. */
  unreplayedEventIds(consumer: string): Promise<string[]>;
  markReplaying(ids: readonly string[]): Promise<void>;
  /** Marks letters handled by their consumer: by letter id (a replay) or event id (a delivery again). */
  markReplayed(
    consumer: string,
    settled: { ids: readonly string[]; eventIds: readonly string[] },
  ): Promise<void>;
}

export interface DeadLetterFilter {
  id?: string;
  status?: DeadLetterStatus;
  consumer?: string;
  eventId?: string;
}

export const DEAD_LETTERS_SCHEMA = 'verdict_dead_letters';

interface Row {
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

const recordOf = (row: Row): DeadLetterRecord => ({
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

/**
 * A letter's id: the same for the same consumer and event however often it is dead-lettered. A message
 * without an event id (not from an outbox relay) is known by where it was instead.
 */
export function deadLetterId(
  notice: Pick<DeadLetterNotice, 'groupId' | 'topic' | 'partition' | 'offset' | 'headers'>,
) {
  const eventId = notice.headers[EVENT_ID_HEADER];
  const subject = eventId ?? `${notice.topic}:${notice.partition}:${notice.offset}`;
  return `dl_${createHash('sha256').update(`${notice.groupId}\u0000${subject}`).digest('hex').slice(0, 24)}`;
}

/** The event type an envelope names, when the value is one. */
function eventTypeOf(value: string): string | null {
  try {
    const type = (JSON.parse(value) as { type?: unknown }).type;
    return typeof type === 'string' ? type : null;
  } catch {
    return null;
  }
}

/**
 * The dead letters in `<schema>.dead_letters`.
 *
 * @example const deadLetters = createSqlDeadLetterStore({ db, clock: systemClock }); await deadLetters.init();
 */
export function createSqlDeadLetterStore(options: {
  db: SqlDatabase;
  clock: Clock;
  schema?: string;
}): DeadLetterStore {
  const { db, clock } = options;
  const schema = options.schema ?? DEAD_LETTERS_SCHEMA;
  const table = `${schema}.dead_letters`;
  let ready: Promise<void> | undefined;

  const init = () => {
    ready ??= (async () => {
      // Made once per database: every later start only looks, taking no lock and no DDL's table lock.
      const { rows } = await db.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [
        table,
      ]);
      if (rows[0]?.found) return;
      await create();
    })().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };

  // Every process of the distributed mode keeps its dead letters here, and they may all start at once.
  const create = () =>
    createSharedObjects(db, table, async (tx) => {
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

  /** WHERE clause and parameters of a filter; `from` is the number of the first parameter. */
  function where(filter: DeadLetterFilter, extra: string[] = []) {
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

  return {
    init,
    async record(notice) {
      await init();
      const now = clock.now();
      const { rows } = await db.query<Row>(
        `INSERT INTO ${table} (id, consumer, topic, partition, message_offset, message_key, event_id,
           event_type, value, headers, error, attempts, times, first_at, last_at, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, 1, $13, $13, 'pending')
         ON CONFLICT (id) DO UPDATE SET topic = EXCLUDED.topic, partition = EXCLUDED.partition,
           message_offset = EXCLUDED.message_offset, value = EXCLUDED.value, headers = EXCLUDED.headers,
           error = EXCLUDED.error, attempts = EXCLUDED.attempts, times = ${table}.times + 1,
           last_at = EXCLUDED.last_at, status = 'pending', replayed_at = NULL
         RETURNING *`,
        [
          deadLetterId(notice),
          notice.groupId,
          notice.topic,
          notice.partition,
          notice.offset,
          notice.key,
          notice.headers[EVENT_ID_HEADER] ?? null,
          eventTypeOf(notice.value),
          notice.value,
          JSON.stringify(notice.headers),
          notice.error,
          notice.attempts,
          now,
        ],
      );
      return recordOf(rows[0] as Row);
    },
    async list(filter) {
      await init();
      const clause = where(filter);
      const { rows: counted } = await db.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM ${table} ${clause.sql}`,
        clause.params,
      );
      const offset = (filter.page - 1) * filter.limit;
      const { rows } = await db.query<Row>(
        `SELECT * FROM ${table} ${clause.sql} ORDER BY first_at, id
         LIMIT $${clause.params.length + 1} OFFSET $${clause.params.length + 2}`,
        [...clause.params, filter.limit, offset],
      );
      return { items: rows.map(recordOf), total: counted[0]?.total ?? 0 };
    },
    async unreplayed(filter) {
      await init();
      const clause = where(filter, ["status <> 'replayed'"]);
      // In the order they failed; within a partition, in the order they were on it.
      const { rows } = await db.query<Row>(
        `SELECT * FROM ${table} ${clause.sql}
         ORDER BY first_at, topic, partition, length(message_offset), message_offset`,
        clause.params,
      );
      return rows.map(recordOf);
    },
    async find(ids) {
      await init();
      const { rows } = await db.query<Row>(`SELECT * FROM ${table} WHERE id = ANY($1::text[])`, [ids]);
      const byId = new Map(rows.map((row) => [row.id, recordOf(row)]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },
    async unreplayedEventIds(consumer) {
      await init();
      const { rows } = await db.query<{ event_id: string }>(
        `SELECT event_id FROM ${table} WHERE consumer = $1 AND status <> 'replayed' AND event_id IS NOT NULL`,
        [consumer],
      );
      return rows.map((row) => row.event_id);
    },
    async markReplaying(ids) {
      if (ids.length === 0) return;
      await init();
      await db.query(
        `UPDATE ${table} SET status = 'replaying', replay_requested_at = $2
         WHERE id = ANY($1::text[]) AND status <> 'replayed'`,
        [ids, clock.now()],
      );
    },
    async markReplayed(consumer, settled) {
      if (settled.ids.length === 0 && settled.eventIds.length === 0) return;
      await init();
      await db.query(
        `UPDATE ${table} SET status = 'replayed', replayed_at = $4
         WHERE consumer = $1 AND status <> 'replayed' AND (id = ANY($2::text[]) OR event_id = ANY($3::text[]))`,
        [consumer, settled.ids, settled.eventIds, clock.now()],
      );
    },
  };
}
