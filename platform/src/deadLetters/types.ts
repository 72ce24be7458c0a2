import type { DeadLetterRecord, DeadLetterStatus } from '@verdict/contracts';
import type { DeadLetterNotice } from '../eventBus/types';

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
