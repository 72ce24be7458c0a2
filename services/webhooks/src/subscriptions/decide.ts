/**
 * The commands of a webhook subscription, one pure function each, and its decider. What comes from
 * outside (the id, the sealed secret, the checked URL, the time) comes in the command.
 */
import type { WebhookEventName, WebhookOutcome } from '@verdict/contracts';
import { ConflictError, NotFoundError, type Decider } from '@verdict/platform';
import {
  evolve,
  initialState,
  parseSubscriptionEvent,
  WebhookActivated,
  WebhookChanged,
  WebhookDeleted,
  WebhookDeliveryFailed,
  WebhookDisabled,
  WebhookFailuresCleared,
  WebhookImported,
  WebhookPaused,
  WebhookSubscribed,
  type SubscriptionEvent,
  type SubscriptionState,
} from './subscription';

/**
 * Spec §3, §6: consecutive failed deliveries after which a subscription is disabled. A delivery fails when
 * its last attempt does; an attempt that is retried later decides nothing yet.
 */
export const MAX_CONSECUTIVE_FAILURES = 5;

interface Target {
  url: string;
  events: WebhookEventName[];
  outcome: WebhookOutcome;
  description: string;
}

export type SubscriptionCommand =
  | ({ type: 'subscribe'; webhookId: string; projectId: string; sealedSecret: string; now: Date } & Target)
  | { type: 'import'; row: ReturnType<typeof WebhookImported.of>['data'] }
  | { type: 'update'; projectId: string; set: Partial<Target>; active?: boolean | undefined; now: Date }
  | { type: 'recordDelivery'; deliveryId: string; ok: boolean; now: Date }
  | { type: 'delete'; projectId: string; now: Date };

type Existing = Extract<SubscriptionState, { projectId: string }>;

/** A subscription of another project is as absent as one never created: one project never sees another's. */
function requireExisting(state: SubscriptionState, projectId: string, webhookId: string): Existing {
  if (state.status === 'none' || state.status === 'deleted' || state.projectId !== projectId)
    throw new NotFoundError(`Webhook ${webhookId} not found`);
  return state;
}

export function subscribe(
  command: Extract<SubscriptionCommand, { type: 'subscribe' }>,
  state: SubscriptionState,
) {
  if (state.status !== 'none') throw new ConflictError(`Webhook ${command.webhookId} already exists`);
  const { type: _type, now, ...data } = command;
  return [WebhookSubscribed.of({ ...data, at: now.toISOString() })];
}

/** A row from before event sourcing becomes the stream's first event, once. */
export function importRow(
  command: Extract<SubscriptionCommand, { type: 'import' }>,
  state: SubscriptionState,
) {
  return state.status === 'none' ? [WebhookImported.of(command.row)] : [];
}

/** Spec §3: `active` = true re-enables and clears the count; pausing keeps the count as it is. */
export function update(
  command: Extract<SubscriptionCommand, { type: 'update' }>,
  state: SubscriptionState,
  webhookId: string,
) {
  requireExisting(state, command.projectId, webhookId);
  const at = command.now.toISOString();
  const events: SubscriptionEvent[] = [WebhookChanged.of({ set: command.set, at })];
  if (command.active === true) events.push(WebhookActivated.of({ at }));
  if (command.active === false) events.push(WebhookPaused.of({ at }));
  return events;
}

/**
 * A delivery's outcome. A failure counts one more, and the fifth in a row disables an active subscription;
 * a success after failures clears the count. A success on a clean count records nothing: most deliveries
 * succeed, and the stream keeps only what changes the state.
 */
export function recordDelivery(
  command: Extract<SubscriptionCommand, { type: 'recordDelivery' }>,
  state: SubscriptionState,
) {
  if (state.status === 'none' || state.status === 'deleted') return [];
  const { deliveryId } = command;
  const at = command.now.toISOString();
  if (command.ok) return state.failureCount === 0 ? [] : [WebhookFailuresCleared.of({ deliveryId, at })];
  const failureCount = state.failureCount + 1;
  const events: SubscriptionEvent[] = [WebhookDeliveryFailed.of({ deliveryId, at })];
  if (state.status === 'active' && failureCount >= MAX_CONSECUTIVE_FAILURES)
    events.push(WebhookDisabled.of({ failureCount, at }));
  return events;
}

export function remove(
  command: Extract<SubscriptionCommand, { type: 'delete' }>,
  state: SubscriptionState,
  webhookId: string,
) {
  requireExisting(state, command.projectId, webhookId);
  return [WebhookDeleted.of({ at: command.now.toISOString() })];
}

/**
 * The decider of one subscription's stream. `webhookId` names it in the errors of a stream that does not
 * exist (yet or any more).
 *
 * @example await commands.handle(subscriptionStream(id), subscriptionDecider(id), { type: 'delete', now }, { metadata: { projectId } });
 */
export function subscriptionDecider(
  webhookId: string,
): Decider<SubscriptionCommand, SubscriptionEvent, SubscriptionState> {
  return {
    initialState,
    evolve,
    parse: parseSubscriptionEvent,
    decide(command, state) {
      switch (command.type) {
        case 'subscribe':
          return subscribe(command, state);
        case 'import':
          return importRow(command, state);
        case 'update':
          return update(command, state, webhookId);
        case 'recordDelivery':
          return recordDelivery(command, state);
        case 'delete':
          return remove(command, state, webhookId);
      }
    },
  };
}
