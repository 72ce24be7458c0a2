/**
 * The distributed mode's message codec: every event on Kafka is framed by a Confluent-compatible schema
 * registry (Apicurio Registry in Verdict's deployments) and validated against the JSON Schema of its zod
 * contract, on publish and on consume. Its own entry point (`@verdict/platform/schemaRegistry`), so the
 * embedded process, whose one in-process bus carries what one build of the contracts wrote, never loads it.
 *
 * One subject per event type and version (`verdict.<type>.v<version>`), with BACKWARD compatibility set on
 * the subject explicitly: the registry's default for a subject it did not create through this client reads
 * NONE, which would let any change through (and makes the client refuse to register).
 */
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { eventJsonSchema } from '@verdict/contracts';
import { fullFormats } from 'ajv-formats/dist/formats';
import type { z } from 'zod';
import { silentLogger, type Logger } from '../logging';
import type { MessageCodec } from './codec';
import type { OutgoingMessage } from './types';

/** The headers the relay sets on every event (EVENT_HEADERS), read here to pick the subject. */
const TYPE_HEADER = 'event-type';
const VERSION_HEADER = 'event-version';
/** The Confluent wire format: magic byte 0, then the schema id in 4 bytes, then the payload. */
const MAGIC_BYTE = 0;
const FRAME_BYTES = 5;

export interface EventContract {
  readonly type: string;
  readonly version: number;
  readonly data: z.ZodType;
}

export interface SchemaRegistryCodecOptions {
  /** The registry's Confluent-compatible API, e.g. `http://127.0.0.1:18081/apis/ccompat/v7`. */
  url: string;
  /** The event contracts this process publishes; each is registered by register(). */
  events: readonly EventContract[];
  logger?: Logger;
}

export interface SchemaRegistryCodec extends MessageCodec {
  /**
   * Registers the contract of every event (idempotent: an unchanged contract keeps its schema id). Rejects
   * with an IncompatibleContractError naming each event whose contract the registry refuses.
   */
  register(): Promise<void>;
  /** Resolves when the registry answers; used by /readyz. */
  ping(): Promise<void>;
}

/**
 * A contract the registry refused: the process must not start with it.
 *
 * @example if (error instanceof IncompatibleContractError) for (const r of error.refusals) log.error(r);
 */
export class IncompatibleContractError extends Error {
  constructor(readonly refusals: { event: string; subject: string; reason: string }[]) {
    super(
      `The schema registry refused ${refusals.length === 1 ? 'the contract' : 'the contracts'} of ${refusals
        .map(({ event, subject, reason }) => `${event} (subject ${subject}): ${reason}`)
        .join('; ')}`,
    );
    this.name = 'IncompatibleContractError';
  }
}

/** A write the registry refused because another process was writing the same subject. */
class RegistryConflict extends Error {}
const CONFLICT_ATTEMPTS = 5;

/**
 * The subject of an event type and version.
 *
 * @example subjectOf('run.started', 1) // 'verdict.run.started.v1'
 */
export const subjectOf = (type: string, version: number): string => `verdict.${type}.v${version}`;

/** What the codec's operations work on: the registry client and the schema id of each registered subject. */
interface RegistryState {
  /** The registry's base URL, without a trailing slash. */
  url: string;
  logger: Logger;
  registry: SchemaRegistry;
  ids: Map<string, number>;
}

async function compatibilityOf(state: RegistryState, subject: string): Promise<string | undefined> {
  const response = await fetch(`${state.url}/config/${encodeURIComponent(subject)}`);
  if (!response.ok) return undefined;
  return ((await response.json()) as { compatibilityLevel?: string }).compatibilityLevel;
}

async function setBackward(state: RegistryState, subject: string): Promise<void> {
  const response = await fetch(`${state.url}/config/${encodeURIComponent(subject)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ compatibility: COMPATIBILITY.BACKWARD }),
  });
  if (response.ok) return;
  const answer = await response.text();
  // Services starting together race to create the subject's rule; the loser finds it set.
  if (response.status === 409 && (await compatibilityOf(state, subject)) === COMPATIBILITY.BACKWARD) return;
  throw new RegistryConflict(`could not set BACKWARD compatibility: ${response.status} ${answer}`);
}

async function registerOne(
  state: RegistryState,
  event: EventContract,
): Promise<{ subject: string; reason: string } | null> {
  const subject = subjectOf(event.type, event.version);
  await setBackward(state, subject);
  try {
    const { id } = await state.registry.register(
      { type: SchemaType.JSON, schema: JSON.stringify(eventJsonSchema(event)) },
      { subject, compatibility: COMPATIBILITY.BACKWARD },
    );
    state.ids.set(subject, id);
    return null;
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
    // A 409 is a refused contract, or another process registering the same subject at that moment.
    if (/RuleViolation|Incompatible/i.test(messageOf(error))) return { subject, reason: messageOf(error) };
    throw new RegistryConflict(messageOf(error), { cause: error });
  }
}

/** registerOne, again after a short pause while another process holds the subject (a few tries). */
async function registerWithRetries(state: RegistryState, event: EventContract) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await registerOne(state, event);
    } catch (error) {
      if (!(error instanceof RegistryConflict) || attempt === CONFLICT_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt + Math.random() * 100));
    }
  }
}

/** Registers every contract, one at a time: a few dozen small requests, the registry's log in catalog order. */
async function registerAll(state: RegistryState, events: readonly EventContract[]): Promise<void> {
  const refusals: { event: string; subject: string; reason: string }[] = [];
  for (const event of events) {
    const refusal = await registerWithRetries(state, event);
    if (refusal) refusals.push({ event: `${event.type} v${event.version}`, ...refusal });
  }
  if (refusals.length > 0) throw new IncompatibleContractError(refusals);
  state.logger.info({ subjects: state.ids.size }, 'event contracts registered');
}

async function encode(state: RegistryState, topic: string, message: OutgoingMessage): Promise<Buffer> {
  const subject = subjectOfMessage(message);
  const id = state.ids.get(subject);
  if (id === undefined) {
    throw new Error(`No registered contract for subject ${subject} (topic ${topic}): call register() first`);
  }
  return state.registry.encode(id, JSON.parse(message.value));
}

async function decode(state: RegistryState, value: Buffer): Promise<string> {
  if (value.length < FRAME_BYTES || value[0] !== MAGIC_BYTE) {
    throw new Error(
      `Not in the schema registry's wire format (expected magic byte 0 and a schema id, got ${describeStart(value)})`,
    );
  }
  try {
    await state.registry.decode(value);
  } catch (error) {
    throw new Error(`Does not validate against schema ${value.readUInt32BE(1)}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  // The text as it was written: decode() parsed and validated it; the port hands consumers JSON text.
  return value.subarray(FRAME_BYTES).toString('utf8');
}

async function ping(state: RegistryState): Promise<void> {
  const response = await fetch(`${state.url}/subjects?limit=1`, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`The schema registry answered ${response.status}`);
}

/**
 * The registry codec of a process. Creating it does no I/O; register() before publishing.
 *
 * @example const codec = createSchemaRegistryCodec({ url, events: EVENT_CATALOG, logger }); await codec.register();
 */
export function createSchemaRegistryCodec(options: SchemaRegistryCodecOptions): SchemaRegistryCodec {
  const url = options.url.replace(/\/+$/, '');
  const state: RegistryState = {
    url,
    logger: (options.logger ?? silentLogger()).child({ component: 'schemaRegistry' }),
    // Formats (date-time, uri, email…) are part of the contracts; the client's Ajv would refuse to compile
    // them unknown. Only the format table: the client builds its validators with its own Ajv.
    registry: new SchemaRegistry(
      { host: url, clientId: 'verdict', retry: { retries: 3 } },
      { [SchemaType.JSON]: { strict: true, formats: fullFormats } },
    ),
    ids: new Map(),
  };
  return {
    register: () => registerAll(state, options.events),
    encode: (topic, message) => encode(state, topic, message),
    decode: (_topic, value) => decode(state, value),
    ping: () => ping(state),
  };
}

function subjectOfMessage(message: OutgoingMessage): string {
  const type = message.headers?.[TYPE_HEADER];
  const version = Number(message.headers?.[VERSION_HEADER]);
  if (!type || !Number.isInteger(version)) {
    throw new Error(`A message without ${TYPE_HEADER} and ${VERSION_HEADER} headers has no contract`);
  }
  return subjectOf(type, version);
}

function describeStart(value: Buffer): string {
  if (value.length === 0) return 'an empty value';
  return `0x${value.subarray(0, Math.min(value.length, FRAME_BYTES)).toString('hex')}…`;
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const paths = (error as { paths?: unknown }).paths;
    return Array.isArray(paths) && paths.length > 0
      ? `${error.message} at ${paths.map((path) => (Array.isArray(path) ? path.join('') : String(path))).join(', ')}`
      : error.message;
  }
  return String(error);
}
