/**
 * Subscribing: one kafkajs consumer per subscription, a member of its consumer group, running the shared
 * delivery loop on every batch (consumeBatch.ts). Dead letters go to `<topic>.dlq` through the bus's
 * producer.
 */
import type { Consumer, Kafka } from 'kafkajs';
import { ServiceUnavailableError } from '../../errors';
import type { Logger } from '../../logging';
import { resolveSubscribeOptions, settlesWithin, type ResolvedSubscribeOptions } from '../delivery';
import { deadLetterTopic, type SubscribeOptions, type Subscription } from '../types';
import { consumeBatch, HEARTBEAT_INTERVAL_MS, type ConsumerContext } from './consumeBatch';
import { Membership } from './membership';
import { sendMessages } from './publish';
import { assertOpen, type KafkaBusState } from './state';
import { prepareSubscription } from './topics';

const SESSION_TIMEOUT_MS = 15_000;
/** How long an idle fetch waits on the broker; it bounds how long stop() waits for the fetch loop. */
const FETCH_MAX_WAIT_MS = 1_000;
/**
 * Bytes a fetch may bring from one partition. kafkajs's default, 1 MB, holds one record batch of 500
 * events of about 1.5 KB (the relay's chunk): every fetch then brought one chunk, whatever maxBatchSize a
 * subscriber asked for. 4 MB brings a few chunks, so a subscriber's transactions can be as big as it says.
 */
const FETCH_MAX_BYTES_PER_PARTITION = 4 * 1024 * 1024;

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

/** A consumer of the group that logs its crashes and notes each join in `membership`. */
function groupConsumer(
  kafka: Kafka,
  options: ResolvedSubscribeOptions,
  logger: Logger,
  membership: Membership,
  rebalanceTimeout: number,
): Consumer {
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
    logger.error(
      { err: event.payload.error, restart: event.payload.restart },
      'Kafka consumer crashed; kafkajs restarts it when the error is retriable',
    );
  });
  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    membership.rejoined();
    logger.info({ assignment: event.payload.memberAssignment }, 'joined consumer group');
  });
  return consumer;
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
  const consumer = groupConsumer(kafka, options, context.logger, membership, rebalanceTimeout);
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
 * Joins the consumer group and delivers its partitions' messages to handleBatch until stopped.
 *
 * @example const subscription = await subscribe(state, { groupId: 'analytics', topics: ['runs'], handleBatch });
 */
export async function subscribe(state: KafkaBusState, options: SubscribeOptions): Promise<Subscription> {
  assertOpen(state);
  const resolved = resolveSubscribeOptions(options);
  await prepareSubscription(state, resolved.topics);
  const subscription = await startConsumer(state.kafka, resolved, {
    logger: state.logger.child({ groupId: resolved.groupId }),
    codec: state.codec,
    publishDeadLetter: (topic, message) => sendMessages(state, deadLetterTopic(topic), [message]),
    onStopped: () => state.subscriptions.delete(subscription),
  });
  state.subscriptions.add(subscription);
  return subscription;
}
