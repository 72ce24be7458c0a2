/**
 * The token aggregate: one stream per token. Issued once, revoked at most once; a revoked token never
 * becomes active again, and revoking it again is a no-op that reports the first revocation. The secret's
 * hash comes in with the command (minting is random, deciding is not).
 */
import {
  TokenIssued,
  TokenRevoked,
  parseIdentityEvent,
  type TokenEvent,
  type TokenKind,
  type TokenScope,
} from '@verdict/contracts';
import { ConflictError, NotFoundError, ValidationError, type Decider } from '@verdict/platform';

export interface IssuedTokenState {
  tokenId: string;
  kind: TokenKind;
  name: string | null;
  ownerUserId: string;
  projectIds: string[];
  scopes: TokenScope[];
  expiresAt: string | null;
  createdAt: string;
}

export type TokenState =
  | { status: 'absent' }
  | ({ status: 'active' } & IssuedTokenState)
  | ({ status: 'revoked'; revokedAt: string } & IssuedTokenState);

export type TokenCommand =
  | {
      type: 'issueToken';
      tokenId: string;
      kind: TokenKind;
      name: string | null;
      ownerUserId: string;
      projectIds: string[];
      scopes: TokenScope[];
      secretHash: string;
      expiresAt: Date | null;
      now: Date;
    }
  | { type: 'revokeToken'; tokenId: string; now: Date };

/** The stream of one token. */
export const tokenStream = (tokenId: string): string => `token-${tokenId}`;

export function initialState(): TokenState {
  return { status: 'absent' };
}

export function evolve(state: TokenState, event: TokenEvent): TokenState {
  switch (event.type) {
    case 'token.issued': {
      // A token is issued once; whatever comes later cannot bring a revoked token back.
      if (state.status !== 'absent') return state;
      const { tokenId, kind, name, ownerUserId, projectIds, scopes, expiresAt, createdAt } = event.data;
      return { status: 'active', tokenId, kind, name, ownerUserId, projectIds, scopes, expiresAt, createdAt };
    }
    case 'token.revoked':
      return state.status === 'active'
        ? { ...state, status: 'revoked', revokedAt: event.data.revokedAt }
        : state;
  }
}

function issueToken(command: Extract<TokenCommand, { type: 'issueToken' }>, state: TokenState): TokenEvent[] {
  if (state.status !== 'absent') throw new ConflictError(`Token ${command.tokenId} already exists`);
  if (command.expiresAt !== null && command.expiresAt.getTime() <= command.now.getTime()) {
    throw new ValidationError('expiresAt: must be in the future');
  }
  if (command.kind === 'project' && command.projectIds.length !== 1) {
    throw new ValidationError('projectId: a project token is scoped to exactly one project');
  }
  if (command.projectIds.length === 0)
    throw new ValidationError('projectIds: must name at least one project');
  return [
    TokenIssued.of({
      tokenId: command.tokenId,
      kind: command.kind,
      name: command.name,
      ownerUserId: command.ownerUserId,
      projectIds: command.projectIds,
      scopes: command.scopes,
      secretHash: command.secretHash,
      expiresAt: command.expiresAt?.toISOString() ?? null,
      createdAt: command.now.toISOString(),
    }),
  ];
}

function revokeToken(
  command: Extract<TokenCommand, { type: 'revokeToken' }>,
  state: TokenState,
): TokenEvent[] {
  if (state.status === 'absent') throw new NotFoundError(`Token ${command.tokenId} not found`);
  if (state.status === 'revoked') return [];
  return [TokenRevoked.of({ tokenId: command.tokenId, revokedAt: command.now.toISOString() })];
}

export function decide(command: TokenCommand, state: TokenState): TokenEvent[] {
  switch (command.type) {
    case 'issueToken':
      return issueToken(command, state);
    case 'revokeToken':
      return revokeToken(command, state);
  }
}

function parse(event: { type: string; version: number; data: unknown }): TokenEvent {
  const parsed = parseIdentityEvent(event);
  if (parsed.type === 'token.issued' || parsed.type === 'token.revoked') return parsed;
  throw new Error(`${parsed.type} does not belong to a token stream`);
}

/**
 * The token decider, for handleCommand.
 *
 * @example await handleCommand(store, tokenStream(tokenId), tokenDecider, { type: 'revokeToken', tokenId, now });
 */
export const tokenDecider: Decider<TokenCommand, TokenEvent, TokenState> = {
  initialState,
  evolve,
  decide,
  parse,
};
