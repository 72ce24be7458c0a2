import type { RequestHandler, Response } from 'express';
import { ForbiddenError } from '@verdict/platform';
import type { IdentityDirectory, ProjectRecord, Role } from '../identity/directory';
import type { Principal } from './authenticate';
import { describeRequest } from './requestPath';

/**
 * Authorization of the public API for an authenticated token (spec §5.2–§5.4, §4.9). Every refusal is
 * 403 FORBIDDEN. A project outside the token's scope is refused before the directory is asked about it,
 * so a project that does not exist and one that belongs to somebody else look the same: 403, never 404,
 * which would tell a token holder which project ids exist. (404 NOT_FOUND stays for resources inside a
 * project the token may reach.)
 */

export const PUBLIC_API_SCOPE = 'public-api';

/** The identity of a request the gateway lets through; exactly what the internal JWT carries. */
export interface AccessContext {
  organizationId: string;
  projectId: string;
  userId: string;
  role: Role;
  scopes: string[];
  tokenId: string;
  /** The project's default branch, on requests that start a run (the base of its failures' verdicts). */
  defaultBranch?: string;
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** Set by authorize() on `/{projectId}/…` requests it lets through. */
    access?: AccessContext;
    /** The project of the path; set together with `access`. */
    project?: ProjectRecord;
  }
}

const WRITE_ROLES: ReadonlySet<Role> = new Set(['owner', 'admin', 'member']);
const WEBHOOK_WRITE_ROLES: ReadonlySet<Role> = new Set(['owner', 'admin']);

export interface AuthorizeOptions {
  directory: IdentityDirectory;
}

/**
 * Checks the token's capability scope on every request, and on `/{projectId}/…` its project scope and
 * its owner's role; sets `res.locals.access` and `res.locals.project`. Mount after authenticate().
 *
 * @example router.use(authenticate(deps), authorize({ directory }));
 */
export function authorize({ directory }: AuthorizeOptions): RequestHandler {
  return async (req, res, next) => {
    const principal = principalOf(res);
    // Spec §5.2: a project token reaches the public API only with this scope, whatever the path.
    if (principal.kind === 'project' && !principal.token.scopes.includes(PUBLIC_API_SCOPE)) {
      throw new ForbiddenError(`This project token lacks the ${PUBLIC_API_SCOPE} scope`);
    }
    const request = describeRequest(req.method, req.path);
    if (request.projectId === null) {
      next();
      return;
    }
    const project = await projectInScope(directory, principal, request.projectId);
    const { ownerRoles } = principal.token;
    const role = ownerRoles
      ? (ownerRoles[project.organizationId] ?? null)
      : await directory.roleOf(principal.token.ownerUserId, project.organizationId);
    if (role === null)
      throw new ForbiddenError("The token's owner is not a member of this project's organization");
    // The webhook rule first: it is the narrower one, so a viewer is told what webhooks need.
    if (request.kind === 'webhook-write' && !WEBHOOK_WRITE_ROLES.has(role)) {
      throw new ForbiddenError('Creating, updating and deleting webhooks needs the owner or admin role');
    }
    if (request.isWrite && !WRITE_ROLES.has(role)) {
      throw new ForbiddenError(`The ${role} role cannot make changes; owner, admin or member can`);
    }
    // Read fresh, and only where a run starts: settings change, unlike the cached project record.
    const defaultBranch =
      startsRun(req.method, req.path) && directory.defaultBranchOf
        ? await directory.defaultBranchOf(project.id)
        : undefined;
    res.locals.project = project;
    res.locals.access = {
      organizationId: project.organizationId,
      projectId: project.id,
      userId: principal.token.ownerUserId,
      role,
      scopes: [...principal.token.scopes],
      tokenId: principal.token.id,
      ...(defaultBranch === undefined ? {} : { defaultBranch }),
    };
    next();
  };
}

/** `POST /{projectId}/test-runs` and the report imports: the requests that may create a run. */
function startsRun(method: string, path: string): boolean {
  return method.toUpperCase() === 'POST' && /^\/[^/]+\/(test-runs|imports\/[^/]+)\/?$/i.test(path);
}

/**
 * The principal authenticate() left; its absence is a wiring mistake, not a client error.
 *
 * @example const { token } = principalOf(res);
 */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal;
  if (principal === undefined) throw new Error('authenticate() must run before this handler');
  return principal;
}

async function projectInScope(
  directory: IdentityDirectory,
  principal: Principal,
  projectId: string,
): Promise<ProjectRecord> {
  const refusal = () => new ForbiddenError('This token is not scoped to this project');
  if (!principal.token.projectIds.includes(projectId)) throw refusal();
  // In scope but gone (deleted since the token was issued): the same answer as out of scope.
  const project = await directory.findProject(projectId);
  if (project === null) throw refusal();
  return project;
}
