/**
 * The members of each organization, as the identity topic announces them (membership.set): a quarantine's
 * owner must be one. Applied from the bus only (identity is the gateway's store), so a member added a
 * moment ago may not be known yet; an upsert, so applying an event again changes nothing.
 */
import { MembershipSet } from '@verdict/contracts';
import type { Projection, SqlExecutor } from '@verdict/platform';

/** @example createProjector({ db, projections: [membersProjection('test_results_read_members'), …], … }); */
export function membersProjection(name: string): Projection {
  return {
    name,
    canHandle: ['membership.set'],
    async setup(tx, s) {
      await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.members (
        organization_id text NOT NULL, user_id text NOT NULL, role text NOT NULL,
        PRIMARY KEY (organization_id, user_id))`);
    },
    async apply(tx, events, s) {
      for (const stored of events) {
        const { organizationId, userId, role } = MembershipSet.parse(stored);
        await tx.query(
          `INSERT INTO ${s}.members (organization_id, user_id, role) VALUES ($1, $2, $3)
           ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
          [organizationId, userId, role],
        );
      }
    },
  };
}

/**
 * Whether the user is a member of the organization.
 *
 * @example if (!(await isMember(db, schemas.members, ctx.organizationId, body.ownerId))) throw …;
 */
export async function isMember(
  db: SqlExecutor,
  schema: string,
  organizationId: string,
  userId: string,
): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM ${schema}.members WHERE organization_id = $1 AND user_id = $2`,
    [organizationId, userId],
  );
  return rows.length > 0;
}
