/**
 * The event store of the subscription streams: in the service's schema, beside their read model, which
 * its inline projection writes in the transaction of each append.
 */
import {
  createCommandHandler,
  createSqlEventStore,
  joinTransaction,
  type Clock,
  type CommandHandler,
  type SqlDatabase,
  type SqlExecutor,
} from '@verdict/platform';
import { projectSubscriptions } from './subscriptionList';

export interface SubscriptionStore {
  init(): Promise<void>;
  /** Commands on subscriptions, each in a transaction of its own. */
  commands: CommandHandler;
  /** Commands inside a transaction already open: their events commit with its other statements. */
  within(tx: SqlExecutor): CommandHandler;
}

export function createSubscriptionStore(db: SqlDatabase, schema: string, clock: Clock): SubscriptionStore {
  const storeOn = (database: SqlDatabase) =>
    createSqlEventStore({ db: database, schema, clock, inline: projectSubscriptions(schema) });
  const store = storeOn(db);
  return {
    init: () => store.init(),
    commands: createCommandHandler({ store }),
    within: (tx) => createCommandHandler({ store: storeOn(joinTransaction(db, tx)) }),
  };
}
