/**
 * The identity read model: organizations, projects, users, memberships and tokens as tables, fed by the
 * identity events from the bus. It answers the gateway's access checks (IdentityDirectory) with one
 * primary-key read each, and the admin API's existence checks. A token row keeps the hash of its secret,
 * never the cleartext. Every statement is idempotent on its own (insert-if-absent, keep the first
 * revocation), so applying an event twice changes nothing even without the projector's checkpoints.
 */
import {
  DEFAULT_BASE_BRANCH,
  parseIdentityEvent,
  type IdentityEvent,
  type MembershipRole,
  keptInstant,
  keptInstantOrNull,
  STORED_INTEGER_MAX,
} from '@verdict/contracts';
import type { Projection, SqlExecutor, StoredEvent } from '@verdict/platform';
import type { IdentityDirectory, ProjectRecord, Role, TokenRecord } from '../directory';
import { normalizeEmail } from '../users/user';

/** The default name of the projection, hence of the schema that holds its tables. */
export const IDENTITY_READ_MODEL = 'identity';

const PREPARED = { prepare: true } as const;

function tableDefinitions(schema: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${schema}.organizations (
       id text PRIMARY KEY,
       name text NOT NULL,
       plan_name text NOT NULL,
       test_case_limit integer NOT NULL,
       project_limit integer NOT NULL,
       period_start timestamptz,
       period_end timestamptz,
       created_at timestamptz NOT NULL
     )`,
    `CREATE TABLE IF NOT EXISTS ${schema}.projects (
       id text PRIMARY KEY,
       organization_id text NOT NULL,
       name text NOT NULL,
       allocation integer,
       created_at timestamptz NOT NULL
     )`,
    `CREATE INDEX IF NOT EXISTS projects_organization ON ${schema}.projects (organization_id)`,
    // A project's settings, once changed; a project without a row has the defaults.
    `CREATE TABLE IF NOT EXISTS ${schema}.project_settings (
       project_id text PRIMARY KEY,
       default_branch text NOT NULL,
       changed_at timestamptz NOT NULL
     )`,
    `CREATE TABLE IF NOT EXISTS ${schema}.users (
       id text PRIMARY KEY,
       email text NOT NULL,
       email_normalized text NOT NULL UNIQUE,
       first_name text NOT NULL,
       last_name text NOT NULL,
       created_at timestamptz NOT NULL
     )`,
    `CREATE TABLE IF NOT EXISTS ${schema}.memberships (
       organization_id text NOT NULL,
       user_id text NOT NULL,
       role text NOT NULL,
       updated_at timestamptz NOT NULL,
       PRIMARY KEY (organization_id, user_id)
     )`,
    `CREATE INDEX IF NOT EXISTS memberships_user ON ${schema}.memberships (user_id)`,
    `CREATE TABLE IF NOT EXISTS ${schema}.tokens (
       id text PRIMARY KEY,
       kind text NOT NULL,
       name text,
       owner_user_id text NOT NULL,
       project_ids text[] NOT NULL,
       scopes text[] NOT NULL,
       secret_hash text NOT NULL,
       created_at timestamptz NOT NULL,
       expires_at timestamptz,
       revoked_at timestamptz
     )`,
    `CREATE INDEX IF NOT EXISTS tokens_owner ON ${schema}.tokens (owner_user_id)`,
  ];
}

async function applyEvent(tx: SqlExecutor, schema: string, event: IdentityEvent): Promise<void> {
  switch (event.type) {
    case 'organization.created': {
      const { organizationId, name, plan, createdAt } = event.data;
      await tx.query(
        `INSERT INTO ${schema}.organizations
           (id, name, plan_name, test_case_limit, project_limit, period_start, period_end, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING`,
        [
          organizationId,
          name,
          plan.name,
          // Events recorded before these were bounded may hold more than the column takes: a limit that
          // large means no limit, and the largest the column holds says the same.
          Math.min(plan.testCaseLimit, STORED_INTEGER_MAX),
          Math.min(plan.projectLimit, STORED_INTEGER_MAX),
          keptInstantOrNull(plan.periodStart),
          keptInstantOrNull(plan.periodEnd),
          createdAt,
        ],
      );
      return;
    }
    case 'project.created': {
      const { projectId, organizationId, name, allocation, createdAt } = event.data;
      await tx.query(
        `INSERT INTO ${schema}.projects (id, organization_id, name, allocation, created_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
        [
          projectId,
          organizationId,
          name,
          allocation === null ? null : Math.min(allocation, STORED_INTEGER_MAX),
          createdAt,
        ],
      );
      return;
    }
    case 'project.settings-changed': {
      const { projectId, defaultBranch, changedAt } = event.data;
      // The latest change wins, whatever order a replay brings them in.
      await tx.query(
        `INSERT INTO ${schema}.project_settings (project_id, default_branch, changed_at) VALUES ($1, $2, $3)
         ON CONFLICT (project_id) DO UPDATE SET default_branch = EXCLUDED.default_branch,
           changed_at = EXCLUDED.changed_at
         WHERE project_settings.changed_at <= EXCLUDED.changed_at`,
        [projectId, defaultBranch, changedAt],
      );
      return;
    }
    case 'membership.set': {
      const { organizationId, userId, role, setAt } = event.data;
      await tx.query(
        `INSERT INTO ${schema}.memberships (organization_id, user_id, role, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (organization_id, user_id) DO UPDATE SET role = EXCLUDED.role, updated_at = EXCLUDED.updated_at`,
        [organizationId, userId, role, setAt],
      );
      return;
    }
    case 'user.created': {
      const { userId, email, firstName, lastName, createdAt } = event.data;
      await tx.query(
        `INSERT INTO ${schema}.users (id, email, email_normalized, first_name, last_name, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
        [userId, email, normalizeEmail(email), firstName, lastName, createdAt],
      );
      return;
    }
    case 'token.issued': {
      const { tokenId, kind, name, ownerUserId, projectIds, scopes, secretHash, expiresAt, createdAt } =
        event.data;
      await tx.query(
        `INSERT INTO ${schema}.tokens
           (id, kind, name, owner_user_id, project_ids, scopes, secret_hash, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5::text[], $6::text[], $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
        [tokenId, kind, name, ownerUserId, projectIds, scopes, secretHash, createdAt, expiresAt],
      );
      return;
    }
    case 'token.revoked':
      // The first revocation is the one that counts.
      await tx.query(`UPDATE ${schema}.tokens SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1`, [
        event.data.tokenId,
        event.data.revokedAt,
      ]);
      return;
  }
}

/**
 * The projection, for createProjector. An event that is not an identity event fails the batch, so the
 * bus dead-letters it with the error instead of the model silently skipping it.
 *
 * @example const projector = createProjector({ db, projection: identityProjection(), logger });
 */
export function identityProjection(name: string = IDENTITY_READ_MODEL): Projection {
  return {
    name,
    async setup(tx, schema) {
      for (const statement of tableDefinitions(schema)) await tx.query(statement);
    },
    async apply(tx, events: StoredEvent[], schema) {
      for (const event of events) await applyEvent(tx, schema, parseIdentityEvent(event));
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Queries

export interface UserRecord {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  createdAt: string;
}

/** The directory of the access checks plus the lookups the admin API and the seeding need. */
export interface IdentityReadModel extends IdentityDirectory {
  findUser(userId: string): Promise<UserRecord | null>;
  /** The names of the organizations among `ids` that exist, by id. */
  organizationNames(ids: readonly string[]): Promise<Map<string, string>>;
  /** True once any organization exists; the demo seeding runs only before that. */
  hasOrganizations(): Promise<boolean>;
}

/** A timestamp as a driver returns it: a Date (pg), or a string (a JSON aggregate). */
export type Timestamp = Date | string;

export interface TokenRow {
  id: string;
  kind: 'personal' | 'project';
  name: string | null;
  owner_user_id: string;
  project_ids: string[];
  scopes: string[];
  secret_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  owner_roles?: Record<string, MembershipRole> | null;
}

interface ProjectRow {
  id: string;
  name: string;
  organization_id: string;
}

export interface UserRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  created_at: Timestamp;
}

export function tokenOfRow(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    ownerUserId: row.owner_user_id,
    projectIds: row.project_ids,
    scopes: row.scopes,
    secretHash: row.secret_hash,
    createdAt: keptInstant(row.created_at),
    expiresAt: keptInstantOrNull(row.expires_at),
    revokedAt: keptInstantOrNull(row.revoked_at),
    ...(row.owner_roles ? { ownerRoles: row.owner_roles } : {}),
  };
}

/**
 * The identity directory over the read model in `schema`: each answer is one indexed read, so it can sit
 * on every authenticated request.
 *
 * @example const directory = createSqlIdentityDirectory(db, 'identity'); const token = await directory.findToken(id);
 */
export function createSqlIdentityDirectory(
  db: SqlExecutor,
  schema: string = IDENTITY_READ_MODEL,
): IdentityReadModel {
  if (!/^[a-z][a-z0-9_]{0,40}$/.test(schema)) throw new TypeError(`Not a projection schema name: ${schema}`);
  // The owner's memberships come along: authorization then needs no second round trip.
  const findTokenText = `SELECT t.id, t.kind, t.name, t.owner_user_id, t.project_ids, t.scopes, t.secret_hash,
      t.created_at, t.expires_at, t.revoked_at,
      (SELECT coalesce(json_object_agg(m.organization_id, m.role), '{}'::json)
         FROM ${schema}.memberships m WHERE m.user_id = t.owner_user_id) AS owner_roles
      FROM ${schema}.tokens t WHERE t.id = $1`;
  const findProjectText = `SELECT id, name, organization_id FROM ${schema}.projects WHERE id = $1`;
  const roleOfText = `SELECT role FROM ${schema}.memberships WHERE user_id = $1 AND organization_id = $2`;

  return {
    async findToken(tokenId) {
      const { rows } = await db.query<TokenRow>(findTokenText, [tokenId], PREPARED);
      return rows[0] ? tokenOfRow(rows[0]) : null;
    },
    async findProject(projectId): Promise<ProjectRecord | null> {
      const { rows } = await db.query<ProjectRow>(findProjectText, [projectId], PREPARED);
      const row = rows[0];
      return row ? { id: row.id, name: row.name, organizationId: row.organization_id } : null;
    },
    async defaultBranchOf(projectId) {
      const { rows } = await db.query<{ default_branch: string }>(
        `SELECT default_branch FROM ${schema}.project_settings WHERE project_id = $1`,
        [projectId],
        PREPARED,
      );
      return rows[0]?.default_branch ?? DEFAULT_BASE_BRANCH;
    },
    async roleOf(userId, organizationId): Promise<Role | null> {
      const { rows } = await db.query<{ role: MembershipRole }>(
        roleOfText,
        [userId, organizationId],
        PREPARED,
      );
      return rows[0]?.role ?? null;
    },
    async findUser(userId) {
      const { rows } = await db.query<UserRow>(
        `SELECT id, email, first_name, last_name, created_at FROM ${schema}.users WHERE id = $1`,
        [userId],
      );
      const row = rows[0];
      return row
        ? {
            id: row.id,
            email: row.email,
            firstName: row.first_name,
            lastName: row.last_name,
            createdAt: keptInstant(row.created_at),
          }
        : null;
    },
    async organizationNames(ids) {
      if (ids.length === 0) return new Map();
      const { rows } = await db.query<{ id: string; name: string }>(
        `SELECT id, name FROM ${schema}.organizations WHERE id = ANY($1::text[])`,
        [[...ids]],
      );
      return new Map(rows.map((row) => [row.id, row.name]));
    },
    async hasOrganizations() {
      const { rows } = await db.query<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${schema}.organizations) AS found`,
      );
      return rows[0]?.found === true;
    },
  };
}
