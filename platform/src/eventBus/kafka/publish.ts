/**
 * Publishing: messages are encoded first (a message its contract refuses is that error, not an unreachable
 * Kafka), then sent in requests of at most maxRequestBytes, one at a time, so the idempotent producer keeps
 * the order of the whole call per key.
 */
import { ServiceUnavailableError } from '../../errors';
import type { MessageCodec } from '../codec';
import type { OutgoingMessage } from '../types';
import { assertOpen, type KafkaBusState } from './state';

/** Rough bytes a record adds to its key, value and headers in a record batch. */
const RECORD_OVERHEAD_BYTES = 64;

/** A message as it goes to Kafka: its value is text, or the codec's bytes. */
type WireMessage = Omit<OutgoingMessage, 'value'> & { value: string | Buffer };

function toKafkaMessage(message: WireMessage): WireMessage {
  return { key: message.key, value: message.value, headers: message.headers };
}

function messageBytes(message: WireMessage): number {
  let bytes = RECORD_OVERHEAD_BYTES + Buffer.byteLength(message.key) + Buffer.byteLength(message.value);
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
  }
  return bytes;
}

/** Consecutive slices of at most `maxBytes` each (a bigger message goes alone; the broker judges it). */
function chunkByBytes(messages: WireMessage[], maxBytes: number): WireMessage[][] {
  const chunks: WireMessage[][] = [];
  let current: WireMessage[] = [];
  let currentBytes = 0;
  for (const message of messages) {
    const bytes = messageBytes(message);
    if (current.length > 0 && currentBytes + bytes > maxBytes) {
      chunks.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(message);
    currentBytes += bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Sends messages to a topic, framed by `codec` when one is given (dead letters go unframed), whether or
 * not the bus is closing: a batch settling during close() still records its poison message.
 *
 * @example await sendMessages(state, 'runs.dlq', [message]);
 */
export async function sendMessages(
  state: KafkaBusState,
  topic: string,
  messages: OutgoingMessage[],
  codec?: MessageCodec,
): Promise<void> {
  const wire: WireMessage[] = codec
    ? await Promise.all(
        messages.map(async (message) => ({ ...message, value: await codec.encode(topic, message) })),
      )
    : messages;
  try {
    await state.producerReady();
    for (const chunk of chunkByBytes(wire, state.maxRequestBytes)) {
      await state.producer.send({ topic, acks: -1, messages: chunk.map(toKafkaMessage) });
    }
  } catch (error) {
    throw new ServiceUnavailableError(`Could not publish to Kafka topic ${topic}`, error);
  }
}

/**
 * Resolves once every message is acknowledged by all in-sync replicas, in order per key.
 *
 * @example await publish(state, 'test-results', [{ key: projectId, value: JSON.stringify(event) }]);
 */
export async function publish(
  state: KafkaBusState,
  topic: string,
  messages: OutgoingMessage[],
): Promise<void> {
  assertOpen(state);
  if (messages.length > 0) await sendMessages(state, topic, messages, state.codec);
}
