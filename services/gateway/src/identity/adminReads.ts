/**
 * The admin API's reads over the identity read model: organizations (with their projects and members),
 * users and tokens, listed oldest first. A token is listed by its metadata; its secret's hash never leaves
 * the read model.
 */
import { keptInstant, keptInstantOrNull } from '@verdict/contracts';
import type {
  AdminOrganization,
  AdminOrganizationDetail,
  AdminTokenRecord,
  AdminTokensQuery,
  AdminUser,
  AdminUsersQuery,
  MembershipRole,
} from '@verdict/contracts';
import type { SqlExecutor } from '@verdict/platform';
import {
  type Timestamp as Time,
  tokenOfRow,
  type TokenRow,
  type UserRow,
} from './projections/identityReadModel';
import { normalizeEmail } from './users/user';

export interface Page<T> {
  items: T[];
  total: number;
}

export interface AdminReads {
  organizations(page: number, limit: number): Promise<Page<AdminOrganization>>;
  organization(organizationId: string): Promise<AdminOrganizationDetail | null>;
  users(query: AdminUsersQuery): Promise<Page<AdminUser>>;
  tokens(query: AdminTokensQuery): Promise<Page<AdminTokenRecord>>;
  /** A person's own personal tokens, newest first (their list in the web app). */
  personalTokensOf(userId: string, page: number, limit: number): Promise<Page<AdminTokenRecord>>;
}

/** The hash of the secret stays in the read model: a listing never carries it. */
function listedToken(row: TokenRow): AdminTokenRecord {
  const { secretHash: _secretHash, ownerRoles: _ownerRoles, ...record } = tokenOfRow(row);
  return record;
}

const TOKEN_COLUMNS = `id, kind, name, owner_user_id, project_ids, scopes, secret_hash, created_at, expires_at,
  revoked_at, count(*) OVER ()::int AS total`;

interface OrganizationRow {
  id: string;
  name: string;
  plan_name: string;
  test_case_limit: number;
  project_limit: number;
  period_start: Time | null;
  period_end: Time | null;
  created_at: Time;
  total: number;
}

const organizationOf = (row: OrganizationRow): AdminOrganization => ({
  id: row.id,
  name: row.name,
  plan: {
    name: row.plan_name,
    testCaseLimit: row.test_case_limit,
    projectLimit: row.project_limit,
    periodStart: keptInstantOrNull(row.period_start),
    periodEnd: keptInstantOrNull(row.period_end),
  },
  createdAt: keptInstant(row.created_at),
});

/** `count(*) OVER ()` rides along each row; a page past the end has no row, so its total is asked apart. */
async function paged<Row extends { total: number }, T>(
  db: SqlExecutor,
  text: string,
  params: unknown[],
  page: number,
  limit: number,
  map: (row: Row) => T,
): Promise<Page<T>> {
  const { rows } = await db.query<Row>(`${text} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [
    ...params,
    limit,
    (page - 1) * limit,
  ]);
  if (rows.length > 0 || page === 1) return { items: rows.map(map), total: rows[0]?.total ?? 0 };
  const { rows: counted } = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM (${text}) listed`,
    params,
  );
  return { items: [], total: counted[0]?.total ?? 0 };
}

/** @example const reads = createAdminReads(db, 'identity'); await reads.users({ page: 1, limit: 20 }); */
export function createAdminReads(db: SqlExecutor, schema: string): AdminReads {
  return {
    organizations(page, limit) {
      return paged<OrganizationRow, AdminOrganization>(
        db,
        `SELECT *, count(*) OVER ()::int AS total FROM ${schema}.organizations ORDER BY created_at, id`,
        [],
        page,
        limit,
        organizationOf,
      );
    },
    async organization(organizationId) {
      const { rows } = await db.query<OrganizationRow>(
        `SELECT *, 1 AS total FROM ${schema}.organizations WHERE id = $1`,
        [organizationId],
      );
      const row = rows[0];
      if (!row) return null;
      const [projects, members] = await Promise.all([
        db.query<{ id: string; name: string; allocation: number | null; created_at: Time }>(
          `SELECT id, name, allocation, created_at FROM ${schema}.projects WHERE organization_id = $1
           ORDER BY created_at, id`,
          [organizationId],
        ),
        db.query<{ user_id: string; role: MembershipRole; updated_at: Time }>(
          `SELECT user_id, role, updated_at FROM ${schema}.memberships WHERE organization_id = $1
           ORDER BY updated_at, user_id`,
          [organizationId],
        ),
      ]);
      return {
        ...organizationOf(row),
        projects: projects.rows.map((project) => ({
          id: project.id,
          name: project.name,
          organizationId,
          allocation: project.allocation,
          createdAt: keptInstant(project.created_at),
        })),
        members: members.rows.map((member) => ({
          userId: member.user_id,
          role: member.role,
          updatedAt: keptInstant(member.updated_at),
        })),
      };
    },
    users(query) {
      const params = query.email === undefined ? [] : [normalizeEmail(query.email)];
      return paged<UserRow & { total: number }, AdminUser>(
        db,
        `SELECT id, email, first_name, last_name, created_at, count(*) OVER ()::int AS total FROM ${schema}.users
         ${params.length > 0 ? 'WHERE email_normalized = $1' : ''} ORDER BY created_at, id`,
        params,
        query.page,
        query.limit,
        (row) => ({
          id: row.id,
          email: row.email,
          firstName: row.first_name,
          lastName: row.last_name,
          createdAt: keptInstant(row.created_at),
        }),
      );
    },
    tokens(query) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (query.userId !== undefined) {
        params.push(query.userId);
        where.push(`owner_user_id = $${params.length}`);
      }
      if (query.projectId !== undefined) {
        params.push(query.projectId);
        where.push(`$${params.length} = ANY(project_ids)`);
      }
      return paged<TokenRow & { total: number }, AdminTokenRecord>(
        db,
        `SELECT ${TOKEN_COLUMNS}
         FROM ${schema}.tokens ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, id`,
        params,
        query.page,
        query.limit,
        listedToken,
      );
    },
    personalTokensOf(userId, page, limit) {
      return paged<TokenRow & { total: number }, AdminTokenRecord>(
        db,
        `SELECT ${TOKEN_COLUMNS} FROM ${schema}.tokens WHERE owner_user_id = $1 AND kind = 'personal'
         ORDER BY created_at DESC, id DESC`,
        [userId],
        page,
        limit,
        listedToken,
      );
    },
  };
}
