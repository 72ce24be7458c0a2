/**
 * The HTTP request of one attempt: the payload of spec §6, named as at the attempt's time, signed both
 * ways (Verdict's X-Service-Signature and Standard Webhooks).
 */
import {
  WEBHOOK_TEST_EVENT,
  isQuarantineWebhookEvent,
  signWebhook,
  standardWebhookSignature,
  type AnyWebhookEventName,
  type DeliveryEventName,
  type WebhookEventName,
} from '@verdict/contracts';
import type { SecretBox } from '../security/secrets';
import { checkTarget, type TargetPolicy } from '../security/targets';
import { eventNamesOfDelivery } from '../subscriptions/eventNames';
import type { Sender, SendOutcome } from './send';

const USER_AGENT = 'Verdict-Webhooks/0.1';

/** What an attempt needs of its delivery. */
export interface DeliveryToSend {
  id: string;
  project_id: string;
  event_name: DeliveryEventName;
  /** The run of a run event, the quarantine of a quarantine event; the whole `data` of a test event. */
  run_json: string;
  occurred_at: Date;
  url: string;
  sealed_secret: string;
}

/** The body and headers of an attempt at `now` with the subscription's signing secret. */
export function requestOf(delivery: DeliveryToSend, secret: string, now: Date, cutover: Date) {
  // Named as at the attempt's time: from the cutover on nothing carries the older names (spec §6), a
  // retry of an earlier event included, though its body then differs from the first attempt's.
  const test = delivery.event_name === WEBHOOK_TEST_EVENT;
  const names: { event: AnyWebhookEventName | typeof WEBHOOK_TEST_EVENT; eventName?: WebhookEventName } =
    delivery.event_name === WEBHOOK_TEST_EVENT
      ? { event: WEBHOOK_TEST_EVENT }
      : eventNamesOfDelivery(delivery.event_name, now, cutover);
  const stored = JSON.parse(delivery.run_json) as unknown;
  const body = JSON.stringify({
    id: delivery.id,
    ...names,
    createdAt: new Date(delivery.occurred_at).toISOString(),
    projectId: delivery.project_id,
    data: test
      ? stored
      : isQuarantineWebhookEvent(delivery.event_name)
        ? { quarantine: stored }
        : { run: stored },
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

export interface AttemptDeps {
  sender: Sender;
  targets: TargetPolicy;
  secrets: SecretBox;
  cutover: Date;
  timeoutMs: number;
}

/**
 * One attempt at `now`: the address checked again (it may resolve elsewhere since the subscription was
 * written), then the signed POST to the address checked. Resolves (never rejects) with what happened.
 */
export async function attemptDelivery(
  delivery: DeliveryToSend,
  now: Date,
  deps: AttemptDeps,
): Promise<SendOutcome> {
  try {
    const target = await checkTarget(delivery.url, deps.targets);
    if (!target.ok)
      return { ok: false, statusCode: null, responseTimeMs: 0, error: `refused: url ${target.reason}` };
    const { body, headers } = requestOf(
      delivery,
      deps.secrets.open(delivery.sealed_secret),
      now,
      deps.cutover,
    );
    const { url, address } = target;
    return await deps.sender.send({ url, address, headers, body, timeoutMs: deps.timeoutMs });
  } catch (error) {
    return { ok: false, statusCode: null, responseTimeMs: 0, error: (error as Error).message };
  }
}
