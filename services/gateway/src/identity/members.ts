/**
 * GET /{projectId}/members: the people of a project's organization with their role, by name, for the
 * assignee pickers of manual runs and exploratory sessions. Read from the identity read model, which owns
 * memberships; any member may read it.
 */
import { Router } from 'express';
import {
  paginationOf,
  projectMemberRoutes,
  type MembershipRole,
  type ProjectMember,
  type ProjectMembersQuery,
} from '@verdict/contracts';
import { bindRoutes, registerRoutes, reply, type SqlExecutor } from '@verdict/platform';
import type { Page } from './adminReads';

export interface MemberReads {
  membersOf(organizationId: string, query: ProjectMembersQuery): Promise<Page<ProjectMember>>;
}

interface MemberRow {
  user_id: string;
  first_name: string;
  last_name: string;
  email: string;
  role: MembershipRole;
  total: number;
}

/** `%`, `_` and `\` are the pattern's own: a name with them is looked for as written. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** @example const members = createMemberReads(db, 'identity'); await members.membersOf(orgId, { page: 1, limit: 20 }); */
export function createMemberReads(db: SqlExecutor, schema: string): MemberReads {
  return {
    async membersOf(organizationId, { page, limit, q }) {
      const params: unknown[] = [organizationId];
      let where = 'm.organization_id = $1';
      if (q !== undefined) {
        params.push(likePattern(q));
        where += ` AND (u.first_name ILIKE $2 OR u.last_name ILIKE $2 OR u.email ILIKE $2
          OR (u.first_name || ' ' || u.last_name) ILIKE $2)`;
      }
      const { rows } = await db.query<MemberRow>(
        `SELECT m.user_id, u.first_name, u.last_name, u.email, m.role, count(*) OVER ()::int AS total
         FROM ${schema}.memberships m JOIN ${schema}.users u ON u.id = m.user_id
         WHERE ${where}
         ORDER BY lower(u.first_name), lower(u.last_name), lower(u.email), m.user_id
         LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, limit, (page - 1) * limit],
      );
      let total = rows[0]?.total ?? 0;
      if (rows.length === 0 && page > 1) {
        const { rows: counted } = await db.query<{ total: number }>(
          `SELECT count(*)::int AS total FROM ${schema}.memberships m JOIN ${schema}.users u ON u.id = m.user_id
           WHERE ${where}`,
          params,
        );
        total = counted[0]?.total ?? 0;
      }
      return {
        items: rows.map((row) => ({
          userId: row.user_id,
          firstName: row.first_name,
          lastName: row.last_name,
          email: row.email,
          role: row.role,
        })),
        total,
      };
    },
  };
}

/**
 * The members route; mount it under each API prefix after the access chain.
 *
 * @example api.use(accessChain, createMembersRouter(identity.members));
 */
export function createMembersRouter(members: MemberReads): Router {
  const router = Router();
  const routes = bindRoutes(
    projectMemberRoutes,
    {
      'get /{projectId}/members': async ({ query }, { res }) => {
        const access = res.locals.access;
        if (access === undefined) throw new Error('authorize() must run before the members route');
        const { items, total } = await members.membersOf(access.organizationId, query);
        return reply.page(items, paginationOf(query.page, query.limit, total));
      },
    },
    // The gateway authorizes the token itself (authorize()): the identity it forwards is this one.
    { identityOf: (res) => res.locals.access },
  );
  registerRoutes(router, routes);
  return router;
}
