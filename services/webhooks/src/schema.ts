/**
 * The webhooks service's own tables. Subscriptions and the delivery queue live together so that an
 * attempt's outcome, the retry it schedules and the subscription's failure count commit in one
 * transaction. The queue is claimed with FOR UPDATE SKIP LOCKED plus a lease (`next_attempt_at` moved past
 * the send), so replicas never take the same delivery and a crashed sender's delivery comes back.
 */
import { createSharedObjects, type SqlDatabase } from '@verdict/platform';

export const WEBHOOKS_SCHEMA = 'webhooks';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function assertIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`Not a schema name: ${name}`);
  return name;
}

export async function createWebhookTables(db: SqlDatabase, schema: string): Promise<void> {
  assertIdentifier(schema);
  // Replicas may start at once.
  await createSharedObjects(db, `schema:${schema}`, async (tx) => {
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.subscriptions (
         id text PRIMARY KEY,
         project_id text NOT NULL,
         url text NOT NULL,
         events text[] NOT NULL,
         outcome text NOT NULL,
         description text NOT NULL,
         active boolean NOT NULL,
         failure_count integer NOT NULL DEFAULT 0,
         disabled_at timestamptz,
         sealed_secret text NOT NULL,
         created_at timestamptz NOT NULL,
         updated_at timestamptz NOT NULL,
         deleted_at timestamptz
       )`,
    );
    await tx.query(
      `CREATE INDEX IF NOT EXISTS subscriptions_project ON ${schema}.subscriptions (project_id, created_at, id)
       WHERE deleted_at IS NULL`,
    );
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.deliveries (
         id text PRIMARY KEY,
         subscription_id text NOT NULL,
         project_id text NOT NULL,
         source_event_id text NOT NULL,
         event_name text NOT NULL,
         run_json text NOT NULL,
         occurred_at timestamptz NOT NULL,
         status text NOT NULL,
         attempts integer NOT NULL DEFAULT 0,
         next_attempt_at timestamptz,
         lease text,
         created_at timestamptz NOT NULL,
         UNIQUE (subscription_id, source_event_id)
       )`,
    );
    await tx.query(
      `CREATE INDEX IF NOT EXISTS deliveries_due ON ${schema}.deliveries (next_attempt_at)
       WHERE status = 'pending'`,
    );
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.delivery_attempts (
         id text PRIMARY KEY,
         delivery_id text NOT NULL,
         subscription_id text NOT NULL,
         attempt integer NOT NULL,
         status text NOT NULL,
         status_code integer,
         response_time_ms integer,
         error text,
         attempted_at timestamptz NOT NULL,
         next_attempt_at timestamptz,
         UNIQUE (delivery_id, attempt)
       )`,
    );
    await tx.query(
      `CREATE INDEX IF NOT EXISTS delivery_attempts_subscription
         ON ${schema}.delivery_attempts (subscription_id, attempted_at DESC)`,
    );
  });
}
