import { expiresAtOf, projectScopes, statusOf } from './ownTokens';

describe('own tokens', () => {
  const now = Date.parse('2026-01-01T00:00:00.000Z');

  it('when a token is revoked, past its expiry or neither, then its status is revoked, expired or active', () => {
    expect(statusOf({ revokedAt: '2025-12-01T00:00:00.000Z', expiresAt: null }, now)).toBe('revoked');
    expect(statusOf({ revokedAt: null, expiresAt: '2026-01-01T00:00:00.000Z' }, now)).toBe('expired');
    expect(statusOf({ revokedAt: null, expiresAt: '2026-01-02T00:00:00.000Z' }, now)).toBe('active');
    expect(statusOf({ revokedAt: null, expiresAt: null }, now)).toBe('active');
  });

  it('when a token is issued for some days, then it expires that many days later, a year an hour short', () => {
    expect(expiresAtOf('7', now)).toBe('2026-01-08T00:00:00.000Z');
    expect(expiresAtOf('365', now)).toBe('2026-12-31T23:00:00.000Z');
  });

  it('when scopes are shown, then the organization scopes are left out', () => {
    expect(projectScopes(['organizations/o1:read', 'projects/p1:read', 'projects/p1:write'])).toBe(
      'projects/p1:read, projects/p1:write',
    );
  });
});
