import type { VerdictClient } from '@verdict/client';

/**
 * What the token may do in the project, read once from token-info: the tools a token may not use are not
 * listed at all (a viewer's token sees no write tool), and the API still refuses what it must on every call.
 */
export interface TokenAccess {
  projectId: string;
  projectName: string;
  /** The token owner's role in the project's organization; null when the server does not say. */
  role: 'owner' | 'admin' | 'member' | 'viewer' | null;
  /** Owner, admin and member may make changes (spec §5.4). */
  canWrite: boolean;
}

const WRITE_ROLES = new Set(['owner', 'admin', 'member']);

/**
 * Asks the API what the client's token may do in its project; rejects as the API answers (401 for a
 * revoked token, 403 outside the token's projects, 429 past the read limit).
 *
 * @example const access = await readAccess(verdict);
 */
export async function readAccess(verdict: VerdictClient, signal?: AbortSignal): Promise<TokenAccess> {
  const info = await verdict.tokenInfo(signal ? { signal } : {});
  const role = info.role ?? null;
  return {
    projectId: verdict.project ?? '',
    projectName: info.projectName,
    role,
    canWrite: role !== null && WRITE_ROLES.has(role),
  };
}
