/**
 * What every operation of the Kafka bus works on: one kafkajs client, its producer and admin (connected
 * lazily, once), the subscriptions still running and whether the bus is closed. The operations are
 * module-level functions over this state; createKafkaBus only assembles them.
 */
import { Kafka, Partitioners, logLevel, type Admin, type LogEntry, type Producer } from 'kafkajs';
import { ServiceUnavailableError } from '../../errors';
import { silentLogger, type Logger } from '../../logging';
import type { MessageCodec } from '../codec';
import { settlesWithin } from '../delivery';
import type { Subscription } from '../types';

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

export interface KafkaBusState {
  kafka: Kafka;
  producer: Producer;
  admin: Admin;
  /** Connect on first use; a failed connect is tried again by the next call. */
  producerReady: () => Promise<void>;
  adminReady: () => Promise<void>;
  logger: Logger;
  defaultPartitions: number;
  maxRequestBytes: number;
  pingTimeoutMs: number;
  codec: MessageCodec | undefined;
  subscriptions: Set<Subscription>;
  closed: boolean;
}

const DEFAULT_PARTITIONS = 3;

const KAFKAJS_LEVELS = {
  error: logLevel.ERROR,
  warn: logLevel.WARN,
  info: logLevel.INFO,
  debug: logLevel.DEBUG,
} as const;

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

/**
 * The state of a Kafka bus: creating it does no I/O, the first operation connects.
 *
 * @example const state = kafkaBusState({ brokers: ['127.0.0.1:19092'], clientId: 'analytics' });
 */
export function kafkaBusState(options: KafkaBusOptions): KafkaBusState {
  const baseLogger = options.logger ?? silentLogger();
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    logLevel: KAFKAJS_LEVELS[options.clientLogLevel ?? 'warn'],
    logCreator: () => forwardTo(baseLogger.child({ component: 'kafkajs' })),
  });
  // Idempotent, one request in flight: per-key order survives the producer's retries.
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const admin = kafka.admin();
  return {
    kafka,
    producer,
    admin,
    producerReady: connectOnce(() => producer.connect()),
    adminReady: connectOnce(() => admin.connect()),
    logger: baseLogger.child({ component: 'eventBus', adapter: 'kafka' }),
    defaultPartitions: options.defaultPartitions ?? DEFAULT_PARTITIONS,
    maxRequestBytes: options.maxRequestBytes ?? 768 * 1024,
    pingTimeoutMs: options.pingTimeoutMs ?? 5_000,
    codec: options.codec,
    subscriptions: new Set(),
    closed: false,
  };
}

/** Refuses any operation but close() once the bus is closed. */
export function assertOpen(state: KafkaBusState): void {
  if (state.closed) throw new ServiceUnavailableError('The event bus is closed');
}

/**
 * Resolves when the cluster answers within pingTimeoutMs (used by /readyz).
 *
 * @example await ping(state);
 */
export async function ping(state: KafkaBusState): Promise<void> {
  assertOpen(state);
  const reachable = state.adminReady().then(() => state.admin.describeCluster());
  // A late failure after the timeout must not surface as an unhandled rejection.
  reachable.catch(() => undefined);
  if (!(await settlesWithin(reachable, state.pingTimeoutMs))) {
    throw new ServiceUnavailableError(`Kafka did not answer within ${state.pingTimeoutMs} ms`);
  }
  try {
    await reachable;
  } catch (error) {
    throw new ServiceUnavailableError('Kafka is unreachable', error);
  }
}

/**
 * Stops every subscription (each finishes or abandons its batch in flight), then disconnects. Idempotent.
 *
 * @example await closeBus(state);
 */
export async function closeBus(state: KafkaBusState): Promise<void> {
  if (state.closed) return;
  state.closed = true;
  await Promise.all([...state.subscriptions].map((subscription) => subscription.stop()));
  await Promise.all([state.producer.disconnect(), state.admin.disconnect()]);
}
