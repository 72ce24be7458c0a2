/**
 * Topics are never created implicitly (the producer and consumers refuse to): ensureTopics creates them,
 * subscribe refuses topics nobody ensured and creates their dead-letter topics, so a typo fails loudly
 * instead of creating a one-partition topic with broker defaults.
 */
import { ServiceUnavailableError } from '../../errors';
import { deadLetterTopic } from '../types';
import { assertOpen, type KafkaBusState } from './state';

async function createMissing(state: KafkaBusState, topics: string[], partitions: number): Promise<void> {
  try {
    await state.adminReady();
    const existing = new Set(await state.admin.listTopics());
    const missing = [...new Set(topics)].filter((topic) => !existing.has(topic));
    if (missing.length === 0) return;
    // Resolves false when another process created them first, which is just as good.
    await state.admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({ topic, numPartitions: partitions })),
    });
    state.logger.info({ topics: missing, partitions }, 'topics created');
  } catch (error) {
    // Processes starting together create the same topics: losing that race (TOPIC_ALREADY_EXISTS)
    // leaves the topics there all the same, once the metadata shows them.
    if ((await stillMissing(state, topics).catch(() => topics)).length === 0) return;
    throw new ServiceUnavailableError(`Could not ensure Kafka topics ${topics.join(', ')}`, error);
  }
}

async function missingTopics(state: KafkaBusState, topics: string[]): Promise<string[]> {
  try {
    await state.adminReady();
    const existing = new Set(await state.admin.listTopics());
    return topics.filter((topic) => !existing.has(topic));
  } catch (error) {
    throw new ServiceUnavailableError('Could not list Kafka topics', error);
  }
}

/**
 * The topics still missing after about three seconds: one created a moment ago, by this process or by
 * another one starting alongside (the services of a compose file start together), can be missing from
 * the metadata for a moment.
 */
async function stillMissing(state: KafkaBusState, topics: string[]): Promise<string[]> {
  let missing = await missingTopics(state, topics);
  for (let pause = 100; missing.length > 0 && pause <= 1_600; pause *= 2) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    missing = await missingTopics(state, missing);
  }
  return missing;
}

/**
 * Creates the topics that are missing (an existing topic keeps its partitions). Idempotent.
 *
 * @example await ensureTopics(state, ['test-results'], { partitions: 6 });
 */
export async function ensureTopics(
  state: KafkaBusState,
  topics: string[],
  options?: { partitions?: number },
): Promise<void> {
  assertOpen(state);
  await createMissing(state, topics, options?.partitions ?? state.defaultPartitions);
}

/**
 * Refuses topics nobody ensured (as the in-process bus does), then creates their dead-letter topics.
 *
 * @example await prepareSubscription(state, ['test-results']);
 */
export async function prepareSubscription(state: KafkaBusState, topics: string[]): Promise<void> {
  const missing = await stillMissing(state, topics);
  if (missing.length > 0)
    throw new Error(`Topic "${missing.join('", "')}" does not exist: call ensureTopics first`);
  await createMissing(state, topics.map(deadLetterTopic), state.defaultPartitions);
}
