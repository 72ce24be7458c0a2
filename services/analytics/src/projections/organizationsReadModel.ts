/**
 * Organizations (with their plan) and projects (with their allocation), fed by the identity events, for
 * usage. Upserts by id, so an event applied twice changes nothing; other identity events are skipped.
 */
import { parseIdentityEvent, STORED_INTEGER_MAX } from '@verdict/contracts';
import type { Projection } from '@verdict/platform';

export const ORGANIZATIONS_READ_MODEL = 'analytics_organizations';

/**
 * @example const projector = createProjector({ db, projection: organizationsProjection(), logger });
 */
export function organizationsProjection(name: string = ORGANIZATIONS_READ_MODEL): Projection {
  return {
    name,
    async setup(tx, s) {
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${s}.organizations (
           id text PRIMARY KEY,
           name text NOT NULL,
           plan jsonb NOT NULL,
           created_at timestamptz NOT NULL
         )`,
      );
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${s}.projects (
           id text PRIMARY KEY,
           organization_id text NOT NULL,
           name text NOT NULL,
           allocation integer,
           created_at timestamptz NOT NULL
         )`,
      );
      await tx.query(`CREATE INDEX IF NOT EXISTS projects_organization ON ${s}.projects (organization_id)`);
    },
    async apply(tx, events, s) {
      for (const stored of events) {
        const event = parseIdentityEvent(stored);
        if (event.type === 'organization.created') {
          const d = event.data;
          await tx.query(
            `INSERT INTO ${s}.organizations (id, name, plan, created_at) VALUES ($1, $2, $3::jsonb, $4)
             ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, plan = EXCLUDED.plan`,
            [d.organizationId, d.name, JSON.stringify(d.plan), d.createdAt],
          );
        } else if (event.type === 'project.created') {
          const d = event.data;
          await tx.query(
            `INSERT INTO ${s}.projects (id, organization_id, name, allocation, created_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, allocation = EXCLUDED.allocation`,
            [
              d.projectId,
              d.organizationId,
              d.name,
              d.allocation === null ? null : Math.min(d.allocation, STORED_INTEGER_MAX),
              d.createdAt,
            ],
          );
        }
      }
    },
  };
}
