/**
 * Counter-style numbers (TC-<n>, RUN-<n>, MS-<n>) per project and kind, never reused: one
 * `manual.number-allocated` event per number on `mt-counter-<kind>-<projectId>`, the next after the last.
 * The event id derives from the numbered entity, so numbering it again (a retried request) finds its
 * number. The platform's number allocator appends them, one writer at a time per number.
 */
import { NumberAllocated, type EventOf } from '@verdict/contracts';
import { derivedId, type Decider } from '@verdict/platform';

export type NumberKind = 'case' | 'run' | 'release';

export const counterStream = (kind: NumberKind, projectId: string): string =>
  `mt-counter-${kind}-${projectId}`;

export interface AllocateNumber {
  kind: NumberKind;
  entityId: string;
}

type NumberEvent = EventOf<typeof NumberAllocated> & { eventId?: string };

/**
 * The counter of one kind in one project: its state is the last number, which the last event holds.
 *
 * @example const [allocated] = numberDecider.decide({ kind: 'case', entityId: caseId }, { last: 11 });
 */
export const numberDecider: Decider<AllocateNumber, NumberEvent, { last: number }> = {
  initialState: () => ({ last: 0 }),
  evolve: (state, event) => ({ last: Math.max(state.last, event.data.number) }),
  decide: ({ kind, entityId }, { last }) => [
    {
      ...NumberAllocated.of({ kind, entityId, number: last + 1 }),
      eventId: derivedId('mt-number', kind, entityId),
    },
  ],
  parse: (event) => NumberAllocated.of(NumberAllocated.parse(event)),
};
