/**
 * What the gateway's access checks need to know about identities, answered from the identity read model.
 * The identity slice implements it; authentication and authorization only consume it.
 */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export interface TokenRecord {
  id: string;
  kind: 'personal' | 'project';
  name: string | null;
  /** The user whose membership role applies: the owner of a personal token, the creator of a project token. */
  ownerUserId: string;
  /** Projects the token may reach. A project token has exactly one. */
  projectIds: string[];
  /** Capability scopes, such as `public-api`. */
  scopes: string[];
  /** Hex SHA-256 of the token's secret part; the cleartext is never stored. */
  secretHash: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  /**
   * The owner's role in each organization, read in the same query as the token when the directory can,
   * so authorization needs no second read. Absent: ask `roleOf`.
   */
  ownerRoles?: Record<string, Role>;
}

export interface ProjectRecord {
  id: string;
  name: string;
  organizationId: string;
}

export interface IdentityDirectory {
  /**
   * `freshness`: what `identityVersion()` answered for this request, when the caller started it earlier
   * (so that its read leaves together with the request's first rate-limit draw).
   */
  findToken(tokenId: string, freshness?: Promise<string | null>): Promise<TokenRecord | null>;
  /**
   * Directories that cache tokens: the shared identity version their cache entries are checked against,
   * or null when it cannot be read (then findToken asks the store). Never rejects.
   */
  identityVersion?(): Promise<string | null>;
  findProject(projectId: string): Promise<ProjectRecord | null>;
  /**
   * The project's default branch (its settings, DEFAULT_BASE_BRANCH until changed), read fresh: unlike the
   * project record it changes. Absent: the internal identity carries none and the run uses the default.
   */
  defaultBranchOf?(projectId: string): Promise<string>;
  /** The user's role in the organization, or null when not a member. */
  roleOf(userId: string, organizationId: string): Promise<Role | null>;
}

/**
 * A token's scope strings, as token-info shows them and the admin API answers when it issues the token:
 * its projects as organization/project pairs (spec §2: the source of truth for project access), then its
 * capabilities. A project no longer found is left out.
 *
 * @example await scopesOf(directory, token); // ['organizations/o1/projects/p1', 'public-api']
 */
export async function scopesOf(
  projects: Pick<IdentityDirectory, 'findProject'>,
  token: { projectIds: readonly string[]; scopes: readonly string[] },
): Promise<string[]> {
  const found = await Promise.all(token.projectIds.map((id) => projects.findProject(id)));
  const access = found.flatMap((project) =>
    project ? [`organizations/${project.organizationId}/projects/${project.id}`] : [],
  );
  return [...access, ...token.scopes];
}
