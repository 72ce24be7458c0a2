import type { DeadLetterRecord } from '@verdict/contracts';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../logging';
import {
  DLQ_HEADERS,
  EVENT_ID_HEADER,
  type EventBus,
  type IncomingMessage,
  type OutgoingMessage,
} from '../eventBus/types';
import type { DeadLetterFilter, DeadLetterStore } from './store';

/**
 * Dead letters made visible and recoverable, around any event bus (in-process or Kafka), so that both
 * modes behave the same:
 * - each dead letter is kept in the DeadLetterStore and counted in `verdict_dead_letters_total{topic,
 *   consumer}` (the bus itself has already logged it, once, with its event id and error);
 * - a replay publishes the letter to its topic again, addressed to the consumer that failed it: every other
 *   consumer group of the topic skips it, and that one handles it as a replay (a projector applies it even
 *   though its stream has moved on, at most once: projector.ts);
 * - once the consumer has handled it (replayed, or delivered again, as the embedded mode's relay does after
 *   a restart), the letter is marked replayed, and a later replay leaves it alone.
 */

/** Headers of a replayed message: the consumer it is for and the letter it replays. */
export const REPLAY_HEADERS = { consumer: 'x-verdict-replay-for', letter: 'x-verdict-replay-of' } as const;

/**
 * The event ids of the messages that are replays of dead letters (for Projector.applyEvents).
 *
 * @example const replays = replayedEventIds(messages); // applied even though their stream moved on
 */
export function replayedEventIds(messages: readonly IncomingMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    const eventId = message.headers[EVENT_ID_HEADER];
    if (message.headers[REPLAY_HEADERS.letter] !== undefined && eventId !== undefined) ids.add(eventId);
  }
  return ids;
}

const METRIC = 'verdict_dead_letters_total';

function deadLetterCounter(registry: Registry | undefined): Counter<'topic' | 'consumer'> | undefined {
  if (!registry) return undefined;
  return (
    (registry.getSingleMetric(METRIC) as Counter<'topic' | 'consumer'> | undefined) ??
    new Counter({
      name: METRIC,
      help: 'Messages a consumer group could not handle after its retries, sent to <topic>.dlq (since start)',
      labelNames: ['topic', 'consumer'] as const,
      registers: [registry],
    })
  );
}

/**
 * Wraps a bus so that its subscriptions keep, count and settle their dead letters (see the top of this file).
 *
 * @example const bus = withDeadLetters(createInProcessBus({ logger }), { store, logger, metrics });
 */
export function withDeadLetters(
  bus: EventBus,
  options: { store: DeadLetterStore; logger: Logger; metrics?: Registry },
): EventBus {
  const { store } = options;
  const logger = options.logger.child({ component: 'deadLetters' });
  const counter = deadLetterCounter(options.metrics);
  return {
    ensureTopics: (topics, ensureOptions) => bus.ensureTopics(topics, ensureOptions),
    publish: (topic, messages) => bus.publish(topic, messages),
    ping: () => bus.ping(),
    close: () => bus.close(),
    async subscribe(subscribeOptions) {
      const consumer = subscribeOptions.groupId;
      // Every series exists from the start at 0, so that an alert on its increase sees the first one.
      for (const topic of subscribeOptions.topics) counter?.inc({ topic, consumer }, 0);
      // The events of this consumer's open letters: a delivery of one of them that succeeds settles it.
      const open = new Set(await store.unreplayedEventIds(consumer));

      async function settle(messages: readonly IncomingMessage[]): Promise<void> {
        const ids: string[] = [];
        const eventIds: string[] = [];
        for (const message of messages) {
          const letter = message.headers[REPLAY_HEADERS.letter];
          const eventId = message.headers[EVENT_ID_HEADER];
          if (letter !== undefined) ids.push(letter);
          if (eventId !== undefined && open.has(eventId)) eventIds.push(eventId);
        }
        if (ids.length === 0 && eventIds.length === 0) return;
        try {
          await store.markReplayed(consumer, { ids, eventIds });
          for (const eventId of eventIds) open.delete(eventId);
        } catch (error) {
          // The work is done and committed; the letter stays "replaying", and a replay of it is a no-op.
          logger.warn(
            { err: error, consumer, letters: ids, eventIds },
            'could not mark dead letters replayed',
          );
        }
      }

      return bus.subscribe({
        ...subscribeOptions,
        async handleBatch(messages, context) {
          const mine = messages.filter((message) => {
            const target = message.headers[REPLAY_HEADERS.consumer];
            return target === undefined || target === consumer;
          });
          if (mine.length === 0) return;
          await subscribeOptions.handleBatch(mine, context);
          await settle(mine);
        },
        async onDeadLetter(notice) {
          const letter = await store.record(notice);
          if (letter.eventId !== null) open.add(letter.eventId);
          counter?.inc({ topic: notice.topic, consumer });
          await subscribeOptions.onDeadLetter?.(notice);
        },
      });
    },
  };
}

/** The letter as it is published again: its message, addressed to its consumer, without the x-dlq-* headers. */
function replayMessage(letter: DeadLetterRecord): OutgoingMessage {
  const kept = Object.fromEntries(
    Object.entries(letter.headers).filter(
      ([name]) => !(Object.values(DLQ_HEADERS) as string[]).includes(name),
    ),
  );
  return {
    key: letter.key,
    value: letter.value,
    headers: { ...kept, [REPLAY_HEADERS.consumer]: letter.consumer, [REPLAY_HEADERS.letter]: letter.id },
  };
}

/**
 * Sends the letters not replayed yet that match `filter` to their consumers again, oldest first, and returns
 * them as they stand afterwards. Replaying again is safe: a replayed letter is never sent again, one still
 * replaying is sent again (its first replay may have been lost with an embedded process), and its consumer
 * applies it once. A letter is marked replaying before it is sent, so its consumer's "replayed" comes after.
 *
 * @example const replayed = await replayDeadLetters({ store, bus }, { eventId });
 */
export async function replayDeadLetters(
  ports: { store: DeadLetterStore; bus: EventBus },
  filter: DeadLetterFilter = {},
): Promise<DeadLetterRecord[]> {
  const letters = await ports.store.unreplayed(filter);
  for (const letter of letters) {
    await ports.store.markReplaying([letter.id]);
    await ports.bus.publish(letter.topic, [replayMessage(letter)]);
  }
  return ports.store.find(letters.map((letter) => letter.id));
}
