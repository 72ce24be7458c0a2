/** Reading the dead letters: a page of the list, the letters still to replay, some by id. */
import type { DeadLetterRecord } from '@verdict/contracts';
import type { DeadLetterFilter } from '../types';
import { ensureDeadLetterTable, recordOf, whereOf, type DeadLetterRow, type DeadLetterTable } from './table';

/**
 * A page of the letters that match the filter, oldest first, and how many match.
 *
 * @example const { items, total } = await listDeadLetters(letters, { status: 'pending', page: 1, limit: 50 });
 */
export async function listDeadLetters(
  state: DeadLetterTable,
  filter: DeadLetterFilter & { page: number; limit: number },
): Promise<{ items: DeadLetterRecord[]; total: number }> {
  await ensureDeadLetterTable(state);
  const clause = whereOf(filter);
  const { rows: counted } = await state.db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${state.table} ${clause.sql}`,
    clause.params,
  );
  const offset = (filter.page - 1) * filter.limit;
  const { rows } = await state.db.query<DeadLetterRow>(
    `SELECT * FROM ${state.table} ${clause.sql} ORDER BY first_at, id
     LIMIT $${clause.params.length + 1} OFFSET $${clause.params.length + 2}`,
    [...clause.params, filter.limit, offset],
  );
  return { items: rows.map(recordOf), total: counted[0]?.total ?? 0 };
}

/**
 * Letters not replayed yet (pending or replaying) that match the filter, in the order they failed; within
 * a partition, in the order they were on it.
 *
 * @example const letters = await unreplayedLetters(state, { consumer: 'analytics' });
 */
export async function unreplayedLetters(
  state: DeadLetterTable,
  filter: DeadLetterFilter,
): Promise<DeadLetterRecord[]> {
  await ensureDeadLetterTable(state);
  const clause = whereOf(filter, ["status <> 'replayed'"]);
  const { rows } = await state.db.query<DeadLetterRow>(
    `SELECT * FROM ${state.table} ${clause.sql}
     ORDER BY first_at, topic, partition, length(message_offset), message_offset`,
    clause.params,
  );
  return rows.map(recordOf);
}

/**
 * The letters with these ids, in the order given (unknown ids are left out).
 *
 * @example const [letter] = await findDeadLetters(letters, [id]);
 */
export async function findDeadLetters(
  state: DeadLetterTable,
  ids: readonly string[],
): Promise<DeadLetterRecord[]> {
  await ensureDeadLetterTable(state);
  const { rows } = await state.db.query<DeadLetterRow>(
    `SELECT * FROM ${state.table} WHERE id = ANY($1::text[])`,
    [ids],
  );
  const byId = new Map(rows.map((row) => [row.id, recordOf(row)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Event ids of a consumer's letters not replayed yet: the ones a successful delivery settles.
 *
 * @example const pending = new Set(await unreplayedEventIds(letters, 'projector.runs'));
 */
export async function unreplayedEventIds(state: DeadLetterTable, consumer: string): Promise<string[]> {
  await ensureDeadLetterTable(state);
  const { rows } = await state.db.query<{ event_id: string }>(
    `SELECT event_id FROM ${state.table} WHERE consumer = $1 AND status <> 'replayed' AND event_id IS NOT NULL`,
    [consumer],
  );
  return rows.map((row) => row.event_id);
}
