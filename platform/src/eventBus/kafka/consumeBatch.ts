/**
 * One kafkajs batch (one partition) through the shared delivery loop, in chunks of maxBatchSize, each
 * committed before the next starts. An offset is committed only after handleBatch resolved for every
 * message before it (autoCommit off, explicit commits).
 */
import type { EachBatchPayload, IHeaders, KafkaMessage } from 'kafkajs';
import type { Logger } from '../../logging';
import type { MessageCodec } from '../codec';
import {
  deliverBatch,
  sleep,
  type PartitionDelivery,
  type PendingMessage,
  type ResolvedSubscribeOptions,
} from '../delivery';
import type { OutgoingMessage } from '../types';
import type { Membership } from './membership';

/** What a consumer's batches need from its subscription. */
export interface ConsumerContext {
  logger: Logger;
  codec: MessageCodec | undefined;
  publishDeadLetter(topic: string, message: OutgoingMessage): Promise<void>;
  onStopped(): void;
}

export interface BatchContext extends ConsumerContext {
  stopping: AbortSignal;
  abandoning: AbortSignal;
  membership: Membership;
}

export const HEARTBEAT_INTERVAL_MS = 3_000;

/** Heartbeat errors that mean this member must rejoin the group (its partitions may move). */
const REJOIN_ERRORS = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID']);

function mustRejoin(error: unknown): boolean {
  const type = (error as { type?: unknown } | null)?.type;
  return typeof type === 'string' && REJOIN_ERRORS.has(type);
}

function headerText(value: IHeaders[string]): string | undefined {
  // Kafka allows a header name more than once; the port keeps one value per name: the last one.
  const last = Array.isArray(value) ? value.at(-1) : value;
  return last === undefined ? undefined : last.toString();
}

function toPending(topic: string, partition: number, message: KafkaMessage): PendingMessage {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    const text = headerText(value);
    if (text !== undefined) headers[name] = text;
  }
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString() ?? '',
    value: message.value?.toString() ?? '',
    headers,
  };
}

function chunked<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/**
 * A signal that aborts with any of `sources`. Unlike AbortSignal.any, dispose() detaches it from the
 * long-lived sources at once, so one per batch does not pile up listeners on the subscription's signals.
 */
function anyOf(sources: AbortSignal[]): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  for (const source of sources) {
    if (source.aborted) controller.abort();
    else source.addEventListener('abort', abort, { once: true });
  }
  return {
    signal: controller.signal,
    dispose: () => {
      for (const source of sources) source.removeEventListener('abort', abort);
    },
  };
}

/**
 * Heartbeats while a batch runs (handlers and backoffs included), so a slow batch does not cost the member
 * its place in the group. When one reports a rebalance, `rebalancing` aborts (no new chunk starts) and,
 * stopTimeoutMs later, `givenUp` (the handler still running is abandoned), so this member can rejoin
 * before rebalanceTimeout.
 */
function watchRebalance(
  payload: EachBatchPayload,
  options: ResolvedSubscribeOptions,
  context: BatchContext,
): { rebalancing: AbortSignal; givenUp: AbortSignal; stop(): void } {
  const generation = context.membership.generation;
  const rebalance = new AbortController();
  const giveUp = new AbortController();
  let giveUpTimer: NodeJS.Timeout | undefined;
  const markRebalancing = (): void => {
    context.membership.mustRejoin(generation);
    if (rebalance.signal.aborted) return;
    rebalance.abort();
    giveUpTimer = setTimeout(() => giveUp.abort(), options.stopTimeoutMs);
  };
  const heartbeat = async (): Promise<void> => {
    try {
      await payload.heartbeat();
    } catch (error) {
      if (mustRejoin(error)) markRebalancing();
      else context.logger.debug({ err: error }, 'heartbeat failed');
    }
  };
  // kafkajs also heartbeats between batches and throttles to heartbeatInterval, but not after a failure:
  // ticking faster would send a request per tick for as long as a rebalance is pending.
  const heartbeats = setInterval(() => void heartbeat(), HEARTBEAT_INTERVAL_MS);
  return {
    rebalancing: rebalance.signal,
    givenUp: giveUp.signal,
    stop: () => {
      clearInterval(heartbeats);
      clearTimeout(giveUpTimer);
    },
  };
}

/** The Kafka transport of the shared delivery loop for one batch's partition. */
function partitionDelivery(
  payload: EachBatchPayload,
  options: ResolvedSubscribeOptions,
  context: BatchContext,
  signals: { interrupted: AbortSignal; abandon: AbortSignal; isActive(): boolean },
  undecoded: Map<string, unknown>,
): PartitionDelivery {
  const { batch } = payload;
  return {
    groupId: options.groupId,
    topic: batch.topic,
    partition: batch.partition,
    options,
    logger: context.logger,
    abandon: signals.abandon,
    isActive: signals.isActive,
    wait: async (ms) => (await sleep(ms, signals.interrupted)) && signals.isActive(),
    handle: (messages, batchContext) => {
      // A batch holding a value that did not decode fails as a handler would, until it is alone and
      // dead-lettered; the subscriber never sees that value.
      const undecodable = messages.find((message) => undecoded.has(message.offset));
      if (undecodable) return Promise.reject(undecoded.get(undecodable.offset));
      return options.handleBatch(messages, batchContext);
    },
    commit: async (nextOffset) => {
      // Straight to the group coordinator: unlike consumer.commitOffsets, this also commits while stopping.
      await payload.commitOffsetsIfNecessary({
        topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: nextOffset }] }],
      });
      // Moves kafkajs's fetch position too; without it the next fetch would start over from the old one.
      payload.resolveOffset((BigInt(nextOffset) - 1n).toString());
    },
    publishDeadLetter: (message) => context.publishDeadLetter(batch.topic, message),
  };
}

/** Replaces each value by its decoded text; a value that does not decode keeps its raw text and its error. */
async function decodeAll(
  codec: MessageCodec,
  raw: KafkaMessage[],
  messages: PendingMessage[],
  undecoded: Map<string, unknown>,
): Promise<void> {
  await Promise.all(
    messages.map(async (message, index) => {
      try {
        message.value = await codec.decode(
          message.topic,
          raw[index]?.value ?? Buffer.alloc(0),
          message.headers,
        );
      } catch (error) {
        undecoded.set(message.offset, error);
      }
    }),
  );
}

/**
 * Delivers one kafkajs batch, chunk by chunk, while this member is active (see watchRebalance).
 *
 * @example await consumer.run({ autoCommit: false, eachBatch: (payload) => consumeBatch(payload, options, context) });
 */
export async function consumeBatch(
  payload: EachBatchPayload,
  options: ResolvedSubscribeOptions,
  context: BatchContext,
): Promise<void> {
  const { batch } = payload;
  if (context.membership.rejoinPending) return;
  const watch = watchRebalance(payload, options, context);
  const interrupted = anyOf([context.stopping, watch.rebalancing]);
  const abandon = anyOf([context.abandoning, watch.givenUp]);
  const isActive = (): boolean =>
    payload.isRunning() &&
    !payload.isStale() &&
    !interrupted.signal.aborted &&
    !context.membership.rejoinPending;
  const undecoded = new Map<string, unknown>();
  const signals = { interrupted: interrupted.signal, abandon: abandon.signal, isActive };
  const delivery = partitionDelivery(payload, options, context, signals, undecoded);
  try {
    for (const chunk of chunked(batch.messages, options.maxBatchSize)) {
      if (!isActive()) return;
      const messages = chunk.map((message) => toPending(batch.topic, batch.partition, message));
      if (context.codec) await decodeAll(context.codec, chunk, messages, undecoded);
      if ((await deliverBatch(messages, delivery)) === 'abandoned') return;
    }
  } finally {
    watch.stop();
    interrupted.dispose();
    abandon.dispose();
  }
}
