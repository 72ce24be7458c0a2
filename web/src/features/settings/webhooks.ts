/** Webhook values the settings page shows: event names, the outcome condition, delivery attempts. */
import type { WebhookDelivery } from '../../api/queries';

export const EVENTS = ['run.started', 'run.finished'] as const;
export type Outcome = 'any' | 'failed' | 'passed';

/** Both spellings of spec §6 read as the current one. */
export const currentName = (event: string) =>
  event === 'RUN_STARTED' ? 'run.started' : event === 'RUN_FINISHED' ? 'run.finished' : event;

/** The latest attempt of one delivery in a log (newest first). */
export function attemptOf(log: WebhookDelivery[] | undefined, deliveryId: string | null) {
  return deliveryId === null ? undefined : log?.find((attempt) => attempt.deliveryId === deliveryId);
}

type Attempt = Pick<WebhookDelivery, 'status' | 'statusCode' | 'responseTimeMs' | 'error'>;

/** What became of a test event: queued until its attempt is made, then delivered or failed. */
export function testOutcomeOf(attempt: Attempt | undefined): { text: string; failed: boolean } {
  if (attempt === undefined || attempt.status === 'pending')
    return { text: 'Test event queued…', failed: false };
  if (attempt.status === 'succeeded')
    return {
      text: `Test event delivered: ${attempt.statusCode ?? ''} in ${attempt.responseTimeMs ?? 0} ms`,
      failed: false,
    };
  return {
    text: `Test event failed: ${attempt.statusCode ?? attempt.error ?? 'no answer'}`,
    failed: attempt.status === 'failed',
  };
}

/** The run status badge that stands for an attempt's status. */
export const attemptBadge = (status: WebhookDelivery['status']) =>
  status === 'succeeded' ? 'passed' : status === 'failed' ? 'failed' : 'running';
