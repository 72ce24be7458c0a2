/**
 * The SQL dead-letter store: each operation a module-level function over a small state (sql/), assembled
 * here into the DeadLetterStore port.
 */
import type { Clock } from '../clock';
import type { SqlDatabase } from '../sql/types';
import { findDeadLetters, listDeadLetters, unreplayedEventIds, unreplayedLetters } from './sql/read';
import { recordDeadLetter } from './sql/record';
import { markReplayed, markReplaying } from './sql/replay';
import { deadLetterTable, ensureDeadLetterTable } from './sql/table';
import type { DeadLetterStore } from './types';

export type { DeadLetterFilter, DeadLetterStore } from './types';
export { DEAD_LETTERS_SCHEMA } from './sql/table';
export { deadLetterId } from './sql/record';

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
  const state = deadLetterTable(options);
  return {
    init: () => ensureDeadLetterTable(state),
    record: (notice) => recordDeadLetter(state, notice),
    list: (filter) => listDeadLetters(state, filter),
    unreplayed: (filter) => unreplayedLetters(state, filter),
    find: (ids) => findDeadLetters(state, ids),
    unreplayedEventIds: (consumer) => unreplayedEventIds(state, consumer),
    markReplaying: (ids) => markReplaying(state, ids),
    markReplayed: (consumer, settled) => markReplayed(state, consumer, settled),
  };
}
