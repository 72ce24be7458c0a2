/**
 * The delivery loop both bus adapters run for one partition: redelivery of a failing batch with
 * exponential backoff, then per-message isolation, then dead letters. The adapters differ only in
 * transport (a log in memory, or Kafka), so the semantics the contract tests check are one code.
 */
import type { Logger } from '../logging';
import {
  DLQ_HEADERS,
  EVENT_ID_HEADER,
  type BatchContext,
  type IncomingMessage,
  type OutgoingMessage,
  type SubscribeOptions,
} from './types';
/** SubscribeOptions with every default applied. */
export interface ResolvedSubscribeOptions {
  groupId: string;
  topics: string[];
  fromBeginning: boolean;
  maxAttempts: number;
  backoff: { initialMs: number; maxMs: number };
  handleBatch: SubscribeOptions['handleBatch'];
  maxBatchSize: number;
  concurrentPartitions: number;
  stopTimeoutMs: number;
  onDeadLetter: SubscribeOptions['onDeadLetter'];
}

/**
 * Applies the port's defaults and refuses values that would make the bus spin or stall.
 *
 * @example const resolved = resolveSubscribeOptions({ groupId: 'analytics', topics: ['runs'], handleBatch });
 */
export function resolveSubscribeOptions(options: SubscribeOptions): ResolvedSubscribeOptions {
  const resolved: ResolvedSubscribeOptions = {
    groupId: options.groupId,
    topics: [...new Set(options.topics)],
    fromBeginning: options.fromBeginning ?? true,
    maxAttempts: options.maxAttempts ?? 5,
    backoff: options.backoff ?? { initialMs: 100, maxMs: 5_000 },
    handleBatch: options.handleBatch,
    maxBatchSize: options.maxBatchSize ?? 500,
    concurrentPartitions: options.concurrentPartitions ?? 1,
    stopTimeoutMs: options.stopTimeoutMs ?? 10_000,
    onDeadLetter: options.onDeadLetter,
  };
  if (!resolved.groupId) throw new TypeError('subscribe: groupId is required');
  if (resolved.topics.length === 0) throw new TypeError('subscribe: at least one topic is required');
  requirePositiveInteger('maxAttempts', resolved.maxAttempts);
  requirePositiveInteger('maxBatchSize', resolved.maxBatchSize);
  requirePositiveInteger('concurrentPartitions', resolved.concurrentPartitions);
  if (!(resolved.backoff.initialMs >= 0 && resolved.backoff.maxMs >= resolved.backoff.initialMs)) {
    throw new RangeError('subscribe: backoff needs 0 <= initialMs <= maxMs');
  }
  if (!(resolved.stopTimeoutMs >= 0)) throw new RangeError('subscribe: stopTimeoutMs must be >= 0');
  return resolved;
}

/** Refuses a count that is not a positive integer, naming the option. */
export function requirePositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1)
    throw new RangeError(`subscribe: ${name} must be an integer >= 1`);
}

/** A message read from a partition, before the bus numbers its delivery. */
export type PendingMessage = Omit<IncomingMessage, 'attempt'>;

/** One partition's delivery as the shared loop sees it; each adapter supplies the transport. */
export interface PartitionDelivery {
  groupId: string;
  topic: string;
  partition: number;
  options: ResolvedSubscribeOptions;
  logger: Logger;
  /** Aborted when the batch in flight is given up (see BatchContext.signal); its result is then ignored. */
  abandon: AbortSignal;
  /** False once no delivery should start on this partition any more (stopping, partition revoked). */
  isActive(): boolean;
  /** Waits before a redelivery; resolves false when the wait was cut short because isActive() turned false. */
  wait(ms: number): Promise<boolean>;
  /** Calls the subscriber's handler (the Kafka adapter keeps the group session alive meanwhile). */
  handle(messages: IncomingMessage[], context: BatchContext): Promise<void>;
  /** Commits `nextOffset` (the offset after the last handled message) for the group. */
  commit(nextOffset: string): Promise<void>;
  publishDeadLetter(message: OutgoingMessage): Promise<void>;
}

export type DeliveryOutcome = 'committed' | 'abandoned';

type HandlerCall = 'handled' | 'abandoned' | { error: unknown };
type Delivery = 'handled' | 'abandoned' | { error: unknown; deliveries: number };

/**
 * Delivers one batch of one partition until it is committed: the whole batch up to maxAttempts times with
 * exponential backoff, then (when that keeps failing) each message alone up to maxAttempts times, dead-
 * lettering those that still fail so the partition moves on. 'abandoned' means nothing past the last
 * commit counts: the partition stops here and its next owner starts from the committed offset.
 *
 * @example const outcome = await deliverBatch(messages, delivery); // 'committed' | 'abandoned'
 */
export async function deliverBatch(
  messages: PendingMessage[],
  delivery: PartitionDelivery,
): Promise<DeliveryOutcome> {
  const last = messages.at(-1);
  if (!last) return 'committed';
  const whole = await deliverWithRetries(messages, 0, delivery);
  if (whole === 'abandoned') return 'abandoned';
  if (whole === 'handled') {
    await delivery.commit(offsetAfter(last));
    return 'committed';
  }
  if (messages.length === 1) return settlePoison(last, whole, delivery);

  delivery.logger.warn(
    {
      topic: delivery.topic,
      partition: delivery.partition,
      firstOffset: messages[0]?.offset,
      count: messages.length,
    },
    'batch keeps failing: retrying its messages one by one',
  );
  for (const message of messages) {
    const single = await deliverWithRetries([message], whole.deliveries, delivery);
    if (single === 'abandoned') return 'abandoned';
    if (single === 'handled') await delivery.commit(offsetAfter(message));
    else if ((await settlePoison(message, single, delivery)) === 'abandoned') return 'abandoned';
  }
  return 'committed';
}

async function settlePoison(
  message: PendingMessage,
  failure: { error: unknown; deliveries: number },
  delivery: PartitionDelivery,
): Promise<DeliveryOutcome> {
  if (!(await deadLetter(message, failure, delivery))) return 'abandoned';
  await delivery.commit(offsetAfter(message));
  return 'committed';
}

/** `deliveredBefore` carries on the attempt count when a failed batch is retried message by message. */
async function deliverWithRetries(
  messages: PendingMessage[],
  deliveredBefore: number,
  delivery: PartitionDelivery,
): Promise<Delivery> {
  const { maxAttempts, backoff } = delivery.options;
  let lastError: unknown;
  for (let round = 1; round <= maxAttempts; round += 1) {
    if (!delivery.isActive() || delivery.abandon.aborted) return 'abandoned';
    const attempt = deliveredBefore + round;
    const call = await callHandler(
      messages.map((message) => ({ ...message, headers: { ...message.headers }, attempt })),
      delivery,
    );
    if (call === 'handled' || call === 'abandoned') return call;
    lastError = call.error;
    delivery.logger.warn(
      {
        err: call.error,
        topic: delivery.topic,
        partition: delivery.partition,
        firstOffset: messages[0]?.offset,
        count: messages.length,
        attempt,
      },
      'handler failed',
    );
    if (round < maxAttempts && !(await delivery.wait(backoffDelay(backoff, round)))) return 'abandoned';
  }
  return { error: lastError, deliveries: deliveredBefore + maxAttempts };
}

function callHandler(messages: IncomingMessage[], delivery: PartitionDelivery): Promise<HandlerCall> {
  // Promise.resolve().then turns a handler that throws synchronously into a rejection like any other.
  const handled = Promise.resolve()
    .then(() => delivery.handle(messages, { signal: delivery.abandon }))
    .then(
      (): HandlerCall => 'handled',
      (error: unknown): HandlerCall => ({ error }),
    );
  return untilAborted(handled, delivery.abandon, 'abandoned');
}

/**
 * Writes the dead letter, then tells onDeadLetter; each is retried until it succeeds. Returns false when the
 * subscription stopped first: the message is then not committed, and is delivered (and judged) again.
 */
async function deadLetter(
  message: PendingMessage,
  failure: { error: unknown; deliveries: number },
  delivery: PartitionDelivery,
): Promise<boolean> {
  const error = describeError(failure.error);
  const letter: OutgoingMessage = {
    key: message.key,
    value: message.value,
    headers: {
      ...message.headers,
      [DLQ_HEADERS.error]: error,
      [DLQ_HEADERS.originalTopic]: message.topic,
      [DLQ_HEADERS.originalPartition]: String(message.partition),
      [DLQ_HEADERS.originalOffset]: message.offset,
      [DLQ_HEADERS.attempts]: String(failure.deliveries),
      [DLQ_HEADERS.groupId]: delivery.groupId,
    },
  };
  const where = {
    topic: message.topic,
    partition: message.partition,
    offset: message.offset,
    groupId: delivery.groupId,
    eventId: message.headers[EVENT_ID_HEADER] ?? null,
  };
  // Moving on without the dead letter (or its record) would lose the message silently: keep trying.
  const published = await untilDone(
    delivery,
    () => delivery.publishDeadLetter(letter),
    (err) => delivery.logger.error({ ...where, err }, 'could not write the dead letter; retrying'),
  );
  if (!published) return false;
  // One line per dead letter, with what an operator needs to find it and why it failed.
  delivery.logger.error(
    { ...where, err: failure.error, error, attempts: failure.deliveries },
    'message dead-lettered',
  );
  const { onDeadLetter } = delivery.options;
  if (onDeadLetter === undefined) return true;
  const notice = { ...where, key: message.key, value: message.value, headers: message.headers, error };
  const { eventId: _eventId, ...rest } = notice;
  return untilDone(
    delivery,
    () => onDeadLetter({ ...rest, attempts: failure.deliveries }),
    (err) => delivery.logger.error({ ...where, err }, 'could not record the dead letter; retrying'),
  );
}

/** Runs `work` until it resolves (true) or the subscription stops (false), waiting the backoff between. */
async function untilDone(
  delivery: PartitionDelivery,
  work: () => Promise<void>,
  onError: (error: unknown) => void,
): Promise<boolean> {
  for (let round = 1; ; round += 1) {
    try {
      await work();
      return true;
    } catch (error) {
      onError(error);
      if (!(await delivery.wait(backoffDelay(delivery.options.backoff, round)))) return false;
    }
  }
}

const MAX_ERROR_HEADER_LENGTH = 2_000;

function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_HEADER_LENGTH ? `${text.slice(0, MAX_ERROR_HEADER_LENGTH)}…` : text;
}

/** The wait after the n-th consecutive failure: initialMs doubling up to maxMs. */
export function backoffDelay(backoff: { initialMs: number; maxMs: number }, failures: number): number {
  return Math.min(backoff.initialMs * 2 ** (failures - 1), backoff.maxMs);
}

function offsetAfter(message: PendingMessage): string {
  return (BigInt(message.offset) + 1n).toString();
}

/** Resolves with `work`'s value, or with `aborted` as soon as the signal aborts. `work` must not reject. */
export function untilAborted<T, A>(work: Promise<T>, signal: AbortSignal, aborted: A): Promise<T | A> {
  if (signal.aborted) return Promise.resolve(aborted);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(aborted);
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
}

/** Sleeps `ms`; resolves false early when the signal aborts. Leaves no timer or listener behind. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** True when `work` settles within `ms`. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The in-process transport.
