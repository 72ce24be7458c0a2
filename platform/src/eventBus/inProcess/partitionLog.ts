/**
 * One partition of a topic in memory: an append-only log whose consumed prefix may be dropped, and the
 * consumers waiting for its next message.
 */
import type { OutgoingMessage } from '../types';

export interface StoredMessage {
  offset: number;
  key: string;
  value: string;
  headers: Record<string, string>;
}

/** Compact the dropped prefix of a log once it is this long and at least half of the array. */
const COMPACT_AFTER = 1_024;

export class PartitionLog {
  private entries: StoredMessage[] = [];
  /** Offset of entries[0]. */
  private base = 0;
  /** Index of the oldest message still kept; the ones before it are dropped, awaiting compaction. */
  private head = 0;
  private readonly waiters = new Set<() => void>();

  get startOffset(): number {
    return this.base + this.head;
  }

  get endOffset(): number {
    return this.base + this.entries.length;
  }

  append(message: OutgoingMessage): void {
    this.entries.push({
      offset: this.endOffset,
      key: message.key,
      value: message.value,
      headers: { ...message.headers },
    });
  }

  /** Wakes every consumer waiting for new messages. */
  notify(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  read(from: number, max: number): StoredMessage[] {
    const start = Math.max(from, this.startOffset) - this.base;
    return this.entries.slice(start, start + max);
  }

  /** Resolves when a message at `offset` or later exists, or when the signal aborts. */
  waitForMessage(offset: number, signal: AbortSignal): Promise<void> {
    if (this.endOffset > offset || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        this.waiters.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.waiters.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }

  dropBefore(offset: number): void {
    const index = Math.min(offset, this.endOffset) - this.base;
    if (index <= this.head) return;
    this.head = index;
    if (this.head >= COMPACT_AFTER && this.head * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.base += this.head;
      this.head = 0;
    }
  }
}
