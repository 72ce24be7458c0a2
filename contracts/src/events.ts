import { z } from 'zod';

/**
 * The envelope every domain event travels in, from the event store through the bus to projections.
 * `streamPosition` is the event's 1-based version within its stream; `globalPosition` its position in the
 * store of the service that wrote it (unique, but only ordered together with the writing transaction).
 */
export const EventEnvelope = z.object({
  eventId: z.string().min(1),
  type: z.string().min(1),
  version: z.number().int().min(1),
  streamId: z.string().min(1),
  streamPosition: z.number().int().min(1),
  globalPosition: z.number().int().min(1),
  occurredAt: z.iso.datetime({ offset: true }),
  correlationId: z.string().nullable(),
  causationId: z.string().nullable(),
  projectId: z.string().nullable(),
  data: z.unknown(),
});
export type EventEnvelope = z.infer<typeof EventEnvelope>;

/** A versioned event type: its literal name, its version and the zod schema of its data. */
export interface EventType<Type extends string, Version extends number, Data extends z.ZodType> {
  readonly type: Type;
  readonly version: Version;
  readonly data: Data;
  /** The event as a decider emits it: type, version and data. */
  readonly schema: z.ZodObject<{ type: z.ZodLiteral<Type>; version: z.ZodLiteral<Version>; data: Data }>;
  /** Builds the event from its data (validated). */
  of(data: z.input<Data>): { type: Type; version: Version; data: z.output<Data> };
  /** True when an envelope carries this type and version. */
  is(envelope: { type: string; version: number }): boolean;
  /** Parses the data of an envelope of this type; throws a ZodError when it does not fit. */
  parse(envelope: { data: unknown }): z.output<Data>;
}

/**
 * Declares a versioned event type. Changing an event's shape means declaring a new version beside the old
 * one, so consumers can keep reading what is already in the store.
 *
 * @example const RunStarted = defineEvent('run.started', 1, z.object({ runId: z.string() }));
 */
export function defineEvent<Type extends string, Version extends number, Data extends z.ZodType>(
  type: Type,
  version: Version,
  data: Data,
): EventType<Type, Version, Data> {
  const schema = z.object({ type: z.literal(type), version: z.literal(version), data });
  return {
    type,
    version,
    data,
    schema,
    of: (input) => ({ type, version, data: data.parse(input) }),
    is: (envelope) => envelope.type === type && envelope.version === version,
    parse: (envelope) => data.parse(envelope.data),
  };
}

/** The event data as the domain sees it: one member of a union of declared event types. */
export type EventOf<E> =
  E extends EventType<infer Type, infer Version, infer Data>
    ? { type: Type; version: Version; data: z.output<Data> }
    : never;

/**
 * The JSON Schema (draft-07) of an event as it travels on the bus: the envelope, with `type` and `version`
 * pinned and `data` the event's own schema. It is the schema registry's contract for the event. Closed
 * objects (zod's output drops unknown keys), so that adding an optional field is a backward-compatible
 * change for the registry and removing or requiring one is not.
 *
 * @example const schema = eventJsonSchema(RunCreated); // { type: 'object', properties: { type: { const: 'run.created' }, … } }
 */
export function eventJsonSchema(event: {
  type: string;
  version: number;
  data: z.ZodType;
}): Record<string, unknown> {
  const wire = EventEnvelope.extend({
    type: z.literal(event.type),
    version: z.literal(event.version),
    data: event.data,
  }).meta({ title: `${event.type} v${event.version}` });
  return z.toJSONSchema(wire, { io: 'output', target: 'draft-7', unrepresentable: 'any' });
}
