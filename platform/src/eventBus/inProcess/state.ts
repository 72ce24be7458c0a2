/**
 * What every operation of the in-process bus works on: its topics (partition logs in memory), its consumer
 * groups, the subscriptions still running and whether the bus is closed. The operations are module-level
 * functions over this state; createInProcessBus only assembles them.
 */
import { ServiceUnavailableError } from '../../errors';
import { silentLogger, type Logger } from '../../logging';
import { requirePositiveInteger } from '../delivery';
import type { Subscription } from '../types';
import type { Group } from './group';
import type { PartitionLog } from './partitionLog';

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

export interface Topic {
  name: string;
  partitions: PartitionLog[];
}

export interface InProcessBusState {
  logger: Logger;
  defaultPartitions: number;
  retention: 'consumed' | 'all';
  topics: Map<string, Topic>;
  groups: Map<string, Group>;
  subscriptions: Set<Subscription>;
  closed: boolean;
}

const DEFAULT_PARTITIONS = 3;

/**
 * The state of an empty in-process bus; refuses a partition count that is not a positive integer.
 *
 * @example const state = inProcessBusState({ logger, retention: 'all' });
 */
export function inProcessBusState(options: InProcessBusOptions): InProcessBusState {
  const defaultPartitions = options.defaultPartitions ?? DEFAULT_PARTITIONS;
  requirePositiveInteger('defaultPartitions', defaultPartitions);
  return {
    logger: (options.logger ?? silentLogger()).child({ component: 'eventBus', adapter: 'in-process' }),
    defaultPartitions,
    retention: options.retention ?? 'consumed',
    topics: new Map(),
    groups: new Map(),
    subscriptions: new Set(),
    closed: false,
  };
}

/** Refuses any operation but close() once the bus is closed. */
export function assertOpen(state: InProcessBusState): void {
  if (state.closed) throw new ServiceUnavailableError('The event bus is closed');
}

/**
 * Resolves while the bus is open: memory is always reachable.
 *
 * @example await ping(state);
 */
export async function ping(state: InProcessBusState): Promise<void> {
  assertOpen(state);
}

/**
 * Stops every subscription (each finishes or abandons its batch in flight). Idempotent.
 *
 * @example await closeBus(state);
 */
export async function closeBus(state: InProcessBusState): Promise<void> {
  if (state.closed) return;
  state.closed = true;
  await Promise.all([...state.subscriptions].map((subscription) => subscription.stop()));
}
