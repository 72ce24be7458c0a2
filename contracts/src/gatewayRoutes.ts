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
  IssuedToken,
  IssueTokenRequest,
  RevokedToken,
  SetMembershipRequest,
} from './identity';
import {
  DeadLetterRecord,
  DeadLettersQuery,
  ReplayDeadLettersRequest,
  ReplayedDeadLetters,
} from './deadLetters';
import { ErrorEnvelope, listEnvelope, successEnvelope } from './envelope';
import {
  IssueOwnTokenRequest,
  OWN_TOKEN_DEFAULT_DAYS,
  OWN_TOKEN_MAX_DAYS,
  OwnToken,
  OwnTokenPath,
  OwnTokensQuery,
  ProjectMember,
  ProjectMembersQuery,
  ProjectPath,
  ProjectSettings,
  SessionInfo,
  SignedOut,
  SignInRequest,
  TokenInfo,
  TokenInfoQuery,
  UpdateProjectSettingsRequest,
} from './gateway';
import { ADMIN_ROLES, defineRoutes, READER_ROLES, ROLES } from './http';

const ok = (schema: Parameters<typeof successEnvelope>[0], description = 'OK') => ({
  description,
  schema: successEnvelope(schema),
});
const refused = (description: string) => ({ description, schema: ErrorEnvelope });

/**
 * The web app's session (docs/web.md): sign in, who am I, sign out. Not project routes: the gateway's
 * session router serves them itself (the route binder serves project routes), so any signed-in person,
 * whatever their roles, reaches them.
 */
export const sessionRoutes = defineRoutes([
  {
    method: 'post',
    path: '/session',
    summary: 'Sign in: exchange a personal access token (or a one-time sign-in code) for a session cookie',
    description:
      'Answers 201 with Set-Cookie `verdict_session` (httpOnly, SameSite=Lax, Secure behind https) and the ' +
      'session. Every route then accepts the cookie instead of the Authorization header, with the same scopes, ' +
      'roles and rate limits as the token; writes made with it must send the `csrfToken` as X-CSRF-Token. The ' +
      'session ends after VERDICT_SESSION_IDLE_MINUTES without a request, when its token is revoked or ' +
      'expires, or on DELETE /session. A wrong, revoked or expired token, or a used or expired code: 401; a ' +
      'project token: 403.',
    tag: 'Session',
    security: 'none',
    body: SignInRequest,
    responses: {
      201: ok(SessionInfo, 'Signed in'),
      400: refused('VALIDATION_ERROR: not exactly one of token or code, or a body that is not that JSON'),
      401: refused('UNAUTHORIZED: the token or the code does not open a session'),
      403: refused('FORBIDDEN: a project token cannot open a session'),
      429: refused('RATE_LIMIT_EXCEEDED: the per-IP limit of spec §8'),
    },
  },
  {
    method: 'get',
    path: '/session',
    summary: 'Who is signed in: the person, the token, the projects it reaches with the role in each',
    description: 'With a bearer token instead of a session, the same answer for that token (csrfToken null).',
    tag: 'Session',
    security: 'bearer',
    roles: ROLES,
    responses: { 200: ok(SessionInfo) },
  },
  {
    method: 'delete',
    path: '/session',
    summary: 'Sign out: the session ends at once and its cookie is cleared',
    description:
      'Needs the X-CSRF-Token header, as every write made with a session. With a bearer token: 400.',
    tag: 'Session',
    security: 'bearer',
    roles: ROLES,
    responses: { 200: ok(SignedOut, 'Signed out') },
  },
  {
    method: 'get',
    path: '/session/tokens',
    summary: 'Your own personal access tokens, newest first: metadata, last use, never a secret',
    description:
      'The personal tokens of the signed-in person (or of the bearer token’s owner), active, expired and ' +
      'revoked. `current` marks the token of the asking session or bearer token.',
    tag: 'Session',
    security: 'bearer',
    roles: ROLES,
    query: OwnTokensQuery,
    responses: { 200: { description: 'OK', schema: listEnvelope(OwnToken) } },
  },
  {
    method: 'post',
    path: '/session/tokens',
    summary: 'Issue yourself a personal access token (svc_pat_…); its cleartext is returned only here',
    description:
      'Only from a web session (with X-CSRF-Token): a bearer token cannot mint tokens (403). The token ' +
      'reaches the projects named (default: all the session reaches; no other), with the scope ' +
      '`public-api`, and acts with your role in each project’s organization at the time of each request: ' +
      `a viewer's token reads only. It expires after ${OWN_TOKEN_DEFAULT_DAYS} days unless \`expiresAt\` ` +
      `says sooner; at most ${OWN_TOKEN_MAX_DAYS} days. Counts as a write (60 a minute).`,
    tag: 'Session',
    security: 'bearer',
    roles: ROLES,
    sessionOnly: true,
    body: IssueOwnTokenRequest,
    links: {
      revokeToken: {
        to: 'delete /session/tokens/{tokenId}',
        parameters: { tokenId: '$response.body#/data/id' },
      },
    },
    responses: {
      201: ok(IssuedToken, 'Issued: the only answer that carries the cleartext token'),
      400: refused(
        'VALIDATION_ERROR: no name, an expiry past or beyond the maximum, a project outside the session',
      ),
      403: refused('FORBIDDEN: asked with a bearer token instead of a web session'),
    },
  },
  {
    method: 'delete',
    path: '/session/tokens/{tokenId}',
    summary: 'Revoke one of your own tokens; revoking it again answers the first revocation',
    description:
      'Only from a web session (with X-CSRF-Token). Another person’s token, or none: 404. The token (and ' +
      'every session opened with it, this one included when it is the current token) stops working at once.',
    tag: 'Session',
    security: 'bearer',
    roles: ROLES,
    sessionOnly: true,
    params: OwnTokenPath,
    responses: {
      200: ok(RevokedToken, 'Revoked'),
      403: refused('FORBIDDEN: asked with a bearer token instead of a web session'),
      404: refused('NOT_FOUND: no token of yours has this id'),
    },
  },
]);

/** GET /{projectId}/token-info (spec §4.1): what the calling token is and may reach. */
export const tokenInfoRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/token-info',
    summary: 'What the calling token is and may reach',
    description: 'No parameters: any query parameter answers 400 VALIDATION_ERROR naming it.',
    tag: 'Token Info',
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectPath,
    query: TokenInfoQuery,
    responses: { 200: ok(TokenInfo) },
  },
]);

/** GET /{projectId}/members: who may be assigned manual work in the project. */
export const projectMemberRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/members',
    summary: "The project's members: the people of its organization with their role, by name",
    description:
      'Any member may read it (assignee pickers). Sorted by first name, last name, then e-mail; `q` filters ' +
      'by name or e-mail address.',
    tag: 'Members',
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectPath,
    query: ProjectMembersQuery,
    responses: { 200: { description: 'OK', schema: listEnvelope(ProjectMember) } },
  },
]);

/** A project's settings: any member reads them, an owner or admin changes them. */
export const projectSettingsRoutes = defineRoutes([
  {
    method: 'get',
    path: '/{projectId}/settings',
    summary: "The project's settings: its default branch",
    tag: 'Projects',
    security: 'bearer',
    roles: READER_ROLES,
    params: ProjectPath,
    responses: { 200: ok(ProjectSettings) },
  },
  {
    method: 'patch',
    path: '/{projectId}/settings',
    summary: "Change the project's settings (owner or admin)",
    description:
      "defaultBranch: the base branch of the runs started from now on that name none (each failure's verdict compares with it); runs already started keep theirs.",
    tag: 'Projects',
    security: 'bearer',
    roles: ADMIN_ROLES,
    params: ProjectPath,
    body: UpdateProjectSettingsRequest,
    responses: {
      200: ok(ProjectSettings),
      400: refused('VALIDATION_ERROR: no defaultBranch, an empty one, or an unknown field'),
      403: refused('FORBIDDEN: the role is member or viewer'),
    },
  },
]);

/**
 * The routes the gateway itself serves under each API prefix, as the OpenAPI document shows them. The
 * retired GET /{projectId}/context (spec §9, always 404) and the signed artifact downloads (the URLs that
 * `include=artifacts` hands out, under /downloads) are no operations of the API: docs/api.md describes them.
 */
export const gatewayApiRoutes = [
  ...sessionRoutes,
  ...tokenInfoRoutes,
  ...projectMemberRoutes,
  ...projectSettingsRoutes,
] as const;

/** The administration API's identity routes (API.md), under /admin/v1, opened by VERDICT_ADMIN_KEY. */
export const identityAdminRoutes = defineRoutes([
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
    links: {
      getOrganization: {
        to: 'get /organizations/{organizationId}',
        parameters: { organizationId: '$response.body#/data/id' },
      },
      createProject: {
        to: 'post /organizations/{organizationId}/projects',
        parameters: { organizationId: '$response.body#/data/id' },
      },
    },
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
    links: {
      revokeToken: { to: 'delete /tokens/{tokenId}', parameters: { tokenId: '$response.body#/data/id' } },
    },
    responses: {
      201: ok(IssuedToken, 'Created'),
      404: refused('NOT_FOUND: the user, the project or the token’s creator does not exist'),
    },
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
]);

/** The dead letters of every consumer, for operators (docs/operations.md), under /admin/v1. */
export const deadLetterAdminRoutes = defineRoutes([
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
]);

/** The administration API (API.md), under /admin/v1, opened by VERDICT_ADMIN_KEY. */
export const adminRoutes = [...identityAdminRoutes, ...deadLetterAdminRoutes] as const;
