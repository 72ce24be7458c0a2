/**
 * Webhook subscriptions (spec §2, §3, §4.9): each one an event-sourced aggregate (subscription.ts,
 * decide.ts) whose read model is written in the same transaction (subscriptionList.ts), always read and
 * written with the project of the request, so one project never sees another's. The secret is sealed
 * before it is stored and returned in cleartext by create only.
 */
import type {
  CreateWebhookRequest,
  CreatedWebhook,
  QueuedTestDelivery,
  DeliveryAttemptStatus,
  Pagination,
  UpdateWebhookRequest,
  Webhook,
  WebhookDeliveryAttempt,
} from '@verdict/contracts';
import { ValidationError, newId, type Clock, type SqlDatabase } from '@verdict/platform';
import { deliveryHistory, enqueueTest } from './deliveryQueue';
import { checkTarget, checkUrlShape, type TargetPolicy } from '../security/targets';
import { newSigningSecret, type SecretBox } from '../security/secrets';
import type { SubscriptionCommand } from './decide';
import { normalizeEventNames } from './eventNames';
import { findWebhook, listWebhooks, webhookOf } from './subscriptionList';
import type { SubscriptionStore } from './subscriptionStore';

export interface SubscriptionsDeps {
  db: SqlDatabase;
  schema: string;
  /** The subscription streams, whose inline projection writes the read model. */
  store: Pick<SubscriptionStore, 'handle'>;
  clock: Clock;
  cutover: Date;
  targets: TargetPolicy;
  secrets: SecretBox;
  /** Wakes the sender once a delivery is queued (the dispatcher's notify). */
  queued: () => void;
}

/**
 * A URL whose name resolves to a forbidden address is refused now. One that does not resolve at all is
 * accepted: DNS may be down, or the receiver's record not published yet; every delivery checks the
 * address again and an unresolvable one fails that attempt.
 */
async function requireReachableUrl(url: string, targets: TargetPolicy): Promise<string> {
  const target = await checkTarget(url, targets);
  if (target.ok) return target.url.toString();
  if (target.unresolved) {
    const shape = checkUrlShape(url);
    if (shape.ok) return shape.url.toString();
  }
  throw new ValidationError(`url: ${target.reason}`);
}

export function createSubscriptions(deps: SubscriptionsDeps) {
  const { db, schema, clock, cutover } = deps;

  async function handle(
    projectId: string,
    webhookId: string,
    command: SubscriptionCommand,
  ): Promise<Webhook> {
    await deps.store.handle(webhookId, command, { projectId });
    return webhookOf(await findWebhook(db, schema, projectId, webhookId), clock.now(), cutover);
  }

  return {
    async create(projectId: string, body: CreateWebhookRequest): Promise<CreatedWebhook> {
      const now = clock.now();
      const events = normalizeEventNames(body.events, now, cutover);
      const url = await requireReachableUrl(body.url, deps.targets);
      const secret = newSigningSecret();
      const webhookId = `wh_${newId(now.getTime()).replace(/-/g, '')}`;
      const created = await handle(projectId, webhookId, {
        type: 'subscribe',
        webhookId,
        projectId,
        url,
        events,
        outcome: body.conditions.outcome,
        description: body.description,
        sealedSecret: deps.secrets.seal(secret),
        now,
      });
      return { ...created, secret };
    },

    async list(
      projectId: string,
      page: number,
      limit: number,
    ): Promise<{ items: Webhook[]; pagination: Pagination }> {
      const now = clock.now();
      const { rows, pagination } = await listWebhooks(db, schema, projectId, page, limit);
      return { items: rows.map((row) => webhookOf(row, now, cutover)), pagination };
    },

    async get(projectId: string, webhookId: string): Promise<Webhook> {
      return webhookOf(await findWebhook(db, schema, projectId, webhookId), clock.now(), cutover);
    },

    async update(projectId: string, webhookId: string, body: UpdateWebhookRequest): Promise<Webhook> {
      const now = clock.now();
      await findWebhook(db, schema, projectId, webhookId);
      const set = {
        ...(body.url === undefined ? {} : { url: await requireReachableUrl(body.url, deps.targets) }),
        ...(body.events === undefined ? {} : { events: normalizeEventNames(body.events, now, cutover) }),
        ...(body.conditions?.outcome === undefined ? {} : { outcome: body.conditions.outcome }),
        ...(body.description === undefined ? {} : { description: body.description }),
      };
      return handle(projectId, webhookId, { type: 'update', projectId, set, active: body.active, now });
    },

    async remove(projectId: string, webhookId: string): Promise<{ id: string; deleted: true }> {
      const now = clock.now();
      await deps.store.handle(webhookId, { type: 'delete', projectId, now }, { projectId });
      return { id: webhookId, deleted: true };
    },

    async sendTest(projectId: string, webhookId: string): Promise<QueuedTestDelivery> {
      const deliveryId = await enqueueTest(db, schema, { projectId, webhookId, now: clock.now() });
      deps.queued();
      return { deliveryId, webhookId, event: 'webhook.test' };
    },

    async deliveries(
      projectId: string,
      webhookId: string,
      query: { page: number; limit: number; status?: DeliveryAttemptStatus | undefined },
    ): Promise<{ items: WebhookDeliveryAttempt[]; pagination: Pagination }> {
      await findWebhook(db, schema, projectId, webhookId);
      return deliveryHistory(db, schema, webhookId, query);
    },
  };
}

export type Subscriptions = ReturnType<typeof createSubscriptions>;
