/**
 * The embedded mode's event bus: Kafka's semantics kept in memory. Each topic has partitions, a key always
 * lands on the same partition (Kafka's own murmur2 hash, so partition numbers match a Kafka cluster with
 * the same partition count), each partition is an append-only log, and consumer groups share partitions
 * among their members and commit offsets. The delivery loop (delivery.ts: redelivery with backoff,
 * per-message isolation, dead letters) is also what the Kafka adapter runs.
 *
 * Not durable: publish() resolves once the message is in this process's memory, and whatever a group has
 * not committed is lost with the process. Publishers must be able to publish again after a restart (the
 * outbox relay re-reads the event store from its checkpoint).
 */
import { ServiceUnavailableError } from '../errors';
import { silentLogger, type Logger } from '../logging';
import { deadLetterTopic, type EventBus, type OutgoingMessage, type Subscription } from './types';
import {
  deliverBatch,
  requirePositiveInteger,
  resolveSubscribeOptions,
  settlesWithin,
  sleep,
  type PartitionDelivery,
  type PendingMessage,
  type ResolvedSubscribeOptions,
} from './delivery';

const DEFAULT_PARTITIONS = 3;

// Key → partition: Kafka's default partitioner, so partition numbers match a Kafka cluster.
export function murmur2(data: Buffer): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const tail = length & ~3;
  for (let i = 0; i < tail; i += 4) {
    let k = data.readInt32LE(i);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const rest = length % 4;
  if (rest === 3) h ^= data.readUInt8(tail + 2) << 16;
  if (rest >= 2) h ^= data.readUInt8(tail + 1) << 8;
  if (rest >= 1) h = Math.imul(h ^ data.readUInt8(tail), m);
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h;
}

/**
 * The partition of a key, as Kafka's default partitioner computes it.
 *
 * @example partitionForKey('project-42', 3) // always the same number in [0, 3)
 */
export function partitionForKey(key: string, partitions: number): number {
  return (murmur2(Buffer.from(key, 'utf8')) & 0x7fffffff) % partitions;
}

/** A message read from a partition, before the bus numbers its delivery. */

export interface InProcessBusOptions {
  logger?: Logger;
  /** Partitions of a topic created without an explicit count (default 3, as on Kafka). */
  defaultPartitions?: number;
  /**
   * 'consumed' (default) drops a message once every consumer group that ever subscribed to its topic has
   * committed past it, so a long-running process keeps only what some group still has to read. A group
   * that subscribes later with fromBeginning starts at the oldest message still kept, as a Kafka group
   * does after retention. A topic no group has subscribed to keeps everything. 'all' never drops.
   */
  retention?: 'consumed' | 'all';
}

interface StoredMessage {
  offset: number;
  key: string;
  value: string;
  headers: Record<string, string>;
}

/** Compact the dropped prefix of a log once it is this long and at least half of the array. */
const COMPACT_AFTER = 1_024;

class PartitionLog {
  private entries: StoredMessage[] = [];
  /** Offset of entries[0]. */
  private base = 0;
  /** Index of the oldest message still kept; the ones before it are dropped, awaiting compaction. */
  private head = 0;
  private readonly waiters = new Set<() => void>();

  get startOffset(): number {
    return this.base + this.head;
  }

  get endOffset(): number {
    return this.base + this.entries.length;
  }

  append(message: OutgoingMessage): void {
    this.entries.push({
      offset: this.endOffset,
      key: message.key,
      value: message.value,
      headers: { ...message.headers },
    });
  }

  /** Wakes every consumer waiting for new messages. */
  notify(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  read(from: number, max: number): StoredMessage[] {
    const start = Math.max(from, this.startOffset) - this.base;
    return this.entries.slice(start, start + max);
  }

  /** Resolves when a message at `offset` or later exists, or when the signal aborts. */
  waitForMessage(offset: number, signal: AbortSignal): Promise<void> {
    if (this.endOffset > offset || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        this.waiters.delete(wake);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      this.waiters.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }

  dropBefore(offset: number): void {
    const index = Math.min(offset, this.endOffset) - this.base;
    if (index <= this.head) return;
    this.head = index;
    if (this.head >= COMPACT_AFTER && this.head * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.base += this.head;
      this.head = 0;
    }
  }
}

interface Topic {
  name: string;
  partitions: PartitionLog[];
}

const partitionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/** Hands out at most `size` permits; a waiter whose signal aborts leaves the queue empty-handed. */
class Permits {
  private free: number;
  private readonly queue: Array<(release: () => void) => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  acquire(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const grant = (release: () => void): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(release);
      };
      const onAbort = (): void => {
        this.queue.splice(this.queue.indexOf(grant), 1);
        resolve(undefined);
      };
      this.queue.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next(this.releaser());
      else this.free += 1;
    };
  }
}

/** One subscription: a member of its consumer group. */
class Member {
  readonly permits: Permits;

  constructor(
    readonly options: ResolvedSubscribeOptions,
    readonly logger: Logger,
  ) {
    this.permits = new Permits(options.concurrentPartitions);
  }
}

/** What a partition worker needs from the bus. */
interface Transport {
  log(topic: string, partition: number): PartitionLog;
  publishDeadLetter(topic: string, message: OutgoingMessage): Promise<void>;
  committed(group: Group, topic: string, partition: number): void;
}

/** Consumes one partition for one member, from the group's committed offset, until stopped. */
class PartitionWorker {
  private readonly stopping = new AbortController();
  private readonly abandoning = new AbortController();
  private readonly done: Promise<void>;

  constructor(
    readonly member: Member,
    private readonly group: Group,
    private readonly topic: string,
    private readonly partition: number,
    private readonly transport: Transport,
  ) {
    this.done = this.run();
  }

  /** Lets the batch in flight finish for up to stopTimeoutMs, then abandons it uncommitted. */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (await settlesWithin(this.done, this.member.options.stopTimeoutMs)) return;
    this.member.logger.warn(
      { groupId: this.group.id, topic: this.topic, partition: this.partition },
      'batch still in flight after stopTimeoutMs: abandoning it uncommitted',
    );
    this.abandoning.abort();
    await this.done;
  }

  private async run(): Promise<void> {
    const log = this.transport.log(this.topic, this.partition);
    const delivery = this.delivery();
    let position = this.group.startingOffset(
      this.topic,
      this.partition,
      log,
      this.member.options.fromBeginning,
    );
    try {
      while (!this.stopping.signal.aborted) {
        const stored = log.read(position, this.member.options.maxBatchSize);
        const last = stored.at(-1);
        if (!last) {
          await log.waitForMessage(position, this.stopping.signal);
          continue;
        }
        const release = await this.member.permits.acquire(this.stopping.signal);
        if (!release) return;
        try {
          const messages = stored.map((message) => this.pending(message));
          if ((await deliverBatch(messages, delivery)) === 'abandoned') return;
        } finally {
          release();
        }
        position = last.offset + 1;
      }
    } catch (error) {
      // Nothing above should throw; if it does, the partition stalls for this member, so say so loudly.
      this.member.logger.error(
        { err: error, groupId: this.group.id, topic: this.topic, partition: this.partition },
        'partition consumer failed',
      );
    }
  }

  private pending(message: StoredMessage): PendingMessage {
    return {
      topic: this.topic,
      partition: this.partition,
      offset: String(message.offset),
      key: message.key,
      value: message.value,
      headers: { ...message.headers },
    };
  }

  private delivery(): PartitionDelivery {
    const { options, logger } = this.member;
    return {
      groupId: this.group.id,
      topic: this.topic,
      partition: this.partition,
      options,
      logger,
      abandon: this.abandoning.signal,
      isActive: () => !this.stopping.signal.aborted,
      wait: (ms) => sleep(ms, this.stopping.signal),
      handle: (messages, context) => options.handleBatch(messages, context),
      commit: async (nextOffset) => {
        this.group.commit(this.topic, this.partition, Number(nextOffset));
        this.transport.committed(this.group, this.topic, this.partition);
      },
      publishDeadLetter: (message) => this.transport.publishDeadLetter(deadLetterTopic(this.topic), message),
    };
  }
}

/** A consumer group: committed offsets that outlive its members, and who owns which partition. */
class Group {
  private readonly offsets = new Map<string, number>();
  /** Every topic a member ever subscribed to: they pin retention until the group has read them. */
  readonly topics = new Set<string>();
  private members: Member[] = [];
  private readonly owners = new Map<string, PartitionWorker>();
  private rebalancing: Promise<void> = Promise.resolve();

  constructor(
    readonly id: string,
    private readonly transport: Transport & { partitionsOf(topic: string): number },
  ) {}

  committedOffset(topic: string, partition: number): number | undefined {
    return this.offsets.get(partitionKey(topic, partition));
  }

  /**
   * Where a new owner starts. A partition the group never read starts at the beginning or the end of the
   * log, and that position is committed at once (kafkajs does the same), so later owners do not skip ahead.
   */
  startingOffset(topic: string, partition: number, log: PartitionLog, fromBeginning: boolean): number {
    const committed = this.committedOffset(topic, partition);
    if (committed !== undefined) return committed;
    const initial = fromBeginning ? log.startOffset : log.endOffset;
    this.offsets.set(partitionKey(topic, partition), initial);
    return initial;
  }

  commit(topic: string, partition: number, nextOffset: number): void {
    this.offsets.set(partitionKey(topic, partition), nextOffset);
  }

  join(member: Member): Promise<void> {
    for (const topic of member.options.topics) this.topics.add(topic);
    this.members.push(member);
    return this.rebalance();
  }

  leave(member: Member): Promise<void> {
    this.members = this.members.filter((candidate) => candidate !== member);
    return this.rebalance();
  }

  /** Rebalances one at a time, so a join and a leave never hand out the same partition twice. */
  private rebalance(): Promise<void> {
    // A failed rebalance must not block the next one; reassign() recomputes everything anyway.
    this.rebalancing = this.rebalancing.catch(() => undefined).then(() => this.reassign());
    return this.rebalancing;
  }

  /**
   * Revoked partitions are handed over only once their old owner has finished (or abandoned) its batch,
   * so no two members ever handle the same partition at the same time.
   */
  private async reassign(): Promise<void> {
    const desired = this.assignment();
    const revoked = [...this.owners].filter(([key, worker]) => desired.get(key)?.member !== worker.member);
    await Promise.all(
      revoked.map(async ([key, worker]) => {
        await worker.stop();
        this.owners.delete(key);
      }),
    );
    for (const [key, { member, topic, partition }] of desired) {
      if (!this.owners.has(key)) {
        this.owners.set(key, new PartitionWorker(member, this, topic, partition, this.transport));
      }
    }
  }

  /** Round robin per topic over the members subscribed to it, in the order they joined. */
  private assignment(): Map<string, { member: Member; topic: string; partition: number }> {
    const result = new Map<string, { member: Member; topic: string; partition: number }>();
    for (const topic of this.topics) {
      const subscribers = this.members.filter((member) => member.options.topics.includes(topic));
      if (subscribers.length === 0) continue;
      const partitions = this.transport.partitionsOf(topic);
      for (let partition = 0; partition < partitions; partition += 1) {
        const member = subscribers[partition % subscribers.length];
        if (member) result.set(partitionKey(topic, partition), { member, topic, partition });
      }
    }
    return result;
  }
}

/**
 * The in-process event bus of the embedded mode, with Kafka's semantics (see the top of this file).
 *
 * @example const bus = createInProcessBus({ logger }); await bus.ensureTopics(['test-results']);
 */
export function createInProcessBus(options: InProcessBusOptions = {}): EventBus {
  const logger = (options.logger ?? silentLogger()).child({ component: 'eventBus', adapter: 'in-process' });
  const defaultPartitions = options.defaultPartitions ?? DEFAULT_PARTITIONS;
  const retention = options.retention ?? 'consumed';
  requirePositiveInteger('defaultPartitions', defaultPartitions);
  const topics = new Map<string, Topic>();
  const groups = new Map<string, Group>();
  const subscriptions = new Set<Subscription>();
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new ServiceUnavailableError('The event bus is closed');
  }

  function topicNamed(name: string): Topic {
    const topic = topics.get(name);
    if (!topic) throw new Error(`Topic "${name}" does not exist: call ensureTopics first`);
    return topic;
  }

  function append(topicName: string, messages: OutgoingMessage[]): void {
    const topic = topicNamed(topicName);
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

  /** Drops what every group subscribed to the topic has committed past. */
  function trim(group: Group, topicName: string, partition: number): void {
    if (retention === 'all') return;
    let floor = group.committedOffset(topicName, partition) ?? 0;
    for (const other of groups.values()) {
      if (!other.topics.has(topicName)) continue;
      const committed = other.committedOffset(topicName, partition);
      if (committed === undefined) return;
      floor = Math.min(floor, committed);
    }
    topicNamed(topicName).partitions[partition]?.dropBefore(floor);
  }

  const transport: Transport & { partitionsOf(topic: string): number } = {
    log: (topic, partition) => {
      const log = topicNamed(topic).partitions[partition];
      if (!log) throw new Error(`Topic "${topic}" has no partition ${partition}`);
      return log;
    },
    // Dead letters bypass assertOpen: a batch settling during close() still records its poison message.
    publishDeadLetter: async (topic, message) => append(topic, [message]),
    committed: trim,
    partitionsOf: (topic) => topicNamed(topic).partitions.length,
  };

  function ensure(names: string[], partitions: number): void {
    for (const name of names) {
      if (!name) throw new TypeError('ensureTopics: topic names must not be empty');
      if (topics.has(name)) continue;
      topics.set(name, { name, partitions: Array.from({ length: partitions }, () => new PartitionLog()) });
    }
  }

  function groupNamed(id: string): Group {
    let group = groups.get(id);
    if (!group) {
      group = new Group(id, transport);
      groups.set(id, group);
    }
    return group;
  }

  return {
    async ensureTopics(names, ensureOptions) {
      assertOpen();
      const partitions = ensureOptions?.partitions ?? defaultPartitions;
      requirePositiveInteger('partitions', partitions);
      ensure(names, partitions);
    },

    async publish(topic, messages) {
      assertOpen();
      append(topic, messages);
    },

    async subscribe(subscribeOptions) {
      assertOpen();
      const resolved = resolveSubscribeOptions(subscribeOptions);
      resolved.topics.forEach(topicNamed);
      ensure(resolved.topics.map(deadLetterTopic), defaultPartitions);
      const member = new Member(resolved, logger.child({ groupId: resolved.groupId }));
      const group = groupNamed(resolved.groupId);
      await group.join(member);
      let stopped: Promise<void> | undefined;
      const subscription: Subscription = {
        stop() {
          stopped ??= group.leave(member).finally(() => subscriptions.delete(subscription));
          return stopped;
        },
      };
      subscriptions.add(subscription);
      return subscription;
    },

    async ping() {
      assertOpen();
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
    },
  };
}
