/**
 * The distributed mode's event bus over Apache Kafka (kafkajs). The only file that imports kafkajs; it is
 * its own entry point (`@verdict/platform/kafka`) so the embedded process never loads it.
 *
 * Invariants: an offset is committed only after handleBatch resolved for every message before it
 * (autoCommit off, explicit commits); per-key order survives producer retries (idempotent producer, one
 * request in flight); topics are never created implicitly (ensureTopics, or subscribe for dead-letter
 * topics), so a typo fails loudly instead of creating a one-partition topic with broker defaults.
 */
import {
  Kafka,
  Partitioners,
  logLevel,
  type Consumer,
  type EachBatchPayload,
  type IHeaders,
  type KafkaMessage,
  type LogEntry,
} from 'kafkajs';
import { ServiceUnavailableError } from '../errors';
import { silentLogger, type Logger } from '../logging';
import type { MessageCodec } from './codec';
import {
  deliverBatch,
  resolveSubscribeOptions,
  settlesWithin,
  sleep,
  type PartitionDelivery,
  type PendingMessage,
  type ResolvedSubscribeOptions,
} from './delivery';
import { deadLetterTopic, type EventBus, type OutgoingMessage, type Subscription } from './types';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  logger?: Logger;
  /** Partitions of a topic ensured without an explicit count (default 3). */
  defaultPartitions?: number;
  /** kafkajs's own log level, forwarded into the logger (default 'warn': kafkajs is chatty at info). */
  clientLogLevel?: 'error' | 'warn' | 'info' | 'debug';
  /**
   * Upper bound of one produce request; publish() sends bigger calls in several requests, in order
   * (default 768 KiB, under the broker's default message.max.bytes of 1 MiB per partition batch).
   */
  maxRequestBytes?: number;
  /** How long ping() waits for the cluster before it reports it unreachable (default 5 s). */
  pingTimeoutMs?: number;
  /**
   * Frames values on publish and unframes them on consume (the schema registry's codec); a value that does
   * not decode fails its delivery like a handler error, so it ends in the dead-letter topic. Dead letters
   * themselves are written as the consumer read them, unframed. Without one, values travel as plain text.
   */
  codec?: MessageCodec;
}

const DEFAULT_PARTITIONS = 3;
const SESSION_TIMEOUT_MS = 15_000;
const HEARTBEAT_INTERVAL_MS = 3_000;
/** How long an idle fetch waits on the broker; it bounds how long stop() waits for the fetch loop. */
const FETCH_MAX_WAIT_MS = 1_000;
/**
 * Bytes a fetch may bring from one partition. kafkajs's default, 1 MB, holds one record batch of 500
 * events of about 1.5 KB (the relay's chunk): every fetch then brought one chunk, whatever maxBatchSize a
 * subscriber asked for. 4 MB brings a few chunks, so a subscriber's transactions can be as big as it says.
 */
const FETCH_MAX_BYTES_PER_PARTITION = 4 * 1024 * 1024;
/** Rough bytes a record adds to its key, value and headers in a record batch. */
const RECORD_OVERHEAD_BYTES = 64;

const KAFKAJS_LEVELS = {
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
} as const;

/**
 * The Kafka event bus. Connects lazily: creating it does no I/O, the first call connects.
 *
 * @example const bus = createKafkaBus({ brokers: ['127.0.0.1:19092'], clientId: 'analytics', logger });
 */
export function createKafkaBus(options: KafkaBusOptions): EventBus {
  const baseLogger = options.logger ?? silentLogger();
  const logger = baseLogger.child({ component: 'eventBus', adapter: 'kafka' });
  const defaultPartitions = options.defaultPartitions ?? DEFAULT_PARTITIONS;
  const maxRequestBytes = options.maxRequestBytes ?? 768 * 1024;
  const pingTimeoutMs = options.pingTimeoutMs ?? 5_000;
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    logLevel: KAFKAJS_LEVELS[options.clientLogLevel ?? 'warn'],
    logCreator: () => forwardTo(baseLogger.child({ component: 'kafkajs' })),
  });
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const admin = kafka.admin();
  const producerReady = connectOnce(() => producer.connect());
  const adminReady = connectOnce(() => admin.connect());
  const subscriptions = new Set<Subscription>();
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new ServiceUnavailableError('The event bus is closed');
  }

  async function send(topic: string, messages: OutgoingMessage[], codec?: MessageCodec): Promise<void> {
    // Encoded first: a message its contract refuses is that error, not an unreachable Kafka.
    const wire: WireMessage[] = codec
      ? await Promise.all(
          messages.map(async (message) => ({ ...message, value: await codec.encode(topic, message) })),
        )
      : messages;
    try {
      await producerReady();
      // One request at a time: the idempotent producer then keeps the order of the whole call per key.
      for (const chunk of chunkByBytes(wire, maxRequestBytes)) {
        await producer.send({ topic, acks: -1, messages: chunk.map(toKafkaMessage) });
      }
    } catch (error) {
      throw new ServiceUnavailableError(`Could not publish to Kafka topic ${topic}`, error);
    }
  }

  async function ensureTopics(topics: string[], partitions: number): Promise<void> {
    try {
      await adminReady();
      const existing = new Set(await admin.listTopics());
      const missing = [...new Set(topics)].filter((topic) => !existing.has(topic));
      if (missing.length === 0) return;
      // Resolves false when another process created them first, which is just as good.
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({ topic, numPartitions: partitions })),
      });
      logger.info({ topics: missing, partitions }, 'topics created');
    } catch (error) {
      // Processes starting together create the same topics: losing that race (TOPIC_ALREADY_EXISTS)
      // leaves the topics there all the same, once the metadata shows them.
      if ((await stillMissing(topics).catch(() => topics)).length === 0) return;
      throw new ServiceUnavailableError(`Could not ensure Kafka topics ${topics.join(', ')}`, error);
    }
  }

  async function missingTopics(topics: string[]): Promise<string[]> {
    try {
      await adminReady();
      const existing = new Set(await admin.listTopics());
      return topics.filter((topic) => !existing.has(topic));
    } catch (error) {
      throw new ServiceUnavailableError('Could not list Kafka topics', error);
    }
  }

  /**
   * The topics still missing after about three seconds: one created a moment ago, by this process or by
   * another one starting alongside (the services of a compose file start together), can be missing from
   * the metadata for a moment.
   */
  async function stillMissing(topics: string[]): Promise<string[]> {
    let missing = await missingTopics(topics);
    for (let pause = 100; missing.length > 0 && pause <= 1_600; pause *= 2) {
      await new Promise((resolve) => setTimeout(resolve, pause));
      missing = await missingTopics(missing);
    }
    return missing;
  }

  /** Refuses topics nobody ensured (as the in-process bus does), then creates their dead-letter topics. */
  async function prepareSubscription(topics: string[]): Promise<void> {
    const missing = await stillMissing(topics);
    if (missing.length > 0)
      throw new Error(`Topic "${missing.join('", "')}" does not exist: call ensureTopics first`);
    await ensureTopics(topics.map(deadLetterTopic), defaultPartitions);
  }

  return {
    async ensureTopics(topics, ensureOptions) {
      assertOpen();
      await ensureTopics(topics, ensureOptions?.partitions ?? defaultPartitions);
    },

    async publish(topic, messages) {
      assertOpen();
      if (messages.length > 0) await send(topic, messages, options.codec);
    },

    async subscribe(subscribeOptions) {
      assertOpen();
      const resolved = resolveSubscribeOptions(subscribeOptions);
      await prepareSubscription(resolved.topics);
      const subscription = await startConsumer(kafka, resolved, {
        logger: logger.child({ groupId: resolved.groupId }),
        codec: options.codec,
        publishDeadLetter: (topic, message) => send(deadLetterTopic(topic), [message]),
        onStopped: () => subscriptions.delete(subscription),
      });
      subscriptions.add(subscription);
      return subscription;
    },

    async ping() {
      assertOpen();
      const reachable = adminReady().then(() => admin.describeCluster());
      // A late failure after the timeout must not surface as an unhandled rejection.
      reachable.catch(() => undefined);
      if (!(await settlesWithin(reachable, pingTimeoutMs))) {
        throw new ServiceUnavailableError(`Kafka did not answer within ${pingTimeoutMs} ms`);
      }
      try {
        await reachable;
      } catch (error) {
        throw new ServiceUnavailableError('Kafka is unreachable', error);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    },
  };
}

/** Memoizes a connect; a failed attempt is forgotten so that the next call tries again. */
function connectOnce(connect: () => Promise<void>): () => Promise<void> {
  let connecting: Promise<void> | undefined;
  return () => {
    connecting ??= connect().catch((error: unknown) => {
      connecting = undefined;
      throw error;
    });
    return connecting;
  };
}

/**
 * kafkajs log entries into pino, at the level kafkajs gave them, except one: the connection layer logs
 * every error response as an error ("Response Heartbeat … The group is rebalancing"), although the layer
 * that sent the request handles it (retry, rejoin) and logs what matters. Those go to debug.
 */
function forwardTo(logger: Logger): (entry: LogEntry) => void {
  return ({ namespace, level, log }) => {
    const { message, timestamp: _timestamp, ...fields } = log;
    const context = { ...fields, kafkajsNamespace: namespace };
    if (namespace === 'Connection' && message.startsWith('Response ')) logger.debug(context, message);
    else if (level === logLevel.ERROR) logger.error(context, message);
    else if (level === logLevel.WARN) logger.warn(context, message);
    else if (level === logLevel.INFO) logger.info(context, message);
    else logger.debug(context, message);
  };
}

/** A message as it goes to Kafka: its value is text, or the codec's bytes. */
type WireMessage = Omit<OutgoingMessage, 'value'> & { value: string | Buffer };

function toKafkaMessage(message: WireMessage): WireMessage {
  return { key: message.key, value: message.value, headers: message.headers };
}

function messageBytes(message: WireMessage): number {
  let bytes = RECORD_OVERHEAD_BYTES + Buffer.byteLength(message.key) + Buffer.byteLength(message.value);
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
  }
  return bytes;
}

/** Consecutive slices of at most `maxBytes` each (a bigger message goes alone; the broker judges it). */
function chunkByBytes(messages: WireMessage[], maxBytes: number): WireMessage[][] {
  const chunks: WireMessage[][] = [];
  let current: WireMessage[] = [];
  let currentBytes = 0;
  for (const message of messages) {
    const bytes = messageBytes(message);
    if (current.length > 0 && currentBytes + bytes > maxBytes) {
      chunks.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(message);
    currentBytes += bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
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

interface ConsumerContext {
  logger: Logger;
  codec: MessageCodec | undefined;
  publishDeadLetter(topic: string, message: OutgoingMessage): Promise<void>;
  onStopped(): void;
}

/** Joins the group; resolves once this member has its partitions. */
async function startConsumer(
  kafka: Kafka,
  options: ResolvedSubscribeOptions,
  context: ConsumerContext,
): Promise<Subscription> {
  const stopping = new AbortController();
  const abandoning = new AbortController();
  const rebalanceTimeout = Math.max(30_000, options.stopTimeoutMs + 15_000);
  const membership = new Membership(rebalanceTimeout);
  const consumer = kafka.consumer({
    groupId: options.groupId,
    allowAutoTopicCreation: false,
    sessionTimeout: SESSION_TIMEOUT_MS,
    heartbeatInterval: HEARTBEAT_INTERVAL_MS,
    // Members rejoin only once their batch in flight is done; give them stopTimeoutMs and some margin.
    rebalanceTimeout,
    maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
    maxBytesPerPartition: FETCH_MAX_BYTES_PER_PARTITION,
  });
  consumer.on(consumer.events.CRASH, (event) => {
    context.logger.error(
      { err: event.payload.error, restart: event.payload.restart },
      'Kafka consumer crashed; kafkajs restarts it when the error is retriable',
    );
  });
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    membership.rejoined();
    context.logger.info({ assignment: event.payload.memberAssignment }, 'joined consumer group');
  });

  try {
    await consumer.connect();
    await consumer.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: options.concurrentPartitions,
      eachBatch: (payload) =>
        consumeBatch(payload, options, {
          ...context,
          stopping: stopping.signal,
          abandoning: abandoning.signal,
          membership,
        }),
    });
  } catch (error) {
    await consumer.disconnect().catch(() => undefined);
    throw new ServiceUnavailableError(`Could not subscribe to ${options.topics.join(', ')}`, error);
  }

  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= stopConsumer(consumer, options, context.logger, stopping, abandoning).finally(
        context.onStopped,
      );
      return stopped;
    },
  };
}

/**
 * disconnect() waits for the batch in flight (kafkajs finishes eachBatch before it leaves the group); a
 * batch that outlives stopTimeoutMs is abandoned uncommitted so that stopping never hangs on a handler.
 */
async function stopConsumer(
  consumer: Consumer,
  options: ResolvedSubscribeOptions,
  logger: Logger,
  stopping: AbortController,
  abandoning: AbortController,
): Promise<void> {
  stopping.abort();
  const disconnected = consumer.disconnect().catch((error: unknown) => {
    logger.warn({ err: error }, 'Kafka consumer did not disconnect cleanly');
  });
  if (!(await settlesWithin(disconnected, options.stopTimeoutMs))) {
    logger.warn('batch still in flight after stopTimeoutMs: abandoning it uncommitted');
    abandoning.abort();
  }
  await disconnected;
}

/**
 * Whether this member has to rejoin its group: set when a heartbeat reports a rebalance, cleared when the
 * member has rejoined. kafkajs goes on handing out the batches it already fetched; they are skipped
 * meanwhile (and fetched again after the rejoin), so that the member rejoins at once instead of after
 * every queued batch. The flag expires after rebalanceTimeout, so a missed rejoin event cannot stall it.
 */
export class Membership {
  private pendingSince: number | undefined;
  private joins = 0;

  constructor(private readonly rebalanceTimeoutMs: number) {}

  get rejoinPending(): boolean {
    return this.pendingSince !== undefined && Date.now() - this.pendingSince < this.rebalanceTimeoutMs;
  }

  /** How many times this member has joined its group; a batch notes it when it starts. */
  get generation(): number {
    return this.joins;
  }

  /**
   * A heartbeat of a batch that started in `generation` reported a rebalance. Ignored when the member has
   * rejoined since: that heartbeat was in flight across the rejoin and speaks of the old generation, and
   * taking it at its word would skip every batch until the flag expires.
   */
  mustRejoin(generation: number = this.joins): void {
    if (generation !== this.joins) return;
    this.pendingSince ??= Date.now();
  }

  rejoined(): void {
    this.joins += 1;
    this.pendingSince = undefined;
  }
}

interface BatchContext extends ConsumerContext {
  stopping: AbortSignal;
  abandoning: AbortSignal;
  membership: Membership;
}

/** Heartbeat errors that mean this member must rejoin the group (its partitions may move). */
const REJOIN_ERRORS = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID']);

function mustRejoin(error: unknown): boolean {
  const type = (error as { type?: unknown } | null)?.type;
  return typeof type === 'string' && REJOIN_ERRORS.has(type);
}

/**
 * One kafkajs batch (one partition), in chunks of maxBatchSize, each committed before the next starts.
 * Heartbeats go on while handlers run and while backoffs wait, so a slow batch does not cost the member
 * its place in the group. When a heartbeat reports a rebalance, no new chunk starts, and a handler still
 * running after stopTimeoutMs is abandoned, so this member can rejoin before rebalanceTimeout.
 */
async function consumeBatch(
  payload: EachBatchPayload,
  options: ResolvedSubscribeOptions,
  context: BatchContext,
): Promise<void> {
  const { batch } = payload;
  if (context.membership.rejoinPending) return;
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
  const interrupted = anyOf([context.stopping, rebalance.signal]);
  const abandon = anyOf([context.abandoning, giveUp.signal]);
  const isActive = (): boolean =>
    payload.isRunning() &&
    !payload.isStale() &&
    !interrupted.signal.aborted &&
    !context.membership.rejoinPending;

  const delivery: PartitionDelivery = {
    groupId: options.groupId,
    topic: batch.topic,
    partition: batch.partition,
    options,
    logger: context.logger,
    abandon: abandon.signal,
    isActive,
    wait: async (ms) => (await sleep(ms, interrupted.signal)) && isActive(),
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

  const undecoded = new Map<string, unknown>();
  try {
    for (const chunk of chunked(batch.messages, options.maxBatchSize)) {
      if (!isActive()) return;
      const messages = chunk.map((message) => toPending(batch.topic, batch.partition, message));
      if (context.codec) await decodeAll(context.codec, chunk, messages, undecoded);
      if ((await deliverBatch(messages, delivery)) === 'abandoned') return;
    }
  } finally {
    clearInterval(heartbeats);
    clearTimeout(giveUpTimer);
    interrupted.dispose();
    abandon.dispose();
  }
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
