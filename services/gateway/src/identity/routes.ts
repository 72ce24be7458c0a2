/**
 * The admin API's identity routes (`/admin/v1`, API.md "Administration"): the use case behind each
 * declared route, answered in the envelope. Only the admin key opens them; user tokens never do.
 */
import { identityAdminRoutes, paginationOf } from '@verdict/contracts';
import { bindRoutes, NotFoundError, registerRoutes, reply } from '@verdict/platform';
import { Router } from 'express';
import { requireAdminKey } from './adminKey';
import type { AdminReads } from './adminReads';
import type { IdentityCommands } from './commands';

/**
 * The `/admin/v1` router; mount it at that path in front of the error middleware.
 *
 * @example app.use('/admin/v1', adminRouter(commands, createAdminReads(db, schema), adminKey));
 */
export function adminRouter(commands: IdentityCommands, reads: AdminReads, adminKey: string): Router {
  const router = Router();
  router.use(requireAdminKey(adminKey));
  const routes = bindRoutes(identityAdminRoutes, {
    'get /organizations': async ({ query: { page, limit } }) => {
      const { items, total } = await reads.organizations(page, limit);
      return reply.page(items, paginationOf(page, limit, total));
    },
    'get /organizations/{organizationId}': async ({ params: { organizationId } }) => {
      const organization = await reads.organization(organizationId);
      if (!organization) throw new NotFoundError(`Organization ${organizationId} not found`);
      return organization;
    },
    'get /users': async ({ query }) => {
      const { items, total } = await reads.users(query);
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'get /tokens': async ({ query }) => {
      const { items, total } = await reads.tokens(query);
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'post /organizations': async ({ body }, ctx) =>
      reply.created(await commands.createOrganization(body, ctx)),
    'post /organizations/{organizationId}/projects': async ({ params, body }, ctx) =>
      reply.created(await commands.createProject(params.organizationId, body, ctx)),
    'post /users': async ({ body }, ctx) => reply.created(await commands.createUser(body, ctx)),
    'put /organizations/{organizationId}/members/{userId}': ({ params, body }, ctx) =>
      commands.setMembership(params.organizationId, params.userId, body, ctx),
    // The cleartext token is in this body and nowhere else: no cache may keep it.
    'post /tokens': async ({ body }, ctx) =>
      reply.created(await commands.issueToken(body, ctx), { headers: { 'Cache-Control': 'no-store' } }),
    'delete /tokens/{tokenId}': ({ params }, ctx) => commands.revokeToken(params.tokenId, ctx),
  });
  registerRoutes(router, routes);
  return router;
}
