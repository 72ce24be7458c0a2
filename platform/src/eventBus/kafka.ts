/**
 * The distributed mode's event bus over Apache Kafka (kafkajs). Only this entry point
 * (`@verdict/platform/kafka`) and the files of kafka/ import kafkajs, so the embedded process never loads
 * it. Each operation is a module-level function over a small state (kafka/state.ts); this file assembles
 * them into the EventBus port.
 *
 * Invariants: an offset is committed only after handleBatch resolved for every message before it
 * (autoCommit off, explicit commits); per-key order survives producer retries (idempotent producer, one
 * request in flight); topics are never created implicitly (ensureTopics, or subscribe for dead-letter
 * topics), so a typo fails loudly instead of creating a one-partition topic with broker defaults.
 */
import { publish } from './kafka/publish';
import { closeBus, kafkaBusState, ping, type KafkaBusOptions } from './kafka/state';
import { subscribe } from './kafka/subscribe';
import { ensureTopics } from './kafka/topics';
import type { EventBus } from './types';

export type { KafkaBusOptions } from './kafka/state';
export { Membership } from './kafka/membership';

/**
 * The Kafka event bus. Connects lazily: creating it does no I/O, the first call connects.
 *
 * @example const bus = createKafkaBus({ brokers: ['127.0.0.1:19092'], clientId: 'analytics', logger });
 */
export function createKafkaBus(options: KafkaBusOptions): EventBus {
  const state = kafkaBusState(options);
  return {
    ensureTopics: (topics, ensureOptions) => ensureTopics(state, topics, ensureOptions),
    publish: (topic, messages) => publish(state, topic, messages),
    subscribe: (subscribeOptions) => subscribe(state, subscribeOptions),
    ping: () => ping(state),
    close: () => closeBus(state),
  };
}
