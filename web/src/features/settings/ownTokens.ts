/** One's own tokens as the settings page shows them: status, expiry choices, scopes. */
import type { OwnToken } from '../../api/queries';

const DAY_MS = 86_400_000;

/** The API refuses more than 365 days; an hour less keeps a fast clock on this computer from crossing it. */
export const EXPIRIES = [
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '180', label: '180 days' },
  { value: '365', label: '1 year' },
];

/** When a token issued now for `days` days (one of EXPIRIES) expires. */
export function expiresAtOf(days: string, now = Date.now()): string {
  return new Date(now + Number(days) * DAY_MS - (days === '365' ? 3_600_000 : 0)).toISOString();
}

export type TokenStatus = 'active' | 'expired' | 'revoked';

export function statusOf(token: Pick<OwnToken, 'revokedAt' | 'expiresAt'>, now = Date.now()): TokenStatus {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && Date.parse(token.expiresAt) <= now) return 'expired';
  return 'active';
}

export const STATUS_COLOR: Record<TokenStatus, string> = { active: 'teal', expired: 'gray', revoked: 'gray' };

/** A token's project scopes (the organization scopes every token has are left out). */
export const projectScopes = (scopes: string[]) =>
  scopes.filter((scope) => !scope.startsWith('organizations/')).join(', ');
