/**
 * Every write of the service goes through here: decide on the aggregate's stream, append (the only write
 * of a command; the relay publishes it), then wait until the read model holds it, so the answer and the
 * client's next read show the change on any replica (read-your-writes over the asynchronous projection).
 */
import {
  handleCommand,
  waitForProjection,
  type Decider,
  type DecidedEvent,
  type EventStore,
  type HandleCommandResult,
  type SqlDatabase,
} from '@verdict/platform';
import { createNumberAllocator, type NumberKind } from './numbers';

export interface WriteContext {
  projectId: string;
  correlationId?: string | null;
}

export interface Writes {
  /** Runs a command on a stream and waits for the read model to reach the stream's new version. */
  run<Command, Event extends DecidedEvent, State>(
    streamId: string,
    decider: Decider<Command, Event, State>,
    command: Command,
    context: WriteContext,
  ): Promise<HandleCommandResult<State>>;
  allocate(kind: NumberKind, projectId: string, entityId: string): Promise<number>;
}

export interface WritesOptions {
  store: EventStore;
  db: SqlDatabase;
  /** The read model's schema (its projection's name), whose checkpoints say what it holds. */
  readModel: string;
  onAppended(): void;
  /** How long a write waits for the read model before answering 503 (default 10 s). */
  readYourWritesTimeoutMs?: number;
}

/** @example const writes = createWrites({ store, db, readModel, onAppended: () => relay.notify() }); */
export function createWrites(options: WritesOptions): Writes {
  const numbers = createNumberAllocator(options.store);
  return {
    async run(streamId, decider, command, context) {
      const result = await handleCommand(
        options.store,
        streamId,
        decider,
        command,
        { projectId: context.projectId, correlationId: context.correlationId ?? null },
        { retries: 10 },
      );
      if (result.events.length > 0) options.onAppended();
      await waitForProjection(options.db, options.readModel, streamId, result.nextExpectedVersion, {
        timeoutMs: options.readYourWritesTimeoutMs ?? 10_000,
      });
      return result;
    },
    allocate: async (kind, projectId, entityId) => {
      const number = await numbers.allocate(kind, projectId, entityId);
      options.onAppended();
      return number;
    },
  };
}
