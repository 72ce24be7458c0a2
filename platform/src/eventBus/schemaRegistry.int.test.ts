import { eventJsonSchema } from '@verdict/contracts';
import { Kafka } from 'kafkajs';
import { z } from 'zod';
import { toMessage } from '../relay/outboxRelay';
import { requireServer, uniqueName } from '../testing';
import { createKafkaBus } from './kafka';
import { createSchemaRegistryCodec, IncompatibleContractError, subjectOf } from './schemaRegistry';
import {
  DLQ_HEADERS,
  deadLetterTopic,
  type EventBus,
  type IncomingMessage,
  type Subscription,
} from './types';

// A Kafka group join takes seconds.
jest.setTimeout(120_000);

const registryUrl = () => requireServer('SCHEMA_REGISTRY_URL');
const brokers = () => requireServer('KAFKA_BROKERS').split(',');

/** A contract of its own per test: the registry keeps every subject across runs. */
function thingEvent(data: z.ZodObject = z.object({ name: z.string(), count: z.number().int() })) {
  return { type: uniqueName('test.thing-happened'), version: 1, data };
}

function envelopeOf(event: { type: string; version: number }, data: unknown, position = 1) {
  return {
    eventId: uniqueName('event'),
    type: event.type,
    version: event.version,
    streamId: 'thing-1',
    streamPosition: position,
    globalPosition: position,
    occurredAt: '2026-01-02T03:04:05.000Z',
    correlationId: null,
    causationId: null,
    projectId: 'project-1',
    data,
  };
}

async function registryGet(path: string): Promise<unknown> {
  const response = await fetch(`${registryUrl()}${path}`);
  return response.json();
}

async function schemaIdOf(type: string): Promise<number> {
  const { id } = (await registryGet(`/subjects/${subjectOf(type, 1)}/versions/latest`)) as { id: number };
  return id;
}

/** The wire-format frame of a schema id: magic byte 0, then the id in 4 bytes. */
function frameOf(id: number): Buffer {
  const frame = Buffer.alloc(5);
  frame.writeUInt32BE(id, 1);
  return frame;
}

// Bytes as they are on the topic: the port speaks text, so the test writes and reads them with kafkajs.
const kafka = () => new Kafka({ clientId: uniqueName('raw'), brokers: brokers(), logLevel: 0 });

async function produceRaw(topic: string, key: string, value: Buffer): Promise<void> {
  const producer = kafka().producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ key, value }] });
  await producer.disconnect();
}

async function readRaw(topic: string, count: number): Promise<Buffer[]> {
  const consumer = kafka().consumer({ groupId: uniqueName('raw-group') });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const values: Buffer[] = [];
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        if (message.value) values.push(message.value);
        if (values.length === count) resolve();
      },
    });
  });
  await consumer.disconnect();
  return values;
}

describe('schema registry codec (Apicurio Registry, Kafka)', () => {
  const buses: EventBus[] = [];
  const subscriptions: Subscription[] = [];

  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((subscription) => subscription.stop()));
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });

  function busOf(codec?: ReturnType<typeof createSchemaRegistryCodec>): EventBus {
    const bus = createKafkaBus({ brokers: brokers(), clientId: uniqueName('registry-test'), codec });
    buses.push(bus);
    return bus;
  }

  async function collect(bus: EventBus, topic: string, inbox: IncomingMessage[]): Promise<void> {
    subscriptions.push(
      await bus.subscribe({
        groupId: uniqueName('group'),
        topics: [topic],
        maxAttempts: 2,
        backoff: { initialMs: 10, maxMs: 20 },
        handleBatch: async (messages) => {
          inbox.push(...messages);
        },
      }),
    );
  }

  async function until(condition: () => boolean): Promise<void> {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  it('when an event is published and consumed through the registry, then the consumer gets the JSON text written, the topic holds it in the wire format under the subject BACKWARD-compatible schema id', async () => {
    const event = thingEvent();
    const producerCodec = createSchemaRegistryCodec({ url: registryUrl(), events: [event] });
    await producerCodec.register();
    const producer = busOf(producerCodec);
    const consumer = busOf(createSchemaRegistryCodec({ url: registryUrl(), events: [] }));
    const topic = uniqueName('topic');
    await producer.ensureTopics([topic]);
    const message = toMessage(envelopeOf(event, { name: 'first', count: 3 }), 'project-1');

    const decoded: IncomingMessage[] = [];
    await collect(consumer, topic, decoded);
    await producer.publish(topic, [message]);
    await until(() => decoded.length === 1);

    expect(decoded[0]?.value).toBe(message.value);
    expect(decoded[0]?.headers['event-type']).toBe(event.type);
    const [raw] = await readRaw(topic, 1);
    expect(raw).toEqual(Buffer.concat([frameOf(await schemaIdOf(event.type)), Buffer.from(message.value)]));
    expect(await registryGet(`/config/${subjectOf(event.type, 1)}`)).toMatchObject({
      compatibilityLevel: 'BACKWARD',
    });
  });

  it('when a contract changes incompatibly (a new required field), then register() refuses naming the event and the incompatibility; an added optional field is accepted', async () => {
    const event = thingEvent(z.object({ name: z.string() }));
    await createSchemaRegistryCodec({ url: registryUrl(), events: [event] }).register();

    const optional = { ...event, data: z.object({ name: z.string(), note: z.string().optional() }) };
    await expect(
      createSchemaRegistryCodec({ url: registryUrl(), events: [optional] }).register(),
    ).resolves.toBeUndefined();

    const required = { ...event, data: z.object({ name: z.string(), count: z.number().int() }) };
    const refused = createSchemaRegistryCodec({ url: registryUrl(), events: [required] }).register();
    await expect(refused).rejects.toBeInstanceOf(IncompatibleContractError);
    await expect(refused).rejects.toThrow(`${event.type} v1 (subject ${subjectOf(event.type, 1)})`);
    await expect(refused).rejects.toThrow(/required property was added/);
  });

  it('when several processes register the same contracts at once (services starting together), then every one of them succeeds', async () => {
    const events = [thingEvent(), thingEvent(), thingEvent()];
    const codecs = Array.from({ length: 4 }, () => createSchemaRegistryCodec({ url: registryUrl(), events }));

    await expect(Promise.all(codecs.map((codec) => codec.register()))).resolves.toHaveLength(4);
    for (const event of events) {
      expect(await registryGet(`/config/${subjectOf(event.type, 1)}`)).toMatchObject({
        compatibilityLevel: 'BACKWARD',
      });
    }
  });

  it('when a subject was created outside the client (compatibility NONE), then register() sets BACKWARD on it and keeps its schema', async () => {
    const event = thingEvent();
    const subject = subjectOf(event.type, 1);
    const created = await fetch(`${registryUrl()}/subjects/${subject}/versions`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({
        schemaType: 'JSON',
        schema: JSON.stringify(eventJsonSchema(event)),
      }),
    });
    expect(created.status).toBe(200);
    const id = await schemaIdOf(event.type);
    expect(await registryGet(`/config/${subject}`)).toMatchObject({ compatibilityLevel: 'NONE' });

    await createSchemaRegistryCodec({ url: registryUrl(), events: [event] }).register();

    expect(await registryGet(`/config/${subject}`)).toMatchObject({ compatibilityLevel: 'BACKWARD' });
    expect(await schemaIdOf(event.type)).toBe(id);
  });

  it('when an event does not fit its contract, then publish() refuses it and nothing reaches the topic', async () => {
    const event = thingEvent();
    const codec = createSchemaRegistryCodec({ url: registryUrl(), events: [event] });
    await codec.register();
    const producer = busOf(codec);
    const topic = uniqueName('topic');
    await producer.ensureTopics([topic]);

    const wrong = toMessage(envelopeOf(event, { name: 'x', count: 'three' }), 'project-1');
    await expect(producer.publish(topic, [wrong])).rejects.toThrow(/invalid payload/);
    const right = toMessage(envelopeOf(event, { name: 'ok', count: 1 }, 2), 'project-1');
    await producer.publish(topic, [right]);
    // The first value on the topic is the one published after the refused one.
    const [first] = await readRaw(topic, 1);
    expect(first?.subarray(5).toString()).toBe(right.value);
  });

  it('when a consumer is given a message without the registry framing, or a framed one that does not validate, then each goes to the dead-letter topic with the reason and the next message still arrives', async () => {
    const event = thingEvent();
    const codec = createSchemaRegistryCodec({ url: registryUrl(), events: [event] });
    await codec.register();
    const producer = busOf(codec);
    const plain = busOf();
    const consumer = busOf(createSchemaRegistryCodec({ url: registryUrl(), events: [] }));
    const topic = uniqueName('topic');
    await producer.ensureTopics([topic], { partitions: 1 });
    const delivered: IncomingMessage[] = [];
    const deadLetters: IncomingMessage[] = [];
    await collect(consumer, topic, delivered);
    await collect(plain, deadLetterTopic(topic), deadLetters);

    const unframed = toMessage(envelopeOf(event, { name: 'unframed', count: 1 }, 1), 'project-1');
    await produceRaw(topic, 'project-1', Buffer.from(unframed.value));
    const invalid = toMessage(envelopeOf(event, { name: 'invalid' }, 2), 'project-1');
    await produceRaw(
      topic,
      'project-1',
      Buffer.concat([frameOf(await schemaIdOf(event.type)), Buffer.from(invalid.value)]),
    );
    const valid = toMessage(envelopeOf(event, { name: 'valid', count: 2 }, 3), 'project-1');
    await producer.publish(topic, [valid]);
    await until(() => delivered.length === 1 && deadLetters.length === 2);

    expect(delivered.map((message) => message.value)).toEqual([valid.value]);
    const [first, second] = deadLetters;
    expect(first?.value).toBe(unframed.value);
    expect(first?.headers[DLQ_HEADERS.error]).toMatch(/Not in the schema registry's wire format/);
    expect(first?.headers[DLQ_HEADERS.originalTopic]).toBe(topic);
    expect(second?.headers[DLQ_HEADERS.error]).toMatch(/Does not validate against schema .*\/data/);
  });
});
