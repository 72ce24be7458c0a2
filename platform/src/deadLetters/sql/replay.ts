/** A letter's replay status: replaying once an operator asked, replayed once its consumer handled it. */
import { ensureDeadLetterTable, type DeadLetterTable } from './table';

/**
 * Marks the letters (not replayed yet) as being replayed, at the clock's now.
 *
 * @example await markReplaying(letters, ['dl_…']);
 */
export async function markReplaying(state: DeadLetterTable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await ensureDeadLetterTable(state);
  await state.db.query(
    `UPDATE ${state.table} SET status = 'replaying', replay_requested_at = $2
     WHERE id = ANY($1::text[]) AND status <> 'replayed'`,
    [ids, state.clock.now()],
  );
}

/**
 * Marks letters handled by their consumer: by letter id (a replay) or event id (a delivery again).
 *
 * @example await markReplayed(letters, 'projector.runs', { ids: [], eventIds: ['evt-1'] });
 */
export async function markReplayed(
  state: DeadLetterTable,
  consumer: string,
  settled: { ids: readonly string[]; eventIds: readonly string[] },
): Promise<void> {
  if (settled.ids.length === 0 && settled.eventIds.length === 0) return;
  await ensureDeadLetterTable(state);
  await state.db.query(
    `UPDATE ${state.table} SET status = 'replayed', replayed_at = $4
     WHERE consumer = $1 AND status <> 'replayed' AND (id = ANY($2::text[]) OR event_id = ANY($3::text[]))`,
    [consumer, settled.ids, settled.eventIds, state.clock.now()],
  );
}
