/**
 * Subscribing to the in-process bus: a subscription is a member of its consumer group, which hands it
 * partitions; retention ('consumed') drops what every group subscribed to a topic has committed past.
 */
import { resolveSubscribeOptions } from '../delivery';
import { deadLetterTopic, type SubscribeOptions, type Subscription } from '../types';
import { Group, Member, type Transport } from './group';
import type { InProcessBusState } from './state';
import { assertOpen } from './state';
import { appendMessages, createMissing, topicNamed } from './topics';

/** Drops what every group subscribed to the topic has committed past. */
function trim(state: InProcessBusState, group: Group, topicName: string, partition: number): void {
  if (state.retention === 'all') return;
  let floor = group.committedOffset(topicName, partition) ?? 0;
  for (const other of state.groups.values()) {
    if (!other.topics.has(topicName)) continue;
    const committed = other.committedOffset(topicName, partition);
    if (committed === undefined) return;
    floor = Math.min(floor, committed);
  }
  topicNamed(state, topicName).partitions[partition]?.dropBefore(floor);
}

/** What the groups' partition workers need from the bus. */
function transportOf(state: InProcessBusState): Transport & { partitionsOf(topic: string): number } {
  return {
    log: (topic, partition) => {
      const log = topicNamed(state, topic).partitions[partition];
      if (!log) throw new Error(`Topic "${topic}" has no partition ${partition}`);
      return log;
    },
    // Dead letters bypass assertOpen: a batch settling during close() still records its poison message.
    publishDeadLetter: async (topic, message) => appendMessages(state, topic, [message]),
    committed: (group, topic, partition) => trim(state, group, topic, partition),
    partitionsOf: (topic) => topicNamed(state, topic).partitions.length,
  };
}

function groupNamed(state: InProcessBusState, id: string): Group {
  let group = state.groups.get(id);
  if (!group) {
    group = new Group(id, transportOf(state));
    state.groups.set(id, group);
  }
  return group;
}

/**
 * Joins the consumer group (ensuring the dead-letter topics) and delivers its partitions' messages to
 * handleBatch until stopped; refuses a topic nobody ensured.
 *
 * @example const subscription = await subscribe(state, { groupId: 'analytics', topics: ['runs'], handleBatch });
 */
export async function subscribe(state: InProcessBusState, options: SubscribeOptions): Promise<Subscription> {
  assertOpen(state);
  const resolved = resolveSubscribeOptions(options);
  resolved.topics.forEach((topic) => topicNamed(state, topic));
  createMissing(state, resolved.topics.map(deadLetterTopic), state.defaultPartitions);
  const member = new Member(resolved, state.logger.child({ groupId: resolved.groupId }));
  const group = groupNamed(state, resolved.groupId);
  await group.join(member);
  let stopped: Promise<void> | undefined;
  const subscription: Subscription = {
    stop() {
      stopped ??= group.leave(member).finally(() => state.subscriptions.delete(subscription));
      return stopped;
    },
  };
  state.subscriptions.add(subscription);
  return subscription;
}
