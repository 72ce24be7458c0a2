import { TokenIssued, TokenRevoked } from '@verdict/contracts';
import { given } from '@verdict/platform/testing';
import { tokenDecider, type TokenCommand } from './token';

const now = new Date('2026-03-01T10:00:00.000Z');
const tokenId = 't-1';
const secretHash = 'a'.repeat(64);

const issue = (overrides: Partial<Extract<TokenCommand, { type: 'issueToken' }>> = {}): TokenCommand => ({
  type: 'issueToken',
  tokenId,
  kind: 'personal',
  name: 'CI',
  ownerUserId: 'u-1',
  projectIds: ['p-1', 'p-2'],
  scopes: ['public-api'],
  secretHash,
  expiresAt: null,
  now,
  ...overrides,
});

const issued = TokenIssued.of({
  tokenId,
  kind: 'personal',
  name: 'CI',
  ownerUserId: 'u-1',
  projectIds: ['p-1', 'p-2'],
  scopes: ['public-api'],
  secretHash,
  expiresAt: null,
  createdAt: '2026-02-01T00:00:00.000Z',
});
const revoked = TokenRevoked.of({ tokenId, revokedAt: '2026-02-15T00:00:00.000Z' });

describe('token decider', () => {
  it('when a token is issued, then token.issued records the hash of its secret, its projects and its expiry', () => {
    given(tokenDecider, [])
      .when(issue({ expiresAt: new Date('2026-06-01T00:00:00.000Z') }))
      .then([
        TokenIssued.of({
          tokenId,
          kind: 'personal',
          name: 'CI',
          ownerUserId: 'u-1',
          projectIds: ['p-1', 'p-2'],
          scopes: ['public-api'],
          secretHash,
          expiresAt: '2026-06-01T00:00:00.000Z',
          createdAt: now.toISOString(),
        }),
      ]);
  });

  it('when the expiry is now or in the past, then issuing is a VALIDATION_ERROR naming expiresAt', () => {
    given(tokenDecider, [])
      .when(issue({ expiresAt: new Date('2026-02-28T00:00:00.000Z') }))
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /^expiresAt: must be in the future/ });
    given(tokenDecider, [])
      .when(issue({ expiresAt: now }))
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /^expiresAt/ });
  });

  it('when a project token names other than exactly one project, then it is a VALIDATION_ERROR', () => {
    given(tokenDecider, [])
      .when(issue({ kind: 'project' }))
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /exactly one project/ });
    given(tokenDecider, [])
      .when(issue({ kind: 'personal', projectIds: [] }))
      .thenRefuses({ code: 'VALIDATION_ERROR', message: /^projectIds/ });
  });

  it('when the token id is taken, then issuing again is a CONFLICT', () => {
    given(tokenDecider, [issued]).when(issue()).thenRefuses({ code: 'CONFLICT' });
  });

  it('when an active token is revoked, then token.revoked records when', () => {
    given(tokenDecider, [issued])
      .when({ type: 'revokeToken', tokenId, now })
      .then([TokenRevoked.of({ tokenId, revokedAt: now.toISOString() })]);
  });

  it('when a revoked token is revoked again, then nothing is recorded and it stays revoked at the first time', () => {
    given(tokenDecider, [issued, revoked]).when({ type: 'revokeToken', tokenId, now }).then([]);
    const state = [issued, revoked].reduce(tokenDecider.evolve, tokenDecider.initialState());
    expect(state).toMatchObject({ status: 'revoked', revokedAt: '2026-02-15T00:00:00.000Z' });
  });

  it('when a revoked token would be issued again under its id, then it is refused and stays revoked', () => {
    given(tokenDecider, [issued, revoked]).when(issue()).thenRefuses({ code: 'CONFLICT' });
    const replayedTwice = [issued, revoked, issued].reduce(tokenDecider.evolve, tokenDecider.initialState());
    expect(replayedTwice).toMatchObject({ status: 'revoked', revokedAt: '2026-02-15T00:00:00.000Z' });
  });

  it('when an unknown token is revoked, then it is NOT_FOUND', () => {
    given(tokenDecider, []).when({ type: 'revokeToken', tokenId, now }).thenRefuses({ code: 'NOT_FOUND' });
  });
});
