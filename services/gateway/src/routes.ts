import {
  AdminListQuery,
  AdminMemberPath,
  AdminMembership,
  AdminOrganization,
  AdminOrganizationDetail,
  AdminOrganizationPath,
  AdminProject,
  AdminTokenPath,
  AdminTokenRecord,
  AdminTokensQuery,
  AdminUser,
  AdminUsersQuery,
  CreateOrganizationRequest,
  CreateProjectRequest,
  CreateUserRequest,
  DeadLetterRecord,
  DeadLettersQuery,
  ErrorEnvelope,
  IssuedToken,
  IssueTokenRequest,
  listEnvelope,
  ProjectPath,
  ReplayDeadLettersRequest,
  ReplayedDeadLetters,
  RevokedToken,
  SetMembershipRequest,
  successEnvelope,
  TokenInfo,
  TokenInfoQuery,
} from '@verdict/contracts';
import type { RouteSpec } from '@verdict/platform';

const ok = (schema: Parameters<typeof successEnvelope>[0], description = 'OK') => ({
  description,
  schema: successEnvelope(schema),
});
const refused = (description: string) => ({ description, schema: ErrorEnvelope });

/**
 * The routes the gateway itself serves under each API prefix, as the OpenAPI document shows them. The
 * retired GET /{projectId}/context (spec §9, always 404) and the signed artifact downloads (the URLs that
 * `include=artifacts` hands out, under /downloads) are no operations of the API: docs/api.md describes them.
 */
export const gatewayApiRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/{projectId}/token-info',
    summary: 'What the calling token is and may reach',
    description: 'No parameters: any query parameter answers 400 VALIDATION_ERROR naming it.',
    tag: 'Token Info',
    security: 'bearer',
    params: ProjectPath,
    query: TokenInfoQuery,
    responses: { 200: ok(TokenInfo) },
  },
];

/** The administration API (API.md), under /admin/v1, opened by VERDICT_ADMIN_KEY. */
export const adminRoutes: RouteSpec[] = [
  {
    method: 'get',
    path: '/organizations',
    summary: 'List organizations, oldest first',
    tag: 'Administration',
    security: 'admin',
    query: AdminListQuery,
    responses: { 200: { description: 'OK', schema: listEnvelope(AdminOrganization) } },
  },
  {
    method: 'get',
    path: '/organizations/{organizationId}',
    summary: 'An organization with its projects and members (user id and role)',
    tag: 'Administration',
    security: 'admin',
    params: AdminOrganizationPath,
    responses: { 200: ok(AdminOrganizationDetail) },
  },
  {
    method: 'get',
    path: '/users',
    summary: 'List users, oldest first; `email` finds one by address',
    tag: 'Administration',
    security: 'admin',
    query: AdminUsersQuery,
    responses: { 200: { description: 'OK', schema: listEnvelope(AdminUser) } },
  },
  {
    method: 'get',
    path: '/tokens',
    summary: 'List tokens (metadata only, never a secret), oldest first; by owner or by project',
    tag: 'Administration',
    security: 'admin',
    query: AdminTokensQuery,
    responses: { 200: { description: 'OK', schema: listEnvelope(AdminTokenRecord) } },
  },
  {
    method: 'post',
    path: '/organizations',
    summary: 'Create an organization (no plan: the free tier, 5,000 test cases a month, 1 project)',
    tag: 'Administration',
    security: 'admin',
    body: CreateOrganizationRequest,
    responses: { 201: ok(AdminOrganization, 'Created') },
  },
  {
    method: 'post',
    path: '/organizations/{organizationId}/projects',
    summary: 'Create a project; over the plan’s project limit: 409 PROJECT_LIMIT_REACHED',
    tag: 'Administration',
    security: 'admin',
    params: AdminOrganizationPath,
    body: CreateProjectRequest,
    responses: {
      201: ok(AdminProject, 'Created'),
      409: refused(
        'PROJECT_LIMIT_REACHED: the plan allows no more projects; CONFLICT: the allocation is more than the organization has left',
      ),
    },
  },
  {
    method: 'post',
    path: '/users',
    summary: 'Create a user; a duplicate e-mail (any letter case): 409 CONFLICT',
    tag: 'Administration',
    security: 'admin',
    body: CreateUserRequest,
    responses: {
      201: ok(AdminUser, 'Created'),
      409: refused('CONFLICT: a user with this e-mail address (in any letter case) exists'),
    },
  },
  {
    method: 'put',
    path: '/organizations/{organizationId}/members/{userId}',
    summary: 'Set a user’s role in an organization',
    tag: 'Administration',
    security: 'admin',
    params: AdminMemberPath,
    body: SetMembershipRequest,
    responses: {
      200: ok(AdminMembership),
      409: refused('CONFLICT: the change would leave the organization without an owner'),
    },
  },
  {
    method: 'post',
    path: '/tokens',
    summary: 'Issue a personal (svc_pat_…) or project (svcp_…) token; the cleartext is returned only here',
    tag: 'Administration',
    security: 'admin',
    body: IssueTokenRequest,
    responses: {
      201: ok(IssuedToken, 'Created'),
      404: refused('NOT_FOUND: the user, the project or the token’s creator does not exist'),
    },
  },
  {
    method: 'get',
    path: '/dead-letters',
    summary: 'List dead letters, oldest first: messages a consumer could not handle after its retries',
    description:
      'One letter per consumer group and event, with the last error. `status`: pending (not replayed), ' +
      'replaying (sent again, not yet handled), replayed (handled). `npm run dlq -- list` reads this.',
    tag: 'Operations',
    security: 'admin',
    query: DeadLettersQuery,
    responses: { 200: { description: 'OK', schema: listEnvelope(DeadLetterRecord) } },
  },
  {
    method: 'post',
    path: '/dead-letters/replay',
    summary: 'Replay dead letters into the consumers that failed them (after a fix); idempotent',
    description:
      'Sends every letter not replayed yet (or those `id`, `eventId`, `consumer` name) to its consumer ' +
      'again, oldest first; other consumers of the topic skip it. A replayed letter is never sent again, and ' +
      'a consumer applies a replayed event once. One that fails again is pending again with `times` + 1. ' +
      '`npm run dlq -- replay [--event <id>]` calls this.',
    tag: 'Operations',
    security: 'admin',
    body: ReplayDeadLettersRequest,
    responses: { 200: ok(ReplayedDeadLetters) },
  },
  {
    method: 'delete',
    path: '/tokens/{tokenId}',
    summary: 'Revoke a token; it fails with 401 on the very next request, on every gateway replica',
    tag: 'Administration',
    security: 'admin',
    params: AdminTokenPath,
    responses: { 200: ok(RevokedToken) },
  },
];
