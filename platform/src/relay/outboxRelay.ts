import { EVENT_ID_HEADER, type EventBus, type OutgoingMessage } from '../eventBus/types';
import type {
  EventMetadata,
  EventStore,
  GlobalCursor,
  SerializedEvent,
  StoredEvent,
} from '../eventStore/types';
import { START } from '../eventStore/types';
import type { Logger } from '../logging';
import type { CheckpointStore } from './checkpoints';

/** Headers every relayed event carries, so consumers can dedupe and route without parsing the value. */
export const EVENT_HEADERS = {
  eventId: EVENT_ID_HEADER,
  type: 'event-type',
  version: 'event-version',
  streamId: 'stream-id',
} as const;

export interface RelayOptions {
  /** Names the checkpoint; one relay per store. */
  name: string;
  store: Pick<EventStore, 'readAllSerialized'>;
  bus: EventBus;
  checkpoints: CheckpointStore;
  /**
   * The topic and key of an event. Every event of a stream must go to the same topic and a key derived
   * from the stream (or something coarser, like its project), or per-stream order is lost.
   */
  route(event: EventMetadata): { topic: string; key: string };
  logger: Logger;
  /** Events read and published per round (default 500). */
  batchSize?: number;
  /**
   * Pause when caught up before looking again (default 10 ms), doubling while the store stays quiet up to
   * `maxIdleDelayMs` (default 250 ms); `notify()` cuts it short. A quiet store costs a few reads a second
   * instead of a hundred, and an append in this process is still relayed at once.
   */
  idleDelayMs?: number;
  maxIdleDelayMs?: number;
  /** Pause after a failed round (default 500 ms, doubling to 10 s). */
  errorDelayMs?: number;
}

export interface OutboxRelay {
  /** Publishes one batch; resolves with the number of events published. */
  runOnce(): Promise<number>;
  /** Publishes until nothing is left to read. */
  drain(): Promise<number>;
  start(): void;
  /** Wakes a relay that is waiting for new events (call after an append in the same process). */
  notify(): void;
  stop(): Promise<void>;
  /** The cursor of the last published batch. */
  position(): GlobalCursor;
}

/** The bus message of a stored event: its envelope as JSON, keyed as the route says. */
export function toMessage(event: StoredEvent, key: string): OutgoingMessage {
  return { key, value: JSON.stringify(event), headers: headersOf(event) };
}

/** The same message from an event read serialized (what the relay sends). */
export function serializedMessage(event: SerializedEvent, key: string): OutgoingMessage {
  return { key, value: event.json, headers: headersOf(event) };
}

function headersOf(event: EventMetadata): Record<string, string> {
  return {
    [EVENT_HEADERS.eventId]: event.eventId,
    [EVENT_HEADERS.type]: event.type,
    [EVENT_HEADERS.version]: String(event.version),
    [EVENT_HEADERS.streamId]: event.streamId,
  };
}

/**
 * The outbox relay: reads the store in commit-safe global order and publishes to the bus, then saves its
 * checkpoint. A crash between publishing and saving republishes that batch (at least once, never lost);
 * a batch is published topic by topic in store order, so events of one stream never overtake each other.
 *
 * @example const relay = createOutboxRelay({ name: 'test-results', store, bus, checkpoints, route, logger }); relay.start();
 */
export function createOutboxRelay(options: RelayOptions): OutboxRelay {
  const { store, bus, checkpoints, route, logger, name } = options;
  const batchSize = options.batchSize ?? 500;
  const idleDelayMs = options.idleDelayMs ?? 10;
  const maxIdleDelayMs = Math.max(idleDelayMs, options.maxIdleDelayMs ?? 250);
  const errorDelayMs = options.errorDelayMs ?? 500;
  let cursor: GlobalCursor | null = null;
  let running = false;
  let loop: Promise<void> | null = null;
  let wake: (() => void) | null = null;

  async function currentCursor(): Promise<GlobalCursor> {
    if (!cursor) cursor = (await checkpoints.load(name)) ?? START;
    return cursor;
  }

  async function runOnce(): Promise<number> {
    const after = await currentCursor();
    const { events, cursor: next } = await store.readAllSerialized({ after, limit: batchSize });
    if (events.length === 0) return 0;
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const event of events) {
      const { topic, key } = route(event);
      const messages = byTopic.get(topic) ?? [];
      messages.push(serializedMessage(event, key));
      byTopic.set(topic, messages);
    }
    for (const [topic, messages] of byTopic) await bus.publish(topic, messages);
    await checkpoints.save(name, next);
    cursor = next;
    return events.length;
  }

  async function drain(): Promise<number> {
    let total = 0;
    for (let published = await runOnce(); published > 0; published = await runOnce()) total += published;
    return total;
  }

  /** Resolves true when notify() (or stop()) cut the pause short. */
  function pause(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), ms);
      function done(woken: boolean) {
        clearTimeout(timer);
        wake = null;
        resolve(woken);
      }
      wake = () => done(true);
    });
  }

  async function run(): Promise<void> {
    let failures = 0;
    let quietRounds = 0;
    while (running) {
      try {
        const published = await runOnce();
        failures = 0;
        quietRounds = published === 0 ? quietRounds + 1 : 0;
        const idle = Math.min(idleDelayMs * 2 ** Math.min(Math.max(quietRounds - 1, 0), 16), maxIdleDelayMs);
        if (published < batchSize && running && (await pause(idle))) quietRounds = 0;
      } catch (error) {
        failures += 1;
        const delay = Math.min(errorDelayMs * 2 ** (failures - 1), 10_000);
        logger.error({ err: error, relay: name, failures, retryInMs: delay }, 'relay round failed');
        if (running) await pause(delay);
      }
    }
  }

  return {
    runOnce,
    drain,
    start() {
      if (running) return;
      running = true;
      loop = run();
    },
    notify() {
      wake?.();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      loop = null;
    },
    position: () => cursor ?? START,
  };
}
