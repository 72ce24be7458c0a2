/** Topics of the in-process bus: created by ensureTopics only, written by publish, one log per partition. */
import { requirePositiveInteger } from '../delivery';
import type { OutgoingMessage } from '../types';
import { partitionForKey } from './partitioner';
import { PartitionLog } from './partitionLog';
import { assertOpen, type InProcessBusState, type Topic } from './state';

/** The topic of that name; an error naming ensureTopics when nobody created it. */
export function topicNamed(state: InProcessBusState, name: string): Topic {
  const topic = state.topics.get(name);
  if (!topic) throw new Error(`Topic "${name}" does not exist: call ensureTopics first`);
  return topic;
}

/** Creates the topics that are missing, with `partitions` partitions each. */
export function createMissing(state: InProcessBusState, names: string[], partitions: number): void {
  for (const name of names) {
    if (!name) throw new TypeError('ensureTopics: topic names must not be empty');
    if (state.topics.has(name)) continue;
    state.topics.set(name, {
      name,
      partitions: Array.from({ length: partitions }, () => new PartitionLog()),
    });
  }
}

/**
 * Appends the messages to their partitions' logs (by key), then wakes the consumers, whether or not the
 * bus is closing: a batch settling during close() still records its poison message.
 */
export function appendMessages(
  state: InProcessBusState,
  topicName: string,
  messages: OutgoingMessage[],
): void {
  const topic = topicNamed(state, topicName);
  const touched = new Set<PartitionLog>();
  for (const message of messages) {
    const log = topic.partitions[partitionForKey(message.key, topic.partitions.length)];
    if (!log) throw new Error(`No partition for key ${message.key}`);
    log.append(message);
    touched.add(log);
  }
  // Wake consumers only once the whole call is in the log, so they see it as one batch where possible.
  for (const log of touched) log.notify();
}

/**
 * Creates the topics that are missing (an existing topic keeps its partitions). Idempotent.
 *
 * @example await ensureTopics(state, ['test-results'], { partitions: 6 });
 */
export async function ensureTopics(
  state: InProcessBusState,
  names: string[],
  options?: { partitions?: number },
): Promise<void> {
  assertOpen(state);
  const partitions = options?.partitions ?? state.defaultPartitions;
  requirePositiveInteger('partitions', partitions);
  createMissing(state, names, partitions);
}

/**
 * Puts the messages on the topic's partitions; resolves once they are in this process's memory.
 *
 * @example await publish(state, 'test-results', [{ key: projectId, value: JSON.stringify(event) }]);
 */
export async function publish(
  state: InProcessBusState,
  topic: string,
  messages: OutgoingMessage[],
): Promise<void> {
  assertOpen(state);
  appendMessages(state, topic, messages);
}
