import { z } from 'zod';
import { RunGateRecord } from './gates';
import { QuarantineStatus } from './quarantine';
import { listEnvelope, successEnvelope } from './envelope';
import { defineRoutes, ADMIN_ROLES, READER_ROLES } from './http';
import { queryInteger } from './http';

/**
 * Outbound webhooks (spec §2 "Webhook subscription", §3, §4.9, §6; API.md "Webhook payload"), served by the
 * webhooks service. Event names come in two spellings until the cutover of spec §6: the schemas accept
 * both; which one a write may use and which one a read shows depends on the time, so the service decides.
 */

/** The run events of spec §6. */
export const RUN_WEBHOOK_EVENT_NAMES = ['run.started', 'run.finished'] as const;
/** A quarantine made, lifted (by a person or its release rule) or expired (issue 32); no older spelling. */
export const QUARANTINE_WEBHOOK_EVENT_NAMES = [
  'test.quarantined',
  'test.quarantine-lifted',
  'test.quarantine-expired',
] as const;
export type QuarantineWebhookEventName = (typeof QUARANTINE_WEBHOOK_EVENT_NAMES)[number];
export const WEBHOOK_EVENT_NAMES = [...RUN_WEBHOOK_EVENT_NAMES, ...QUARANTINE_WEBHOOK_EVENT_NAMES] as const;
/** The spec's current names. */
export const WebhookEventName = z.enum(WEBHOOK_EVENT_NAMES);
export type WebhookEventName = z.infer<typeof WebhookEventName>;

export const isQuarantineWebhookEvent = (name: string): name is QuarantineWebhookEventName =>
  (QUARANTINE_WEBHOOK_EVENT_NAMES as readonly string[]).includes(name);

/** The deprecated spellings of spec §6, accepted and shown until the cutover. */
export const LegacyWebhookEventName = z.enum(['RUN_STARTED', 'RUN_FINISHED']);
export type LegacyWebhookEventName = z.infer<typeof LegacyWebhookEventName>;

/**
 * How a name reads until the cutover (in `event`, X-Service-Event and subscriptions read back): the older
 * spelling where one exists; an event born after the spec's rename (the quarantine events) has none, so it
 * reads as its own name before the cutover too, in `event` and `eventName` alike.
 */
export type PreCutoverEventName = LegacyWebhookEventName | QuarantineWebhookEventName;
export const LEGACY_EVENT_NAME: Record<WebhookEventName, PreCutoverEventName> = {
  'run.started': 'RUN_STARTED',
  'run.finished': 'RUN_FINISHED',
  'test.quarantined': 'test.quarantined',
  'test.quarantine-lifted': 'test.quarantine-lifted',
  'test.quarantine-expired': 'test.quarantine-expired',
};
/** The inverse of LEGACY_EVENT_NAME. */
export const CURRENT_EVENT_NAME: Record<PreCutoverEventName, WebhookEventName> = {
  RUN_STARTED: 'run.started',
  RUN_FINISHED: 'run.finished',
  'test.quarantined': 'test.quarantined',
  'test.quarantine-lifted': 'test.quarantine-lifted',
  'test.quarantine-expired': 'test.quarantine-expired',
};

/** Either spelling, as a write may carry it. */
export const AnyWebhookEventName = z.enum([...WEBHOOK_EVENT_NAMES, 'RUN_STARTED', 'RUN_FINISHED']);
export type AnyWebhookEventName = z.infer<typeof AnyWebhookEventName>;

/** The default instant of the event-name cutover (spec §6, §9): 11 December 2026. */
export const DEFAULT_EVENT_NAME_CUTOVER = '2026-12-11T00:00:00Z';

/**
 * The event of a test delivery (`POST /{projectId}/webhooks/{webhookId}/test`): not subscribable, sent to
 * one subscription on request, signed and delivered like the others.
 */
export const WEBHOOK_TEST_EVENT = 'webhook.test';
/** What a delivery in the log may carry: a subscribable event, or the test event. */
export const DeliveryEventName = z.enum([...WEBHOOK_EVENT_NAMES, WEBHOOK_TEST_EVENT]);
export type DeliveryEventName = z.infer<typeof DeliveryEventName>;

/** `conditions.outcome`: filters run.finished only (spec §6); the other events ignore it. */
export const WebhookOutcome = z.enum(['any', 'failed', 'passed']);
export type WebhookOutcome = z.infer<typeof WebhookOutcome>;

export const MAX_WEBHOOK_URL_LENGTH = 2_000;
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;

const WebhookUrl = z
  .string()
  .trim()
  .min(1)
  .max(MAX_WEBHOOK_URL_LENGTH)
  // What the document can say of the URL parse the service runs (an absolute http or https URL).
  .meta({ format: 'uri', pattern: '^[\\t\\n\\f\\r ]*[Hh][Tt][Tt][Pp][Ss]?://' })
  .describe('http(s) URL that receives the deliveries; private and loopback addresses are refused');
const WebhookEvents = z
  .array(AnyWebhookEventName)
  .min(1)
  .max(10)
  .describe(
    'run.started, run.finished (or RUN_STARTED, RUN_FINISHED until the cutover), test.quarantined, ' +
      'test.quarantine-lifted, test.quarantine-expired',
  );
const WebhookConditions = z.strictObject({ outcome: WebhookOutcome.default('any') });
const WebhookDescription = z.string().max(MAX_WEBHOOK_DESCRIPTION_LENGTH);

export const CreateWebhookRequest = z.strictObject({
  url: WebhookUrl,
  events: WebhookEvents,
  conditions: WebhookConditions.default({ outcome: 'any' }),
  description: WebhookDescription.default(''),
});
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

export const UpdateWebhookRequest = z
  .strictObject({
    url: WebhookUrl.optional(),
    events: WebhookEvents.optional(),
    conditions: WebhookConditions.optional(),
    description: WebhookDescription.optional(),
    active: z
      .boolean()
      .optional()
      .describe('true re-enables a disabled subscription and clears its failure count; false pauses it'),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: 'must change at least one of url, events, conditions, description, active',
  })
  .meta({ minProperties: 1 });
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequest>;

export const Webhook = z.object({
  id: z.string(),
  projectId: z.string(),
  url: z.string(),
  /** In the spelling of the moment: the older one until the cutover, the new one after it. */
  events: z.array(AnyWebhookEventName),
  conditions: z.object({ outcome: WebhookOutcome }),
  description: z.string(),
  active: z.boolean(),
  /** Consecutive failed deliveries (a delivery fails when its 5th attempt does); 5 disable the subscription. */
  failureCount: z.number().int().min(0),
  /** When deliveries disabled it; null while active or when it was paused by an update. */
  disabledAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Webhook = z.infer<typeof Webhook>;

/** The create answer: the only one that carries the signing secret. */
export const CreatedWebhook = Webhook.extend({
  secret: z.string().describe('Signing secret (whsec_…); shown once, in this answer only'),
});
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

export const DeletedWebhook = z.object({ id: z.string(), deleted: z.literal(true) });

export const DeliveryAttemptStatus = z.enum(['pending', 'succeeded', 'failed']);
export type DeliveryAttemptStatus = z.infer<typeof DeliveryAttemptStatus>;

/**
 * One attempt of a delivery. `pending` is the next attempt of a delivery still waiting to be tried, so
 * the list shows what is queued as well as what happened.
 */
export const WebhookDeliveryAttempt = z.object({
  id: z.string(),
  /** The X-Service-Delivery header: the same on every attempt of one delivery. */
  deliveryId: z.string(),
  webhookId: z.string(),
  eventName: DeliveryEventName,
  /** 1 to 5 (a test delivery has one attempt only). */
  attempt: z.number().int().min(1),
  status: DeliveryAttemptStatus,
  /** The receiver's HTTP status; null when none came (refused, timed out, unreachable, or pending). */
  statusCode: z.number().int().nullable(),
  responseTimeMs: z.number().int().min(0).nullable(),
  error: z.string().nullable(),
  createdAt: z.iso.datetime().describe('When the delivery was queued'),
  attemptedAt: z.iso.datetime().nullable(),
  /** When the next attempt is due: set on a pending attempt and on a failed one that will be retried. */
  nextAttemptAt: z.iso.datetime().nullable(),
});
export type WebhookDeliveryAttempt = z.infer<typeof WebhookDeliveryAttempt>;

const page = queryInteger({ min: 1, fallback: 1 });
const limit = queryInteger({ min: 1, max: 100, fallback: 20 });

export const WebhooksPath = z.object({ projectId: z.string().min(1) });
export const WebhookPath = z.object({ projectId: z.string().min(1), webhookId: z.string().min(1).max(100) });
export const WebhooksQuery = z.strictObject({ page, limit });
export const WebhookDeliveriesQuery = z.strictObject({
  page,
  limit,
  status: DeliveryAttemptStatus.optional(),
});
export type WebhookDeliveriesQuery = z.infer<typeof WebhookDeliveriesQuery>;

/** The answer to a test: the queued delivery, whose attempt the delivery log then shows. */
export const QueuedTestDelivery = z.object({
  deliveryId: z.string().describe('X-Service-Delivery of the test request, and its deliveryId in the log'),
  webhookId: z.string(),
  event: z.literal(WEBHOOK_TEST_EVENT),
});
export type QueuedTestDelivery = z.infer<typeof QueuedTestDelivery>;

/** The body of a test delivery: `data` says it is a test and of which subscription. */
export const WebhookTestPayload = z.object({
  id: z.string(),
  event: z.literal(WEBHOOK_TEST_EVENT),
  createdAt: z.string(),
  projectId: z.string(),
  data: z.object({ test: z.literal(true), webhookId: z.string(), projectId: z.string() }),
});
export type WebhookTestPayload = z.infer<typeof WebhookTestPayload>;

/** API.md "Webhook payload": `data.run`. */
export const WebhookRun = z.object({
  id: z.string(),
  counter: z.number().int(),
  status: z.enum(['running', 'finished']),
  /** passed or failed once finished (failed: a test failed or the runner reported a failure); else null. */
  outcome: z.enum(['passed', 'failed']).nullable(),
  branch: z.string().nullable(),
  environment: z.string().nullable(),
  commit: z
    .object({ sha: z.string(), message: z.string().optional(), author: z.string().optional() })
    .nullable(),
  stats: z.object({
    total: z.number().int(),
    passed: z.number().int(),
    failed: z.number().int(),
    flaky: z.number().int(),
    skipped: z.number().int(),
  }),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  url: z.string(),
  /**
   * run.finished only, beyond the spec's payload (new fields, absent when unknown): the verdicts of the
   * run's failures against its base branch (see the run detail's include=failures).
   */
  failures: z
    .object({
      baseBranch: z.string(),
      baseRunId: z.string().nullable(),
      counts: z.object({
        new: z.number().int(),
        failingOnBase: z.number().int(),
        knownFlaky: z.number().int(),
        quarantined: z.number().int(),
      }),
    })
    .optional(),
  /** run.finished only: the failures whose verdict is `new`, in file and title order, at most 20. */
  newFailures: z
    .array(
      z.object({
        testCaseId: z.string(),
        title: z.string(),
        file: z.string(),
        project: z.string().nullable(),
        signatureId: z.string().nullable(),
      }),
    )
    .max(20)
    .optional(),
  /** run.finished only (issue 32): the quality gate judged when the run finished; absent without rules. */
  gate: RunGateRecord.optional(),
});
export type WebhookRun = z.infer<typeof WebhookRun>;

/**
 * `data.quarantine` of test.quarantined, test.quarantine-lifted and test.quarantine-expired (issue 32): the
 * quarantine as the event left it. `signatures` are the ids of the error signatures it forgives; `ended*`
 * are null while it is active (an expiry has no `endedBy` or `endReason`); `url` is the project's
 * quarantine page.
 */
export const WebhookQuarantine = z.object({
  id: z.string(),
  testCaseId: z.string(),
  file: z.string(),
  titlePath: z.array(z.string()),
  /** The Playwright project it covers; null: every platform. */
  project: z.string().nullable(),
  reason: z.string(),
  ownerId: z.string(),
  expiresAt: z.string(),
  status: QuarantineStatus,
  automatic: z.boolean(),
  signatures: z.array(z.string()),
  createdBy: z.string(),
  endedAt: z.string().nullable(),
  endedBy: z.string().nullable(),
  endReason: z.string().nullable(),
  url: z.string(),
});
export type WebhookQuarantine = z.infer<typeof WebhookQuarantine>;

const payloadHead = {
  id: z.string(),
  /** Until the cutover, the older spelling where one exists (the quarantine events have none). */
  event: AnyWebhookEventName,
  eventName: WebhookEventName.optional(),
  createdAt: z.string(),
  projectId: z.string(),
};

/** The delivered body of run.started and run.finished. `eventName` is present only before the cutover. */
export const WebhookPayload = z.object({ ...payloadHead, data: z.object({ run: WebhookRun }) });
export type WebhookPayload = z.infer<typeof WebhookPayload>;

/** The delivered body of the quarantine events. `eventName` is present only before the cutover. */
export const WebhookQuarantinePayload = z.object({
  ...payloadHead,
  data: z.object({ quarantine: WebhookQuarantine }),
});
export type WebhookQuarantinePayload = z.infer<typeof WebhookQuarantinePayload>;

/** The body of any subscribable event: `data.run` or `data.quarantine`, as the event says. */
export const AnyWebhookPayload = z.union([WebhookPayload, WebhookQuarantinePayload]);
export type AnyWebhookPayload = z.infer<typeof AnyWebhookPayload>;

const TAG = 'Webhooks';

/** Spec §4.9. Reads for any member; create, update and delete for owner or admin (gateway and service). */
export const webhookRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/webhooks',
    summary: 'List webhook subscriptions',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: WebhooksPath,
    query: WebhooksQuery,
    responses: { 200: { description: 'OK', schema: listEnvelope(Webhook) } },
  },
  {
    method: 'post',
    path: '/{projectId}/webhooks',
    summary: 'Create a webhook subscription (owner or admin); the answer carries its secret, once',
    description:
      'Event names may use either spelling until the cutover (11 December 2026); the older one is read back until then.',
    tag: TAG,
    security: 'bearer',
    roles: ADMIN_ROLES,
    params: WebhooksPath,
    body: CreateWebhookRequest,
    links: {
      getWebhook: {
        to: 'get /{projectId}/webhooks/{webhookId}',
        parameters: { webhookId: '$response.body#/data/id' },
      },
      updateWebhook: {
        to: 'patch /{projectId}/webhooks/{webhookId}',
        parameters: { webhookId: '$response.body#/data/id' },
      },
      testWebhook: {
        to: 'post /{projectId}/webhooks/{webhookId}/test',
        parameters: { webhookId: '$response.body#/data/id' },
      },
      deliveries: {
        to: 'get /{projectId}/webhooks/{webhookId}/deliveries',
        parameters: { webhookId: '$response.body#/data/id' },
      },
      deleteWebhook: {
        to: 'delete /{projectId}/webhooks/{webhookId}',
        parameters: { webhookId: '$response.body#/data/id' },
      },
    },
    responses: { 200: { description: 'Created', schema: successEnvelope(CreatedWebhook) } },
  },
  {
    method: 'get',
    path: '/{projectId}/webhooks/{webhookId}',
    summary: 'A webhook subscription',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: WebhookPath,
    responses: { 200: { description: 'OK', schema: successEnvelope(Webhook) } },
  },
  {
    method: 'patch',
    path: '/{projectId}/webhooks/{webhookId}',
    summary: 'Update a webhook subscription (owner or admin); active=true re-enables it',
    tag: TAG,
    security: 'bearer',
    roles: ADMIN_ROLES,
    params: WebhookPath,
    body: UpdateWebhookRequest,
    responses: { 200: { description: 'OK', schema: successEnvelope(Webhook) } },
  },
  {
    method: 'delete',
    path: '/{projectId}/webhooks/{webhookId}',
    summary: 'Delete a webhook subscription (owner or admin); its pending deliveries are dropped',
    tag: TAG,
    security: 'bearer',
    roles: ADMIN_ROLES,
    params: WebhookPath,
    responses: { 200: { description: 'Deleted', schema: successEnvelope(DeletedWebhook) } },
  },
  {
    method: 'post',
    path: '/{projectId}/webhooks/{webhookId}/test',
    summary: 'Send a test event to a webhook subscription (owner or admin); 202 with the queued delivery',
    description:
      'Queues one `webhook.test` delivery, signed and sent like the others (same headers, same signatures), ' +
      'with body `{id, event: "webhook.test", createdAt, projectId, data: {test: true, webhookId, projectId}}`. ' +
      'It is tried once (no retries), also on a paused or disabled subscription, and its outcome never ' +
      'counts toward the failures that disable a subscription. The delivery log shows its attempt.',
    tag: TAG,
    security: 'bearer',
    roles: ADMIN_ROLES,
    params: WebhookPath,
    responses: { 202: { description: 'Queued', schema: successEnvelope(QueuedTestDelivery) } },
  },
  {
    method: 'get',
    path: '/{projectId}/webhooks/{webhookId}/deliveries',
    summary: 'Delivery attempts of a subscription, newest first',
    tag: TAG,
    security: 'bearer',
    roles: READER_ROLES,
    params: WebhookPath,
    query: WebhookDeliveriesQuery,
    responses: { 200: { description: 'OK', schema: listEnvelope(WebhookDeliveryAttempt) } },
  },
]);
