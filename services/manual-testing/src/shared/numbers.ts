/**
 * Counter-style numbers (TC-<n>, RUN-<n>, MS-<n>) per project and kind, never reused. Each number is one
 * `manual.number-allocated` event on `mt-counter-<kind>-<projectId>`, appended at the version it was
 * decided on, so the stream's version IS the last number and two writers can never take the same one:
 * the loser of a race reads what the winner appended and tries the next number. The event id derives from
 * the entity, so allocating again for the same entity (a retried request) finds its number.
 *
 * The allocator remembers the last version it saw per stream, so it reads only what other writers
 * appended since, never the whole stream again.
 */
import { NumberAllocated } from '@verdict/contracts';
import { derivedId, ServiceUnavailableError, VersionConflictError, type EventStore } from '@verdict/platform';

export type NumberKind = 'case' | 'run' | 'release';

export const counterStream = (kind: NumberKind, projectId: string): string =>
  `mt-counter-${kind}-${projectId}`;

/** Attempts before giving up with a retriable 503: enough for hundreds of concurrent creators. */
const MAX_ATTEMPTS = 200;

export interface NumberAllocator {
  allocate(kind: NumberKind, projectId: string, entityId: string): Promise<number>;
}

/**
 * @example const number = await createNumberAllocator(store).allocate('case', projectId, caseId);
 */
export function createNumberAllocator(store: EventStore): NumberAllocator {
  const known = new Map<string, number>();
  return {
    async allocate(kind, projectId, entityId) {
      const streamId = counterStream(kind, projectId);
      const eventId = derivedId('mt-number', kind, entityId);
      let version = known.get(streamId) ?? 0;
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
        const newer = await store.readStream(streamId, { fromVersion: version + 1 });
        const mine = newer.find((event) => event.eventId === eventId);
        if (mine) return NumberAllocated.parse(mine).number;
        version = newer.at(-1)?.streamPosition ?? version;
        try {
          const { events } = await store.append(
            streamId,
            [{ ...NumberAllocated.of({ kind, entityId, number: version + 1 }), eventId }],
            { expectedVersion: version === 0 ? 'no_stream' : version, projectId },
          );
          const number = NumberAllocated.parse(events[0] as { data: unknown }).number;
          known.set(streamId, Math.max(known.get(streamId) ?? 0, number));
          return number;
        } catch (error) {
          if (!(error instanceof VersionConflictError)) throw error;
        }
      }
      throw new ServiceUnavailableError(`Too many concurrent creations in project ${projectId}; retry`);
    },
  };
}
