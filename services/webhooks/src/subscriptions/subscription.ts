/**
 * The webhook subscription aggregate (stream `webhook-<id>`): its events, its state and evolve(). Its
 * states are spec §3's table: active; disabled after 5 consecutive failed deliveries (no more events are
 * sent); active again on an update with `active` = true (the failure count cleared). An owner may also
 * pause it (`active` = false) and delete it. The events stay in the webhooks service's own store: nothing
 * outside the service reads them.
 */
import { defineEvent, WebhookEventName, WebhookOutcome, type EventOf } from '@verdict/contracts';
import { z } from 'zod';

const Instant = z.iso.datetime({ offset: true });

/** What a subscription sends where: the fields an owner sets. */
const Target = z.object({
  url: z.string(),
  events: z.array(WebhookEventName),
  outcome: WebhookOutcome,
  description: z.string(),
});

export const WebhookSubscribed = defineEvent(
  'webhook.subscribed',
  1,
  Target.extend({
    webhookId: z.string(),
    projectId: z.string(),
    /** The signing secret, sealed (security/secrets.ts): the store never holds it in cleartext. */
    sealedSecret: z.string(),
    at: Instant,
  }),
);

/** A subscription kept as a row before subscriptions were event-sourced: the row as it stood, whole. */
export const WebhookImported = defineEvent(
  'webhook.imported',
  1,
  Target.extend({
    webhookId: z.string(),
    projectId: z.string(),
    sealedSecret: z.string(),
    active: z.boolean(),
    failureCount: z.number().int().min(0),
    disabledAt: Instant.nullable(),
    createdAt: Instant,
    updatedAt: Instant,
    deletedAt: Instant.nullable(),
  }),
);

/** An update: the fields it set (none when it only moved `active`). */
export const WebhookChanged = defineEvent(
  'webhook.changed',
  1,
  z.object({ set: Target.partial(), at: Instant }),
);

/** `active` = true: sending again, failure count cleared (spec §3), from disabled or paused alike. */
export const WebhookActivated = defineEvent('webhook.activated', 1, z.object({ at: Instant }));

/** `active` = false by its owner: nothing more is sent; the failure count stays as it is. */
export const WebhookPaused = defineEvent('webhook.paused', 1, z.object({ at: Instant }));

/** A delivery's last attempt failed: one more consecutive failure. */
export const WebhookDeliveryFailed = defineEvent(
  'webhook.delivery-failed',
  1,
  z.object({ deliveryId: z.string(), at: Instant }),
);

/** A delivery succeeded after failures: the consecutive count starts again from 0. */
export const WebhookFailuresCleared = defineEvent(
  'webhook.failures-cleared',
  1,
  z.object({ deliveryId: z.string(), at: Instant }),
);

/** Spec §3: disabled after consecutive failed deliveries; no more events are sent. */
export const WebhookDisabled = defineEvent(
  'webhook.disabled',
  1,
  z.object({ failureCount: z.number().int(), at: Instant }),
);

export const WebhookDeleted = defineEvent('webhook.deleted', 1, z.object({ at: Instant }));

const EVENT_TYPES = [
  WebhookSubscribed,
  WebhookImported,
  WebhookChanged,
  WebhookActivated,
  WebhookPaused,
  WebhookDeliveryFailed,
  WebhookFailuresCleared,
  WebhookDisabled,
  WebhookDeleted,
] as const;

export type SubscriptionEvent = EventOf<(typeof EVENT_TYPES)[number]>;

export type SubscriptionState =
  | { status: 'none' }
  | { status: 'deleted'; webhookId: string }
  | {
      status: 'active' | 'paused' | 'disabled';
      webhookId: string;
      projectId: string;
      failureCount: number;
    };

export const subscriptionStream = (webhookId: string): string => `webhook-${webhookId}`;

export function initialState(): SubscriptionState {
  return { status: 'none' };
}

export function evolve(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  switch (event.type) {
    case 'webhook.subscribed':
      return {
        status: 'active',
        webhookId: event.data.webhookId,
        projectId: event.data.projectId,
        failureCount: 0,
      };
    case 'webhook.imported': {
      const { webhookId, projectId, failureCount } = event.data;
      if (event.data.deletedAt !== null) return { status: 'deleted', webhookId };
      const status = event.data.active ? 'active' : event.data.disabledAt === null ? 'paused' : 'disabled';
      return { status, webhookId, projectId, failureCount };
    }
    case 'webhook.changed':
      return state;
  }
  if (state.status === 'none' || state.status === 'deleted') return state;
  switch (event.type) {
    case 'webhook.activated':
      return { ...state, status: 'active', failureCount: 0 };
    case 'webhook.paused':
      return { ...state, status: 'paused' };
    case 'webhook.delivery-failed':
      return { ...state, failureCount: state.failureCount + 1 };
    case 'webhook.failures-cleared':
      return { ...state, failureCount: 0 };
    case 'webhook.disabled':
      return { ...state, status: 'disabled' };
    case 'webhook.deleted':
      return { status: 'deleted', webhookId: state.webhookId };
  }
}

/** Parses a stored event of a subscription stream. */
export function parseSubscriptionEvent(event: {
  type: string;
  version: number;
  data: unknown;
}): SubscriptionEvent {
  const type = EVENT_TYPES.find((candidate) => candidate.is(event));
  if (type === undefined)
    throw new Error(`${event.type} v${event.version} is not a webhook subscription event`);
  return { type: type.type, version: type.version, data: type.parse(event) } as SubscriptionEvent;
}
