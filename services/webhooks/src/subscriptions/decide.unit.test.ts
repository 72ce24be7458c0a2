import { given } from '@verdict/platform/testing';
import { MAX_CONSECUTIVE_FAILURES, subscriptionDecider } from './decide';
import {
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
} from './subscription';

const now = new Date('2026-03-01T10:00:00.000Z');
const at = now.toISOString();
const decider = subscriptionDecider('wh_1');
const target = {
  url: 'https://hooks.example.com/verdict',
  events: ['run.finished' as const],
  outcome: 'failed' as const,
  description: 'CI alerts',
};
const subscribed = WebhookSubscribed.of({
  ...target,
  webhookId: 'wh_1',
  projectId: 'p1',
  sealedSecret: 'v1:sealed',
  at: '2026-02-01T10:00:00.000Z',
});
const failed = (n: number) => WebhookDeliveryFailed.of({ deliveryId: `dlv_${n}`, at });
const failures = (count: number): SubscriptionEvent[] =>
  Array.from({ length: count }, (_, i) => failed(i + 1));
const delivery = (deliveryId: string, ok: boolean) => ({
  type: 'recordDelivery' as const,
  deliveryId,
  ok,
  now,
});
const update = (body: { active?: boolean; description?: string }) => ({
  type: 'update' as const,
  projectId: 'p1',
  set: body.description === undefined ? {} : { description: body.description },
  active: body.active,
  now,
});

describe('the webhook subscription decider (spec §3)', () => {
  it('when a project subscribes, then the subscription is active with its sealed secret and filters', () => {
    given(decider, [])
      .when({
        type: 'subscribe',
        webhookId: 'wh_1',
        projectId: 'p1',
        sealedSecret: 'v1:sealed',
        now,
        ...target,
      })
      .then([WebhookSubscribed.of({ ...subscribed.data, at })]);
  });

  it('when the same subscription is created twice, then the second is refused', () => {
    given(decider, [subscribed])
      .when({
        type: 'subscribe',
        webhookId: 'wh_1',
        projectId: 'p1',
        sealedSecret: 'v1:other',
        now,
        ...target,
      })
      .thenRefuses({ code: 'CONFLICT' });
  });

  it('when a delivery of an active subscription fails, then one more consecutive failure is counted', () => {
    given(decider, [subscribed, ...failures(3)])
      .when(delivery('dlv_4', false))
      .then([failed(4)]);
  });

  it('when an active subscription has 5 consecutive failed deliveries, then it is disabled', () => {
    given(decider, [subscribed, ...failures(MAX_CONSECUTIVE_FAILURES - 1)])
      .when(delivery('dlv_5', false))
      .then([failed(5), WebhookDisabled.of({ failureCount: 5, at })]);
  });

  it('when a delivery succeeds between failures, then the failures are no longer consecutive', () => {
    const cleared = WebhookFailuresCleared.of({ deliveryId: 'dlv_ok', at });
    given(decider, [subscribed, ...failures(4)])
      .when(delivery('dlv_ok', true))
      .then([cleared]);
    given(decider, [subscribed, ...failures(4), cleared])
      .when(delivery('dlv_5', false))
      .then([failed(5)]);
  });

  it('when a delivery succeeds and nothing has failed, then nothing is recorded', () => {
    given(decider, [subscribed]).when(delivery('dlv_ok', true)).then([]);
  });

  it('when a disabled subscription is updated with active = true, then it is active again and its failure count is cleared', () => {
    const disabled = [subscribed, ...failures(5), WebhookDisabled.of({ failureCount: 5, at })];
    given(decider, disabled)
      .when(update({ active: true }))
      .then([WebhookChanged.of({ set: {}, at }), WebhookActivated.of({ at })]);
    // Active again: five more failures in a row are needed to disable it.
    given(decider, [...disabled, WebhookActivated.of({ at })])
      .when(delivery('dlv_6', false))
      .then([failed(6)]);
  });

  it('when a paused subscription keeps failing deliveries in flight, then they are counted but do not disable it', () => {
    given(decider, [subscribed, WebhookPaused.of({ at }), ...failures(4)])
      .when(delivery('dlv_5', false))
      .then([failed(5)]);
  });

  it('when an owner sets active = false, then the subscription is paused with its count as it is', () => {
    given(decider, [subscribed, ...failures(2)])
      .when(update({ active: false, description: 'Paused for the migration' }))
      .then([
        WebhookChanged.of({ set: { description: 'Paused for the migration' }, at }),
        WebhookPaused.of({ at }),
      ]);
  });

  it('when a subscription of another project, a deleted one or none is updated or deleted, then it is not found', () => {
    given(decider, [])
      .when(update({ active: true }))
      .thenRefuses({ code: 'NOT_FOUND' });
    given(decider, [subscribed])
      .when({ ...update({}), projectId: 'p2' })
      .thenRefuses({ code: 'NOT_FOUND' });
    given(decider, [subscribed, WebhookDeleted.of({ at })])
      .when({ type: 'delete', projectId: 'p1', now })
      .thenRefuses({ code: 'NOT_FOUND' });
  });

  it('when a subscription is deleted, then its later delivery outcomes record nothing', () => {
    given(decider, [subscribed])
      .when({ type: 'delete', projectId: 'p1', now })
      .then([WebhookDeleted.of({ at })]);
    given(decider, [subscribed, WebhookDeleted.of({ at })])
      .when(delivery('dlv_1', false))
      .then([]);
  });

  it('when a row kept before event sourcing is imported, then it becomes the first event, once, in the state it was in', () => {
    const row = {
      ...target,
      webhookId: 'wh_1',
      projectId: 'p1',
      sealedSecret: 'v1:sealed',
      active: false,
      failureCount: 5,
      disabledAt: at,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: at,
      deletedAt: null,
    };
    const imported = WebhookImported.of(row);
    given(decider, []).when({ type: 'import', row }).then([imported]);
    given(decider, [imported]).when({ type: 'import', row }).then([]);
    // Imported disabled with 5 failures: re-enabling clears them as for any disabled subscription.
    given(decider, [imported])
      .when(update({ active: true }))
      .then([WebhookChanged.of({ set: {}, at }), WebhookActivated.of({ at })]);
    expect(decider.evolve(decider.initialState(), imported)).toEqual({
      status: 'disabled',
      webhookId: 'wh_1',
      projectId: 'p1',
      failureCount: 5,
    });
  });
});
