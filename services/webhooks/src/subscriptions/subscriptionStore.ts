/**
 * The event store of the subscription streams: in the service's schema, beside their read model, which
 * its inline projection writes in the transaction of each append. Every command on a subscription first
 * locks its row, so its writers (an owner's update, the outcomes of its deliveries) take turns instead of
 * racing for the stream's next version, and take the row before any of its deliveries' rows.
 */
import {
  createCommandHandler,
  createSqlEventStore,
  joinTransaction,
  type Clock,
  type HandleCommandResult,
  type SqlDatabase,
  type SqlExecutor,
} from '@verdict/platform';
import { subscriptionDecider, type SubscriptionCommand } from './decide';
import { subscriptionStream, type SubscriptionState } from './subscription';
import { projectSubscriptions } from './subscriptionList';

export interface SubscriptionStore {
  init(): Promise<void>;
  /**
   * Decides `command` on subscription `webhookId` and appends what it decides, in `tx` when given (its
   * events then commit with the other statements of that transaction), in a transaction of its own if not.
   */
  handle(
    webhookId: string,
    command: SubscriptionCommand,
    options: { projectId: string; tx?: SqlExecutor; occurredAt?: Date },
  ): Promise<HandleCommandResult<SubscriptionState>>;
}

/** Locks a subscription's row (none yet for a new one): see the file's comment. */
export async function lockSubscription(tx: SqlExecutor, schema: string, webhookId: string): Promise<void> {
  await tx.query(`SELECT 1 FROM ${schema}.subscriptions WHERE id = $1 FOR UPDATE`, [webhookId]);
}

export function createSubscriptionStore(db: SqlDatabase, schema: string, clock: Clock): SubscriptionStore {
  const store = createSqlEventStore({ db, schema, clock, inline: projectSubscriptions(schema) });

  async function handleIn(
    tx: SqlExecutor,
    webhookId: string,
    command: SubscriptionCommand,
    metadata: object,
  ) {
    await lockSubscription(tx, schema, webhookId);
    const within = createSqlEventStore({
      db: joinTransaction(db, tx),
      schema,
      clock,
      inline: projectSubscriptions(schema),
    });
    // The row lock leaves no race to lose: a conflict would be a bug, not a reason to try again.
    return createCommandHandler({ store: within }).handle(
      subscriptionStream(webhookId),
      subscriptionDecider(webhookId),
      command,
      { metadata, retries: 0 },
    );
  }

  return {
    init: () => store.init(),
    handle(webhookId, command, { tx, ...metadata }) {
      if (tx) return handleIn(tx, webhookId, command, metadata);
      return db.transaction((own) => handleIn(own, webhookId, command, metadata));
    },
  };
}
