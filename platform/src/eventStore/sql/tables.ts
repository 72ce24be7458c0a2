/**
 * The `events` table of a store and the one statement that appends to it. The table's unique
 * (stream_id, stream_position) constraint is the final guard against a concurrent writer that passed the
 * same version check; the (transaction_id, global_position) index serves the commit-safe readAll.
 */
import { createSharedObjects } from '../../sql/sharedObjects';
import type { SqlDatabase } from '../../sql/types';

export const EVENT_ID_KEY = 'events_event_id_key';
export const STREAM_POSITION_KEY = 'events_stream_position_key';

/**
 * `data` is json, the text as appended, not jsonb: nothing queries inside it, readers parse it in Node and
 * the relay forwards it as text, so converting it to jsonb on every append and back on every read was pure
 * cost (about an eighth of an append of 500 results). Tables created with jsonb keep it: PostgreSQL casts
 * json to jsonb on insert and prints both as JSON text.
 */
function tableDefinition(schema: string): string[] {
  return [
    `CREATE SCHEMA IF NOT EXISTS ${schema}`,
    `CREATE TABLE IF NOT EXISTS ${schema}.events (
       global_position bigserial PRIMARY KEY,
       transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
       event_id text NOT NULL,
       stream_id text NOT NULL,
       stream_position integer NOT NULL CHECK (stream_position >= 1),
       type text NOT NULL,
       version integer NOT NULL CHECK (version >= 1),
       data json NOT NULL,
       project_id text,
       correlation_id text,
       causation_id text,
       occurred_at timestamptz NOT NULL,
       recorded_at timestamptz NOT NULL DEFAULT now(),
       CONSTRAINT ${EVENT_ID_KEY} UNIQUE (event_id),
       CONSTRAINT ${STREAM_POSITION_KEY} UNIQUE (stream_id, stream_position)
     )`,
    `CREATE INDEX IF NOT EXISTS events_transaction_order ON ${schema}.events (transaction_id, global_position)`,
  ];
}

/**
 * Creates the schema and its `events` table when missing. Idempotent; a service's replicas may start at
 * once.
 *
 * @example await createEventTables({ db, schema: 'test_results' });
 */
export async function createEventTables({ db, schema }: { db: SqlDatabase; schema: string }): Promise<void> {
  await createSharedObjects(db, `verdict.event_store.${schema}`, async (tx) => {
    for (const statement of tableDefinition(schema)) await tx.query(statement);
  });
}

/**
 * The one statement that appends events, only if the stream is at the expected version, and always answers
 * at least one row carrying the stream's head before the append (so a refusal says where the stream is).
 * Events travel as one JSON array, so the text is the same for every batch size (prepared once) and no
 * batch runs into PostgreSQL's limit of 65,535 parameters.
 * $1 stream, $2 expected version (null: any), $3–$5 project, correlation, causation, $6 occurred at,
 * $7 the events as JSON: [{ event_id, type, version, data }].
 */
export function appendStatement(schema: string): string {
  return `WITH head AS (
      SELECT coalesce(max(stream_position), 0) AS version FROM ${schema}.events WHERE stream_id = $1::text
    ), inserted AS (
      INSERT INTO ${schema}.events (event_id, stream_id, stream_position, type, version, data,
        project_id, correlation_id, causation_id, occurred_at)
      SELECT v.event_id, $1::text, head.version + v.ord::int, v.type, v.version,
        coalesce(v.data, 'null'::json), $3::text, $4::text, $5::text, $6::text::timestamptz
      FROM head, ROWS FROM (
        json_to_recordset($7::text::json) AS (event_id text, type text, version int, data json)
      ) WITH ORDINALITY AS v (event_id, type, version, data, ord)
      WHERE $2::int IS NULL OR head.version = $2::int
      ORDER BY v.ord
      RETURNING event_id, stream_position, global_position
    )
    SELECT head.version AS head, inserted.* FROM head LEFT JOIN inserted ON true`;
}
