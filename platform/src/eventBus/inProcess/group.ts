/**
 * Consumer groups of the in-process bus: the offsets a group committed, which member owns which partition
 * (round robin, rebalanced one change at a time), and the worker that consumes one partition for its
 * owner through the shared delivery loop.
 */
import type { Logger } from '../../logging';
import {
  deliverBatch,
  settlesWithin,
  sleep,
  type PartitionDelivery,
  type PendingMessage,
  type ResolvedSubscribeOptions,
} from '../delivery';
import { deadLetterTopic, type OutgoingMessage } from '../types';
import type { PartitionLog, StoredMessage } from './partitionLog';
import { Permits } from './permits';

const partitionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/** One subscription: a member of its consumer group. */
export class Member {
  readonly permits: Permits;

  constructor(
    readonly options: ResolvedSubscribeOptions,
    readonly logger: Logger,
  ) {
    this.permits = new Permits(options.concurrentPartitions);
  }
}

/** What a partition worker needs from the bus. */
export interface Transport {
  log(topic: string, partition: number): PartitionLog;
  publishDeadLetter(topic: string, message: OutgoingMessage): Promise<void>;
  committed(group: Group, topic: string, partition: number): void;
}

/** Consumes one partition for one member, from the group's committed offset, until stopped. */
export class PartitionWorker {
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
export class Group {
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
