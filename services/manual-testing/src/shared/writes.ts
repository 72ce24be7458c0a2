/**
 * Every write of the service goes through here: decide on the aggregate's stream, append (the only write
 * of a command; the relay publishes it), then wait until the read model holds it, so the answer and the
 * client's next read show the change on any replica (read-your-writes over the asynchronous projection).
 */
import { NumberAllocated } from '@verdict/contracts';
import {
  createCommandHandler,
  createNumberAllocator,
  waitForProjection,
  type Decider,
  type DecidedEvent,
  type EventStore,
  type HandleCommandResult,
  type SqlDatabase,
} from '@verdict/platform';
import { counterStream, numberDecider, type NumberKind } from './numbers';

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
  const commands = createCommandHandler({
    store: options.store,
    onAppended: options.onAppended,
    waitForReadModel: (streamId, version) =>
      waitForProjection(options.db, options.readModel, streamId, version, {
        timeoutMs: options.readYourWritesTimeoutMs ?? 10_000,
      }),
  });
  const numbers = createNumberAllocator(commands, {
    decider: numberDecider,
    numberOf: (event) => NumberAllocated.parse(event).number,
  });
  return {
    run: (streamId, decider, command, context) =>
      commands.handle(streamId, decider, command, {
        metadata: { projectId: context.projectId, correlationId: context.correlationId ?? null },
        retries: 10,
      }),
    allocate: (kind, projectId, entityId) =>
      numbers.allocate(counterStream(kind, projectId), { kind, entityId }, { projectId }),
  };
}
