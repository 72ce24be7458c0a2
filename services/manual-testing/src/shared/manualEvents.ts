import { parseManualTestingEvent, type EventEnvelope, type ManualTestingEvent } from '@verdict/contracts';

/** The events of a batch read back as this service's events, each with its envelope (positions, ids). */
export function manualEvents(
  envelopes: readonly EventEnvelope[],
): { envelope: EventEnvelope; event: ManualTestingEvent }[] {
  return envelopes.map((envelope) => ({
    envelope,
    event: parseManualTestingEvent({ type: envelope.type, version: envelope.version, data: envelope.data }),
  }));
}
