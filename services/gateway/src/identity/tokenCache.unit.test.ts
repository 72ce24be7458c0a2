import { createMemoryKeyValue, ServiceUnavailableError, type KeyValue } from '@verdict/platform';
import type { IdentityDirectory, TokenRecord } from './directory';
import { bumpIdentityVersion, withTokenCache } from './tokenCache';

const token = (revokedAt: string | null = null): TokenRecord => ({
  id: 't1',
  kind: 'personal',
  name: null,
  ownerUserId: 'u1',
  projectIds: ['p1'],
  scopes: ['public-api'],
  secretHash: 'ab',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: null,
  revokedAt,
});

function countingDirectory(initial: TokenRecord | null) {
  const state = { record: initial, reads: 0, duringRead: async () => undefined as void };
  const directory: IdentityDirectory = {
    findProject: async () => null,
    roleOf: async () => null,
    findToken: async () => {
      state.reads += 1;
      const answer = state.record;
      await state.duringRead();
      return answer;
    },
  };
  return { directory, state };
}

describe('the token cache of the access chain', () => {
  it('when a token is asked for again and nothing changed, then the database is read once', async () => {
    const kv = createMemoryKeyValue();
    const { directory, state } = countingDirectory(token());
    const cached = withTokenCache(directory, kv);
    await cached.findToken('t1');
    expect(await cached.findToken('t1')).toEqual(token());
    expect(state.reads).toBe(1);
  });

  it('when an identity change is announced, then the next lookup reads the database and sees it', async () => {
    const kv = createMemoryKeyValue();
    const { directory, state } = countingDirectory(token());
    const cached = withTokenCache(directory, kv);
    await cached.findToken('t1');
    state.record = token('2026-01-02T00:00:00.000Z');
    await bumpIdentityVersion(kv);
    expect((await cached.findToken('t1'))?.revokedAt).toBe('2026-01-02T00:00:00.000Z');
    expect(state.reads).toBe(2);
  });

  it('when a change lands while the database is being read, then the stale answer is not trusted next time', async () => {
    const kv = createMemoryKeyValue();
    const { directory, state } = countingDirectory(token());
    const cached = withTokenCache(directory, kv);
    state.duringRead = async () => {
      state.record = token('2026-01-02T00:00:00.000Z');
      state.duringRead = async () => undefined;
      await bumpIdentityVersion(kv);
    };
    expect((await cached.findToken('t1'))?.revokedAt).toBeNull();
    expect((await cached.findToken('t1'))?.revokedAt).toBe('2026-01-02T00:00:00.000Z');
  });

  it('when the shared counter cannot be read, then every lookup goes to the database', async () => {
    const failing: KeyValue = {
      ...createMemoryKeyValue(),
      get: async () => {
        throw new ServiceUnavailableError('redis down');
      },
    };
    const { directory, state } = countingDirectory(token());
    const cached = withTokenCache(directory, failing);
    await cached.findToken('t1');
    await cached.findToken('t1');
    expect(state.reads).toBe(2);
  });

  it('when a token is unknown, then it is not kept', async () => {
    const kv = createMemoryKeyValue();
    const { directory, state } = countingDirectory(null);
    const cached = withTokenCache(directory, kv);
    expect(await cached.findToken('t1')).toBeNull();
    state.record = token();
    expect(await cached.findToken('t1')).toEqual(token());
  });
});
