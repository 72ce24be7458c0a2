/**
 * Subscriptions kept as rows before they were event-sourced become streams: at start, each row without a
 * stream gets one `webhook.imported` event holding the row as it stood (secret, filters, state, failure
 * count, deletion). The row itself is the read model already, and its queued deliveries stay queued. Safe
 * to run on every start and by several replicas at once: a stream that exists takes no second import.
 */
import { keptInstant, keptInstantOrNull, WebhookEventName, WebhookOutcome } from '@verdict/contracts';
import type { SqlExecutor } from '@verdict/platform';
import { rowsWithoutStream } from './subscriptionList';
import type { SubscriptionStore } from './subscriptionStore';

/** Imports every row that has no stream yet; resolves with how many it imported. */
export async function importRowsWithoutStream(
  db: SqlExecutor,
  schema: string,
  store: Pick<SubscriptionStore, 'handle'>,
): Promise<number> {
  let imported = 0;
  for (const row of await rowsWithoutStream(db, schema)) {
    const { events } = await store.handle(
      row.id,
      {
        type: 'import',
        row: {
          webhookId: row.id,
          projectId: row.project_id,
          url: row.url,
          events: row.events.map((name) => WebhookEventName.parse(name)),
          outcome: WebhookOutcome.parse(row.outcome),
          description: row.description,
          sealedSecret: row.sealed_secret,
          active: row.active,
          failureCount: Number(row.failure_count),
          disabledAt: keptInstantOrNull(row.disabled_at),
          createdAt: keptInstant(row.created_at),
          updatedAt: keptInstant(row.updated_at),
          deletedAt: keptInstantOrNull(row.deleted_at),
        },
      },
      { projectId: row.project_id, occurredAt: row.updated_at },
    );
    imported += events.length;
  }
  return imported;
}
