import type { EventEnvelope } from '@verdict/contracts';

/** An event a decider produced, before the store gives it its id (unless given) and positions. */
export interface NewEvent {
  type: string;
  version: number;
  data: unknown;
  /** Set to make the append idempotent across retries of the same command; generated otherwise. */
  eventId?: string;
}

export interface AppendMetadata {
  projectId?: string | null;
  correlationId?: string | null;
  causationId?: string | null;
  /** When the events happened; defaults to the store's clock. */
  occurredAt?: Date;
}

/** `no_stream`: the stream must not exist yet; `any`: no check; a number: the stream must be at it. */
export type ExpectedVersion = number | 'no_stream' | 'any';

export type StoredEvent = EventEnvelope;

/**
 * Where a reader of the whole store stands. Events are ordered by (transactionId, globalPosition) and only
 * events of transactions older than every transaction still in flight are readable, so a reader never
 * skips an event that commits later with a lower position. Opaque to callers: keep it, hand it back.
 */
export interface GlobalCursor {
  transactionId: string;
  globalPosition: number;
}

export const START: GlobalCursor = Object.freeze({ transactionId: '0', globalPosition: 0 });

export interface AppendResult {
  /** The stream's version after the append. */
  nextExpectedVersion: number;
  events: StoredEvent[];
}

export interface ReadAllResult {
  events: StoredEvent[];
  /** Where to continue from; equals the `after` given when nothing was read. */
  cursor: GlobalCursor;
}

/** An event's envelope without its data: what a reader of the whole store routes by. */
export type EventMetadata = Omit<StoredEvent, 'data'>;

/** A stored event as a relay sends it: its envelope as JSON text, the data as stored and never parsed. */
export interface SerializedEvent extends EventMetadata {
  json: string;
}

export interface ReadAllSerializedResult {
  events: SerializedEvent[];
  cursor: GlobalCursor;
}

/**
 * Event store port. Append with optimistic concurrency (a VersionConflictError when the stream moved),
 * read one stream, read everything in commit-safe global order.
 *
 * @example await store.append('run-1', [{ type: 'run.started', version: 1, data }], { expectedVersion: 'no_stream' });
 */
export interface EventStore {
  /** Creates the schema and tables when missing. Idempotent. */
  init(): Promise<void>;
  append(
    streamId: string,
    events: NewEvent[],
    options: { expectedVersion: ExpectedVersion } & AppendMetadata,
  ): Promise<AppendResult>;
  /** The events of one stream in order, from stream position `fromVersion` (inclusive, default 1). */
  readStream(streamId: string, options?: { fromVersion?: number }): Promise<StoredEvent[]>;
  /** Up to `limit` events after the cursor, in (transaction, position) order; none that may still change. */
  readAll(options: { after: GlobalCursor; limit: number }): Promise<ReadAllResult>;
  /**
   * readAll for a relay, which only forwards the events: each comes as its envelope's JSON, with the data
   * as the database prints it. Parsing every event's data to serialize it again cost the relay about as
   * much as everything else it does.
   */
  readAllSerialized(options: { after: GlobalCursor; limit: number }): Promise<ReadAllSerializedResult>;
  /**
   * Which of these event ids are stored, in any stream: lets a writer that derives ids from content (one
   * event per test result) tell duplicates from new events in one query instead of folding a stream.
   * Sees committed events only.
   */
  existingEventIds(eventIds: readonly string[]): Promise<Set<string>>;
}
