/**
 * The admin API (`/admin/v1`, API.md "Administration"): parse the request with its contract, run the use
 * case, answer in the envelope. Only the admin key opens it; user tokens never do.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  AdminListQuery,
  AdminMemberPath,
  AdminOrganizationPath,
  AdminTokenPath,
  AdminTokensQuery,
  AdminUsersQuery,
  CreateOrganizationRequest,
  CreateProjectRequest,
  CreateUserRequest,
  IssueTokenRequest,
  paginationOf,
  SetMembershipRequest,
} from '@verdict/contracts';
import {
  NotFoundError,
  UnauthorizedError,
  parseBody,
  parseParams,
  parseQuery,
  sendCreated,
  sendData,
  sendList,
} from '@verdict/platform';
import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import type { AdminReads } from './adminReads';
import type { IdentityCommands } from './commands';

/** Shorter keys are refused at startup: the admin API creates tokens for every project. */
export const MIN_ADMIN_KEY_LENGTH = 16;

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Accepts `Authorization: Bearer <admin key>` only. Both sides are hashed first, so the comparison takes
 * the same time whatever the length or the content of the key offered.
 *
 * @example router.use(requireAdminKey(config.adminKey));
 */
export function requireAdminKey(adminKey: string): RequestHandler {
  if (adminKey.length < MIN_ADMIN_KEY_LENGTH) {
    throw new TypeError(`The admin key must have at least ${MIN_ADMIN_KEY_LENGTH} characters`);
  }
  const expected = digest(adminKey);
  return (req, _res, next) => {
    const match = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '');
    const offered = digest(match?.[1] ?? '');
    if (!match || !timingSafeEqual(offered, expected)) {
      throw new UnauthorizedError('A valid admin key is required: Authorization: Bearer <admin key>');
    }
    next();
  };
}

const contextOf = (req: Request) => ({ correlationId: req.requestId });
const NoQuery = z.strictObject({});

/**
 * The `/admin/v1` router; mount it at that path in front of the error middleware.
 *
 * @example app.use('/admin/v1', adminRouter(commands, createAdminReads(db, schema), adminKey));
 */
export function adminRouter(commands: IdentityCommands, reads: AdminReads, adminKey: string): Router {
  const router = Router();
  router.use(requireAdminKey(adminKey));
  // The writes take no query parameters (the reads parse theirs): one sent is a typo, refused by name.
  router.use((req, _res, next) => {
    if (req.method !== 'GET') parseQuery(NoQuery, req);
    next();
  });

  router.get('/organizations', async (req, res) => {
    const { page, limit } = parseQuery(AdminListQuery, req);
    const { items, total } = await reads.organizations(page, limit);
    sendList(res, items, paginationOf(page, limit, total));
  });

  router.get('/organizations/:organizationId', async (req, res) => {
    parseQuery(NoQuery, req);
    const { organizationId } = parseParams(AdminOrganizationPath, req);
    const organization = await reads.organization(organizationId);
    if (!organization) throw new NotFoundError(`Organization ${organizationId} not found`);
    sendData(res, organization);
  });

  router.get('/users', async (req, res) => {
    const query = parseQuery(AdminUsersQuery, req);
    const { items, total } = await reads.users(query);
    sendList(res, items, paginationOf(query.page, query.limit, total));
  });

  router.get('/tokens', async (req, res) => {
    const query = parseQuery(AdminTokensQuery, req);
    const { items, total } = await reads.tokens(query);
    sendList(res, items, paginationOf(query.page, query.limit, total));
  });

  router.post('/organizations', async (req, res) => {
    const body = parseBody(CreateOrganizationRequest, req);
    sendCreated(res, await commands.createOrganization(body, contextOf(req)));
  });

  router.post('/organizations/:organizationId/projects', async (req, res) => {
    const { organizationId } = parseParams(AdminOrganizationPath, req);
    const body = parseBody(CreateProjectRequest, req);
    sendCreated(res, await commands.createProject(organizationId, body, contextOf(req)));
  });

  router.post('/users', async (req, res) => {
    const body = parseBody(CreateUserRequest, req);
    sendCreated(res, await commands.createUser(body, contextOf(req)));
  });

  router.put('/organizations/:organizationId/members/:userId', async (req, res) => {
    const { organizationId, userId } = parseParams(AdminMemberPath, req);
    const body = parseBody(SetMembershipRequest, req);
    sendData(res, await commands.setMembership(organizationId, userId, body, contextOf(req)));
  });

  router.post('/tokens', async (req, res) => {
    const body = parseBody(IssueTokenRequest, req);
    // The cleartext token is in this body and nowhere else: no cache may keep it.
    res.set('Cache-Control', 'no-store');
    sendCreated(res, await commands.issueToken(body, contextOf(req)));
  });

  router.delete('/tokens/:tokenId', async (req, res) => {
    const { tokenId } = parseParams(AdminTokenPath, req);
    sendData(res, await commands.revokeToken(tokenId, contextOf(req)));
  });

  return router;
}
