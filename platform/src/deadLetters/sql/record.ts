/** Keeping a dead letter: one row per (consumer group, event), updated when it is dead-lettered again. */
import { createHash } from 'node:crypto';
import type { DeadLetterRecord } from '@verdict/contracts';
import { EVENT_ID_HEADER, type DeadLetterNotice } from '../../eventBus/types';
import { ensureDeadLetterTable, recordOf, type DeadLetterRow, type DeadLetterTable } from './table';

/**
 * A letter's id: the same for the same consumer and event however often it is dead-lettered. A message
 * without an event id (not from an outbox relay) is known by where it was instead.
 *
 * @example const id = deadLetterId({ groupId: 'analytics', topic: 'runs', partition: 0, offset: '7', headers });
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
 * Keeps a dead letter (status back to pending if it had been replayed).
 *
 * @example const letter = await recordDeadLetter(letters, notice);
 */
export async function recordDeadLetter(
  state: DeadLetterTable,
  notice: DeadLetterNotice,
): Promise<DeadLetterRecord> {
  await ensureDeadLetterTable(state);
  const { table } = state;
  const { rows } = await state.db.query<DeadLetterRow>(
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
      state.clock.now(),
    ],
  );
  return recordOf(rows[0] as DeadLetterRow);
}
