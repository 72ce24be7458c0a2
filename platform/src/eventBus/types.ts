/**
 * The event bus port: keyed messages on topics, consumer groups, at-least-once delivery, order per key.
 * A handler that throws gets the message again with exponential backoff; after `maxAttempts` the message
 * goes to the dead-letter topic `<topic>.dlq` with the error, and the partition moves on.
 */
export interface OutgoingMessage {
  key: string;
  value: string;
  headers?: Record<string, string>;
}

export interface IncomingMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  value: string;
  headers: Record<string, string>;
  /** 1 on first delivery within this subscription, 2 on the first redelivery after a failure, … */
  attempt: number;
}

/** What the bus tells a handler besides the messages. */
export interface BatchContext {
  /**
   * Aborted when the bus gives up on this delivery: the subscription is stopping, or the partition is
   * being handed to another member of the group, and the batch did not finish within `stopTimeoutMs`.
   * The batch is then not committed and goes to the group again, so a handler may roll back its work.
   */
  signal: AbortSignal;
}

export interface SubscribeOptions {
  groupId: string;
  topics: string[];
  /** Start a brand-new group at the beginning of the topics (default true: nothing published is missed). */
  fromBeginning?: boolean;
  /** Deliveries before a failing message is dead-lettered (default 5). */
  maxAttempts?: number;
  /** Backoff between redeliveries: initialMs doubling up to maxMs (defaults 100 ms and 5 s). */
  backoff?: { initialMs: number; maxMs: number };
  /**
   * Called for messages of one partition, in order. When it throws, the same batch is delivered again after
   * the backoff; once a batch has failed `maxAttempts` times the bus retries its messages one by one and
   * dead-letters only those that still fail. Offsets are committed only after the handler resolves.
   */
  handleBatch: (messages: IncomingMessage[], context: BatchContext) => Promise<void>;
  /** Upper bound on messages per handleBatch call (default 500). */
  maxBatchSize?: number;
  /**
   * Batches of different partitions this subscription may handle at the same time (default 1: calls to
   * handleBatch never overlap). Order per partition, hence per key, holds whatever the value.
   */
  concurrentPartitions?: number;
  /**
   * How long stop() (or losing a partition to another member) waits for an in-flight batch before it
   * aborts the batch's signal and leaves it uncommitted (default 10 s).
   */
  stopTimeoutMs?: number;
  /**
   * Told of each message once it is on the dead-letter topic, before the partition moves past it: the
   * bookkeeping that lets an operator see and replay it (platform/deadLetters). Retried with the backoff
   * until it resolves (the partition waits meanwhile), so it must be idempotent.
   */
  onDeadLetter?: (letter: DeadLetterNotice) => Promise<void>;
}

/** A message that went to the dead-letter topic, as its consumer saw it, and why. */
export interface DeadLetterNotice {
  groupId: string;
  topic: string;
  partition: number;
  offset: string;
  key: string;
  value: string;
  /** The message's own headers, without the x-dlq-* ones the dead letter adds. */
  headers: Record<string, string>;
  /** `Name: message` of the handler's last error. */
  error: string;
  /** Deliveries it failed. */
  attempts: number;
}

export interface Subscription {
  /**
   * Stops consuming: no new batch starts, the batch in flight gets `stopTimeoutMs` to finish. What was
   * handled is committed, what was not is delivered again to the group.
   */
  stop(): Promise<void>;
}

export interface EventBus {
  /**
   * Creates topics when missing (partitions default to 3). Idempotent; an existing topic keeps its
   * partitions. Publishing to or subscribing to a topic that was never ensured fails: no adapter creates
   * topics implicitly. subscribe() ensures the dead-letter topics of its topics itself.
   */
  ensureTopics(topics: string[], options?: { partitions?: number }): Promise<void>;
  /** Resolves once the messages are durably accepted by the bus, in order per key. */
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Resolves when the bus is reachable; used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The header the outbox relay names an event's id in; the dead letters are kept by it. */
export const EVENT_ID_HEADER = 'event-id';

/**
 * The dead-letter topic of a topic.
 *
 * @example deadLetterTopic('test-results') // 'test-results.dlq'
 */
export const deadLetterTopic = (topic: string): string => `${topic}.dlq`;

/** Headers a dead-lettered message carries besides its original ones. */
export const DLQ_HEADERS = {
  error: 'x-dlq-error',
  originalTopic: 'x-dlq-original-topic',
  originalPartition: 'x-dlq-original-partition',
  originalOffset: 'x-dlq-original-offset',
  attempts: 'x-dlq-attempts',
  groupId: 'x-dlq-group-id',
} as const;
