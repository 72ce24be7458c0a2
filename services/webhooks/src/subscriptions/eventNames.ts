/**
 * The two spellings of spec §6 and their cutover. Subscriptions keep the current names internally; what a
 * write may send and what a read or a delivery shows depends on whether the cutover instant has passed,
 * as the injected clock tells. Before it: both spellings accepted, the older one read back and carried by
 * `event`/X-Service-Event, the new one by `eventName`/X-Service-Event-Name. From it: new names only.
 * A name with no older spelling (the quarantine events) reads as itself in both places before the cutover,
 * so a receiver that reads `eventName` first finds it on every delivery, as on the run events'.
 */
import {
  CURRENT_EVENT_NAME,
  LEGACY_EVENT_NAME,
  WebhookEventName,
  type AnyWebhookEventName,
} from '@verdict/contracts';
import { ValidationError } from '@verdict/platform';

export const isAfterCutover = (now: Date, cutover: Date): boolean => now.getTime() >= cutover.getTime();

/**
 * The current names of the events a write sent, duplicates dropped, in the order given; after the cutover
 * an older spelling is a 400 naming the entry.
 *
 * @example normalizeEventNames(['RUN_FINISHED', 'run.started'], now, cutover) // ['run.finished', 'run.started']
 */
export function normalizeEventNames(
  events: readonly AnyWebhookEventName[],
  now: Date,
  cutover: Date,
): WebhookEventName[] {
  const names: WebhookEventName[] = [];
  events.forEach((event, index) => {
    const current = WebhookEventName.safeParse(event);
    if (!current.success && isAfterCutover(now, cutover)) {
      const replacement = CURRENT_EVENT_NAME[event as keyof typeof CURRENT_EVENT_NAME];
      throw new ValidationError(
        `events[${index}]: ${event} is no longer accepted since ${cutover.toISOString()}; use ${replacement}`,
      );
    }
    const name = current.success
      ? current.data
      : CURRENT_EVENT_NAME[event as keyof typeof CURRENT_EVENT_NAME];
    if (!names.includes(name)) names.push(name);
  });
  return names;
}

/** How an event name reads at `now`: the older spelling until the cutover (where there is one). */
export function displayEventName(name: WebhookEventName, now: Date, cutover: Date): AnyWebhookEventName {
  return isAfterCutover(now, cutover) ? name : LEGACY_EVENT_NAME[name];
}

/** The `event`/`eventName` pair of a payload and the matching headers at `now`. */
export function eventNamesOfDelivery(
  name: WebhookEventName,
  now: Date,
  cutover: Date,
): { event: AnyWebhookEventName; eventName?: WebhookEventName } {
  return isAfterCutover(now, cutover) ? { event: name } : { event: LEGACY_EVENT_NAME[name], eventName: name };
}
