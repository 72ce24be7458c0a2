/**
 * How the Kafka bus turns a message's value into the bytes on the topic and back. The port speaks JSON
 * text; a codec may frame it (the schema registry's wire format) and refuse what does not fit its
 * contracts. Without a codec the Kafka bus sends the text as it is.
 */
import type { OutgoingMessage } from './types';

export interface MessageCodec {
  /** The bytes to publish for `message` on `topic`; rejects when the message does not fit its contract. */
  encode(topic: string, message: OutgoingMessage): Promise<Buffer>;
  /**
   * The JSON text of a consumed value; rejects when the value is not framed as the codec expects or does
   * not validate (the bus then dead-letters the message like any poison message).
   */
  decode(topic: string, value: Buffer, headers: Record<string, string>): Promise<string>;
}
