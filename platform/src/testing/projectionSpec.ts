import type { EventEnvelope } from '@verdict/contracts';
import type { StoredEvent } from '../eventStore/types';
import { silentLogger } from '../logging';
import { createProjector, type Projection } from '../projections/projector';
import type { ReadStore } from '../projections/readStore';
import type { SqlDatabase } from '../sql/types';
import { uniqueName } from './env';

/**
 * FOR TESTS ONLY: given(events).when(events).then(check) for a read model, in the spirit of emmett's
 * PostgreSQLProjectionSpec. Each scenario projects into a schema of its own on a real database, through
 * the projector runner (checkpoints, canHandle and all), then hands `check` the read model to query.
 * Its own entry point (`@verdict/platform/testing/projections`), so unit tests load no database driver.
 */

/** An event as a scenario states it: what it is about; the envelope's other fields are filled in. */
export interface SpecEvent {
  type: string;
  data: unknown;
  version?: number;
  /** Default `stream-1`. Positions follow, per stream, in the order the scenario lists the events. */
  streamId?: string;
  projectId?: string | null;
  /** Default: one second after the previous event of the scenario, from 2026-01-01T00:00:00Z. */
  occurredAt?: string;
  eventId?: string;
}

export interface ProjectionSpecOptions {
  db: SqlDatabase;
  /** The projection under test, named as the schema it is given. */
  projection: (schema: string) => Projection;
}

/**
 * @example await projectionSpec({ db, projection: runsProjection }).given([runCreated]).when([resultRecorded]).then(async (read) => expect(await findRun(read, 'p1', 'r1')).toMatchObject({ stats: { total: 1 } }));
 */
export function projectionSpec(options: ProjectionSpecOptions) {
  return {
    given(history: readonly SpecEvent[]) {
      return {
        when(events: readonly SpecEvent[]) {
          return {
            /** Projects the history, then the events, and runs `check` on the read model. */
            async then(check: (read: ReadStore) => unknown): Promise<void> {
              const read = await project(options, [history, events]);
              await check(read);
            },
            /** As then(), and projecting the events a second time (a redelivery) changes nothing. */
            async thenRedeliveryChangesNothing(check: (read: ReadStore) => unknown): Promise<void> {
              const read = await project(options, [history, events, events]);
              await check(read);
            },
          };
        },
      };
    },
  };
}

async function project(options: ProjectionSpecOptions, batches: readonly (readonly SpecEvent[])[]) {
  const schema = uniqueName('spec');
  const projector = createProjector({
    db: options.db,
    projection: options.projection(schema),
    logger: silentLogger(),
  });
  await projector.init();
  const envelopes = envelopesOf(batches.flat());
  // Each batch is one transaction, as the bus delivers it; a batch listed twice is a redelivery.
  let offset = 0;
  for (const batch of batches) {
    await projector.applyEvents(envelopes.slice(offset, offset + batch.length));
    offset += batch.length;
  }
  return { db: options.db, schema };
}

function envelopesOf(events: readonly SpecEvent[]): StoredEvent[] {
  const positions = new Map<string, number>();
  const seen = new Map<SpecEvent, StoredEvent>();
  let at = Date.parse('2026-01-01T00:00:00.000Z');
  return events.map((event, index) => {
    // The same event object listed again is the same stored event: a redelivery, not a new one.
    const known = seen.get(event);
    if (known) return known;
    const streamId = event.streamId ?? 'stream-1';
    const streamPosition = (positions.get(streamId) ?? 0) + 1;
    positions.set(streamId, streamPosition);
    at += 1_000;
    const envelope: EventEnvelope = {
      eventId: event.eventId ?? `spec-event-${index + 1}`,
      type: event.type,
      version: event.version ?? 1,
      streamId,
      streamPosition,
      globalPosition: index + 1,
      occurredAt: event.occurredAt ?? new Date(at).toISOString(),
      correlationId: null,
      causationId: null,
      projectId: event.projectId === undefined ? 'project-1' : event.projectId,
      data: event.data,
    };
    seen.set(event, envelope);
    return envelope;
  });
}
