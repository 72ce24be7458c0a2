/**
 * The user directory: the users and organization memberships the identity topic announces, so answers
 * show people (`createdBy`, `assignee`) and an assignee given by e-mail resolves to a member. Every
 * statement is an upsert: applying an event again changes nothing.
 */
import { parseIdentityEvent, type ManualUser } from '@verdict/contracts';
import type { Projection, SqlExecutor } from '@verdict/platform';
import type { ManualReadStore } from '../shared/readStore';

const HANDLED = ['user.created', 'membership.set'];

async function setup(tx: SqlExecutor, s: string) {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.users (
    user_id text PRIMARY KEY, email text NOT NULL, email_norm text NOT NULL,
    first_name text NOT NULL, last_name text NOT NULL)`);
  await tx.query(`CREATE INDEX IF NOT EXISTS users_email ON ${s}.users (email_norm)`);
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.memberships (
    organization_id text NOT NULL, user_id text NOT NULL, role text NOT NULL,
    PRIMARY KEY (organization_id, user_id))`);
}

/** @example createProjector({ db, projections: [userDirectoryProjection('manual_testing_read_users'), …], … }); */
export function userDirectoryProjection(name: string): Projection {
  return {
    name,
    canHandle: HANDLED,
    setup,
    async apply(tx, events, s) {
      for (const envelope of events) {
        const event = parseIdentityEvent({
          type: envelope.type,
          version: envelope.version,
          data: envelope.data,
        });
        if (event.type === 'user.created') {
          const d = event.data;
          await tx.query(
            `INSERT INTO ${s}.users (user_id, email, email_norm, first_name, last_name) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (user_id) DO UPDATE SET email = EXCLUDED.email, email_norm = EXCLUDED.email_norm,
               first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name`,
            [d.userId, d.email, d.email.trim().toLowerCase(), d.firstName, d.lastName],
          );
        } else if (event.type === 'membership.set') {
          await tx.query(
            `INSERT INTO ${s}.memberships (organization_id, user_id, role) VALUES ($1, $2, $3)
             ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
            [event.data.organizationId, event.data.userId, event.data.role],
          );
        }
      }
    },
  };
}

export async function usersByIds(
  store: ManualReadStore,
  ids: (string | null)[],
): Promise<Map<string, ManualUser>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return new Map();
  const { rows } = await store.db.query<{
    user_id: string;
    email: string;
    first_name: string;
    last_name: string;
  }>(
    `SELECT user_id, email, first_name, last_name FROM ${store.schemas.users}.users WHERE user_id = ANY($1::text[])`,
    [wanted],
  );
  return new Map(
    rows.map((r) => [
      r.user_id,
      { _id: r.user_id, firstName: r.first_name, lastName: r.last_name, email: r.email },
    ]),
  );
}

/** The user an id or an e-mail names among the organization's members; null when none does. */
export async function memberUserId(
  store: ManualReadStore,
  organizationId: string,
  ref: string,
): Promise<string | null> {
  const s = store.schemas.users;
  const { rows } = await store.db.query<{ user_id: string }>(
    `SELECT u.user_id FROM ${s}.users u
     JOIN ${s}.memberships m ON m.user_id = u.user_id AND m.organization_id = $1
     WHERE u.user_id = $2 OR u.email_norm = lower(trim($2)) LIMIT 1`,
    [organizationId, ref],
  );
  return rows[0]?.user_id ?? null;
}

/** A user by id, shown with empty names when the directory does not know it (yet). */
export const userOf = (users: Map<string, ManualUser>, id: string | null): ManualUser | null =>
  id === null ? null : (users.get(id) ?? { _id: id, firstName: '', lastName: '', email: '' });

/** SQL: the user of a joined `users` row (`alias`) as the contract's ManualUser object, or NULL. */
export const userJson = (alias: string) =>
  `CASE WHEN ${alias}.user_id IS NULL THEN NULL ELSE jsonb_build_object('_id', ${alias}.user_id,
     'firstName', ${alias}.first_name, 'lastName', ${alias}.last_name, 'email', ${alias}.email) END`;
