import { requireServer, uniqueName } from '../testing';
import { createInProcessBus, partitionForKey } from './inProcess';
import { createKafkaBus } from './kafka';
import {
  DLQ_HEADERS,
  deadLetterTopic,
  type EventBus,
  type IncomingMessage,
  type OutgoingMessage,
  type SubscribeOptions,
  type Subscription,
} from './types';

// A Kafka group join takes seconds; the int project's testTimeout in jest.config.js is not applied per project.
jest.setTimeout(120_000);

// One contract, every adapter: the embedded mode and the distributed mode must behave the same.
const adapters: Array<[string, () => EventBus]> = [
  ['in-process', () => createInProcessBus()],
  [
    'kafka',
    () =>
      createKafkaBus({
        brokers: requireServer('KAFKA_BROKERS').split(','),
        clientId: uniqueName('eventbus-test'),
      }),
  ],
];

const PARTITIONS = 3;
const quick = { maxAttempts: 3, backoff: { initialMs: 10, maxMs: 50 } } satisfies Partial<SubscribeOptions>;

/** Collects delivered messages; until() resolves once they satisfy a condition (jest's timeout bounds it). */
class Inbox {
  readonly messages: IncomingMessage[] = [];
  readonly batches: IncomingMessage[][] = [];
  private readonly waiters: Array<{ done: (messages: IncomingMessage[]) => boolean; resolve: () => void }> =
    [];

  add(batch: IncomingMessage[]): void {
    this.batches.push(batch);
    this.messages.push(...batch);
    for (const waiter of [...this.waiters]) {
      if (waiter.done(this.messages)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  until(done: (messages: IncomingMessage[]) => boolean): Promise<void> {
    if (done(this.messages)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ done, resolve }));
  }

  untilCount(count: number): Promise<void> {
    return this.until((messages) => messages.length >= count);
  }
}

const values = (messages: IncomingMessage[]): string[] => messages.map((message) => message.value).sort();

describe.each(adapters)('EventBus contract: %s', (_adapter, createBus) => {
  let bus: EventBus;
  const subscriptions: Subscription[] = [];

  beforeEach(() => {
    bus = createBus();
  });

  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((subscription) => subscription.stop()));
    await bus.close();
  });

  async function freshTopic(): Promise<string> {
    const topic = uniqueName('topic');
    await bus.ensureTopics([topic], { partitions: PARTITIONS });
    return topic;
  }

  async function subscribe(
    options: Partial<SubscribeOptions> & Pick<SubscribeOptions, 'topics'>,
    inbox: Inbox,
  ): Promise<Subscription> {
    const subscription = await bus.subscribe({
      groupId: uniqueName('group'),
      handleBatch: async (messages) => inbox.add(messages),
      ...quick,
      ...options,
    });
    subscriptions.push(subscription);
    return subscription;
  }

  /**
   * Everything dead-lettered from `topic` for these keys so far. A marker per key goes to the dead-letter
   * topic after the fact; a dead letter with the same key sits on the same partition before its marker,
   * so once every marker has arrived, every earlier dead letter has too.
   */
  async function deadLettersOf(topic: string, keys: string[]): Promise<IncomingMessage[]> {
    const marker = 'x-test-marker';
    const inbox = new Inbox();
    const subscription = await subscribe({ topics: [deadLetterTopic(topic)], fromBeginning: true }, inbox);
    await bus.publish(
      deadLetterTopic(topic),
      keys.map((key) => ({ key, value: 'marker', headers: { [marker]: 'yes' } })),
    );
    await inbox.until(
      (messages) => messages.filter((message) => message.headers[marker]).length >= keys.length,
    );
    await subscription.stop();
    return inbox.messages.filter((message) => !message.headers[marker]);
  }

  it('when messages are published, then a subscriber gets each with its key, value, headers and partition', async () => {
    const topic = await freshTopic();
    const sent: OutgoingMessage[] = [
      { key: 'run-1', value: '{"n":1}', headers: { 'x-event-id': 'e1', 'x-type': 'RunStarted' } },
      { key: 'run-2', value: '{"n":2}', headers: { 'x-event-id': 'e2' } },
      { key: 'run-1', value: '{"n":3}' },
    ];
    await bus.publish(topic, sent);

    const inbox = new Inbox();
    await subscribe({ topics: [topic] }, inbox);
    await inbox.untilCount(sent.length);

    const received = [...inbox.messages].sort((a, b) => a.value.localeCompare(b.value));
    expect(received).toEqual(
      sent.map((message) =>
        expect.objectContaining({
          topic,
          key: message.key,
          value: message.value,
          headers: message.headers ?? {},
          partition: partitionForKey(message.key, PARTITIONS),
          attempt: 1,
        }),
      ),
    );
  });

  it('when 10 keys × 200 messages are interleaved, then each key’s messages arrive in order, in per-partition batches', async () => {
    const topic = await freshTopic();
    const keys = Array.from({ length: 10 }, (_, index) => `key-${index}`);
    const inbox = new Inbox();
    await subscribe({ topics: [topic], maxBatchSize: 64 }, inbox);

    const messages = Array.from({ length: 2_000 }, (_, index) => ({
      key: keys[index % keys.length] ?? '',
      value: String(Math.floor(index / keys.length)),
    }));
    for (let start = 0; start < messages.length; start += 100) {
      await bus.publish(topic, messages.slice(start, start + 100));
    }
    await inbox.untilCount(messages.length);

    const expected = Array.from({ length: 200 }, (_, index) => String(index));
    for (const key of keys) {
      expect(inbox.messages.filter((message) => message.key === key).map((message) => message.value)).toEqual(
        expected,
      );
    }
    for (const batch of inbox.batches) {
      expect(batch.length).toBeLessThanOrEqual(64);
      expect(new Set(batch.map((message) => message.partition)).size).toBe(1);
    }
  });

  it('when 3,000 events of 1.5 KB wait under one key and a subscriber takes up to 1,000 at a time, then it gets full batches of 1,000', async () => {
    const topic = await freshTopic();
    const value = 'x'.repeat(1_500);
    const messages = Array.from({ length: 3_000 }, (_, index) => ({
      key: 'run-1',
      value: `${index}:${value}`,
    }));
    for (let start = 0; start < messages.length; start += 500) {
      await bus.publish(topic, messages.slice(start, start + 500));
    }
    const inbox = new Inbox();
    await subscribe({ topics: [topic], fromBeginning: true, maxBatchSize: 1_000 }, inbox);
    await inbox.untilCount(messages.length);
    // A fetch of kafkajs's default 1 MB a partition held about 650 of these, so no batch reached 1,000.
    expect(inbox.batches.filter((batch) => batch.length === 1_000).length).toBeGreaterThanOrEqual(2);
  });

  it('when two members share a group, then every message is handled once in total, each partition by one member', async () => {
    const topic = await freshTopic();
    const groupId = uniqueName('group');
    const all = new Inbox();
    const byMember: IncomingMessage[][] = [[], []];
    for (const handled of byMember) {
      await subscribe(
        {
          topics: [topic],
          groupId,
          handleBatch: async (messages) => {
            handled.push(...messages);
            all.add(messages);
          },
        },
        all,
      );
    }

    const sent = Array.from({ length: 300 }, (_, index) => ({
      key: `key-${index % 30}`,
      value: String(index),
    }));
    await bus.publish(topic, sent);
    await all.untilCount(sent.length);

    expect(values(all.messages)).toEqual(sent.map((message) => message.value).sort());
    const [first = [], second = []] = byMember;
    expect(first.length).toBeGreaterThan(0);
    expect(second.length).toBeGreaterThan(0);
    const partitionsOf = (messages: IncomingMessage[]): Set<number> =>
      new Set(messages.map((message) => message.partition));
    const shared = [...partitionsOf(first)].filter((partition) => partitionsOf(second).has(partition));
    expect(shared).toEqual([]);
  });

  it('when two groups subscribe, then each group gets every message', async () => {
    const topic = await freshTopic();
    const first = new Inbox();
    const second = new Inbox();
    await subscribe({ topics: [topic] }, first);
    await subscribe({ topics: [topic] }, second);

    const sent = Array.from({ length: 100 }, (_, index) => ({
      key: `key-${index % 7}`,
      value: String(index),
    }));
    await bus.publish(topic, sent);
    await Promise.all([first.untilCount(sent.length), second.untilCount(sent.length)]);

    const expected = sent.map((message) => message.value).sort();
    expect(values(first.messages)).toEqual(expected);
    expect(values(second.messages)).toEqual(expected);
  });

  it('when a handler throws on the first 2 deliveries of a batch, then it gets the batch a 3rd time and nothing is dead-lettered', async () => {
    const topic = await freshTopic();
    const sent = Array.from({ length: 20 }, (_, index) => ({
      key: `key-${index % 2}`,
      value: String(index),
    }));
    await bus.publish(topic, sent);

    const attemptsByBatch = new Map<string, number[]>();
    const handled = new Inbox();
    await bus
      .subscribe({
        groupId: uniqueName('group'),
        topics: [topic],
        ...quick,
        handleBatch: async (messages) => {
          const first = messages[0];
          if (!first) return;
          const batchId = `${first.partition}:${first.offset}`;
          attemptsByBatch.set(batchId, [...(attemptsByBatch.get(batchId) ?? []), first.attempt]);
          if (first.attempt < 3) throw new Error(`refusing attempt ${first.attempt}`);
          handled.add(messages);
        },
      })
      .then((subscription) => subscriptions.push(subscription));
    await handled.untilCount(sent.length);

    expect(values(handled.messages)).toEqual(sent.map((message) => message.value).sort());
    expect(handled.messages.every((message) => message.attempt === 3)).toBe(true);
    expect([...attemptsByBatch.values()].every((attempts) => attempts.join() === '1,2,3')).toBe(true);
    expect(await deadLettersOf(topic, ['key-0', 'key-1'])).toEqual([]);
  });

  it('when a member is stopped while its handler is still in flight, then a new member of the group gets those messages again', async () => {
    const topic = await freshTopic();
    const groupId = uniqueName('group');
    const sent = Array.from({ length: 5 }, (_, index) => ({ key: 'run-1', value: String(index) }));
    await bus.publish(topic, sent);

    const inFlight = new Inbox();
    let signal: AbortSignal | undefined;
    const crashed = await bus.subscribe({
      groupId,
      topics: [topic],
      ...quick,
      stopTimeoutMs: 100,
      handleBatch: (messages, context) => {
        signal = context.signal;
        inFlight.add(messages);
        return new Promise<void>(() => undefined);
      },
    });
    await inFlight.untilCount(1);
    await crashed.stop();
    expect(signal?.aborted).toBe(true);

    const survivor = new Inbox();
    await subscribe({ topics: [topic], groupId }, survivor);
    await survivor.untilCount(sent.length);

    expect(values(survivor.messages)).toEqual(sent.map((message) => message.value).sort());
    const redelivered = new Set(survivor.messages.map((message) => message.offset));
    expect(inFlight.messages.every((message) => redelivered.has(message.offset))).toBe(true);
  });

  it('when a member stops after handling its messages, then the next member of the group resumes after them', async () => {
    const topic = await freshTopic();
    const groupId = uniqueName('group');
    const batch = (from: number): OutgoingMessage[] =>
      Array.from({ length: 5 }, (_, index) => ({ key: 'run-1', value: String(from + index) }));
    await bus.publish(topic, batch(0));
    const before = new Inbox();
    const first = await subscribe({ topics: [topic], groupId }, before);
    await before.untilCount(5);
    await first.stop();

    await bus.publish(topic, batch(5));
    const after = new Inbox();
    await subscribe({ topics: [topic], groupId }, after);
    // One key, one partition: a redelivered old message would arrive before the last new one.
    await after.until((messages) => messages.some((message) => message.value === '9'));

    expect(after.messages.map((message) => message.value)).toEqual(['5', '6', '7', '8', '9']);
  });

  it('when a message always fails, then it lands in <topic>.dlq with the error and the messages after it still arrive', async () => {
    const topic = await freshTopic();
    const sent = Array.from({ length: 10 }, (_, index) => ({
      key: 'run-1',
      value: String(index),
      headers: { 'x-event-id': `e${index}` },
    }));
    await bus.publish(topic, sent);

    const groupId = uniqueName('group');
    const handled = new Inbox();
    await subscribe(
      {
        topics: [topic],
        groupId,
        handleBatch: async (messages) => {
          if (messages.some((message) => message.value === '3')) throw new Error('cannot project event e3');
          handled.add(messages);
        },
      },
      handled,
    );
    await handled.until((messages) => messages.some((message) => message.value === '9'));

    expect(values(handled.messages)).toEqual(['0', '1', '2', '4', '5', '6', '7', '8', '9']);
    const deadLetters = await deadLettersOf(topic, ['run-1']);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({
      key: 'run-1',
      value: '3',
      headers: {
        'x-event-id': 'e3',
        [DLQ_HEADERS.error]: 'Error: cannot project event e3',
        [DLQ_HEADERS.originalTopic]: topic,
        [DLQ_HEADERS.originalPartition]: String(partitionForKey('run-1', PARTITIONS)),
        [DLQ_HEADERS.groupId]: groupId,
      },
    });
    const poison = sent.findIndex((message) => message.value === '3');
    expect(deadLetters[0]?.headers[DLQ_HEADERS.originalOffset]).toBe(String(poison));
    expect(Number(deadLetters[0]?.headers[DLQ_HEADERS.attempts])).toBeGreaterThanOrEqual(quick.maxAttempts);
  });

  it('when the bus is up, then ping resolves; once closed, it refuses work', async () => {
    await expect(bus.ping()).resolves.toBeUndefined();
    const topic = await freshTopic();
    await subscribe({ topics: [topic] }, new Inbox());

    await bus.close();

    await expect(bus.ping()).rejects.toThrow(/closed/);
    await expect(bus.publish(topic, [{ key: 'k', value: 'v' }])).rejects.toThrow(/closed/);
  });
});
