import { newId } from '@verdict/platform';
import type { IdentityDirectory, ProjectRecord, Role, TokenRecord } from '../identity/directory';
import { mintToken } from '../identity/tokenFormat';

/**
 * A FAKE IdentityDirectory for the access tests: maps in memory, filled by the test. The real one reads
 * the identity read model; this one only answers the three questions the access checks ask.
 */
export class FakeIdentityDirectory implements IdentityDirectory {
  private readonly tokens = new Map<string, TokenRecord>();
  private readonly projects = new Map<string, ProjectRecord>();
  private readonly roles = new Map<string, Role>();

  async findToken(tokenId: string): Promise<TokenRecord | null> {
    const token = this.tokens.get(tokenId);
    return token === undefined ? null : structuredClone(token);
  }

  async findProject(projectId: string): Promise<ProjectRecord | null> {
    return this.projects.get(projectId) ?? null;
  }

  async roleOf(userId: string, organizationId: string): Promise<Role | null> {
    return this.roles.get(membershipKey(userId, organizationId)) ?? null;
  }

  addProject(project: ProjectRecord): ProjectRecord {
    this.projects.set(project.id, project);
    return project;
  }

  setRole(userId: string, organizationId: string, role: Role): void {
    this.roles.set(membershipKey(userId, organizationId), role);
  }

  /** Issues a token like the admin API would; returns its cleartext (for the header) and its record. */
  issueToken(
    fields: Partial<Omit<TokenRecord, 'secretHash'>> & Pick<TokenRecord, 'ownerUserId' | 'projectIds'>,
  ) {
    const kind = fields.kind ?? 'personal';
    const id = fields.id ?? newId();
    const { token, secretHash } = mintToken(kind, id);
    const record: TokenRecord = {
      id,
      kind,
      name: fields.name ?? null,
      ownerUserId: fields.ownerUserId,
      projectIds: fields.projectIds,
      scopes: fields.scopes ?? (kind === 'project' ? ['public-api'] : []),
      secretHash,
      createdAt: fields.createdAt ?? '2026-01-01T00:00:00.000Z',
      expiresAt: fields.expiresAt ?? null,
      revokedAt: fields.revokedAt ?? null,
    };
    this.tokens.set(id, record);
    return { token, record };
  }

  revoke(tokenId: string, at: string): void {
    const token = this.tokens.get(tokenId);
    if (token === undefined) throw new Error(`No token ${tokenId}`);
    this.tokens.set(tokenId, { ...token, revokedAt: at });
  }
}

function membershipKey(userId: string, organizationId: string): string {
  return `${userId}\n${organizationId}`;
}
