/**
 * The embedded mode's event bus: Kafka's semantics kept in memory. Each topic has partitions, a key always
 * lands on the same partition (Kafka's own murmur2 hash, so partition numbers match a Kafka cluster with
 * the same partition count), each partition is an append-only log, and consumer groups share partitions
 * among their members and commit offsets. The delivery loop (delivery.ts: redelivery with backoff,
 * per-message isolation, dead letters) is also what the Kafka adapter runs. Each operation is a
 * module-level function over a small state (inProcess/state.ts); this file assembles them.
 *
 * Not durable: publish() resolves once the message is in this process's memory, and whatever a group has
 * not committed is lost with the process. Publishers must be able to publish again after a restart (the
 * outbox relay re-reads the event store from its checkpoint).
 */
import { closeBus, inProcessBusState, ping, type InProcessBusOptions } from './inProcess/state';
import { subscribe } from './inProcess/subscribe';
import { ensureTopics, publish } from './inProcess/topics';
import type { EventBus } from './types';

export { murmur2, partitionForKey } from './inProcess/partitioner';
export type { InProcessBusOptions } from './inProcess/state';

/**
 * The in-process event bus of the embedded mode, with Kafka's semantics (see the top of this file).
 *
 * @example const bus = createInProcessBus({ logger }); await bus.ensureTopics(['test-results']);
 */
export function createInProcessBus(options: InProcessBusOptions = {}): EventBus {
  const state = inProcessBusState(options);
  return {
    ensureTopics: (names, ensureOptions) => ensureTopics(state, names, ensureOptions),
    publish: (topic, messages) => publish(state, topic, messages),
    subscribe: (subscribeOptions) => subscribe(state, subscribeOptions),
    ping: () => ping(state),
    close: () => closeBus(state),
  };
}
