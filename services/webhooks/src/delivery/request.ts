/**
 * The HTTP request of one attempt: the payload of spec §6, named as at the attempt's time, signed both
 * ways (Verdict's X-Service-Signature and Standard Webhooks).
 */
import { signWebhook, standardWebhookSignature, type WebhookEventName } from '@verdict/contracts';
import { eventNamesOfDelivery } from '../subscriptions/eventNames';

const USER_AGENT = 'Verdict-Webhooks/0.1';

/** What an attempt needs of its delivery. */
export interface DeliveryToSend {
  id: string;
  project_id: string;
  event_name: WebhookEventName;
  run_json: string;
  occurred_at: Date;
}

/** The body and headers of an attempt at `now` with the subscription's signing secret. */
export function requestOf(delivery: DeliveryToSend, secret: string, now: Date, cutover: Date) {
  // Named as at the attempt's time: from the cutover on nothing carries the older names (spec §6), a
  // retry of an earlier event included, though its body then differs from the first attempt's.
  const names = eventNamesOfDelivery(delivery.event_name, now, cutover);
  const body = JSON.stringify({
    id: delivery.id,
    ...names,
    createdAt: new Date(delivery.occurred_at).toISOString(),
    projectId: delivery.project_id,
    data: { run: JSON.parse(delivery.run_json) as unknown },
  });
  const timestamp = Math.floor(now.getTime() / 1_000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-signature': signWebhook(body, secret, timestamp),
    'x-service-event': names.event,
    'x-service-delivery': delivery.id,
    // Standard Webhooks, so receivers can use its off-the-shelf verifiers.
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(delivery.id, timestamp, body, secret),
  };
  if (names.eventName !== undefined) headers['x-service-event-name'] = names.eventName;
  return { body, headers };
}
