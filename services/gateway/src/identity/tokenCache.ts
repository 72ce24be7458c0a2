import type { KeyValue } from '@verdict/platform';
import type { IdentityDirectory, TokenRecord } from './directory';

/**
 * Token records kept in memory per gateway replica, so an authenticated request reads Redis (which it
 * talks to anyway) instead of PostgreSQL. Freshness comes from one shared counter: every identity change
 * made through the admin API bumps it once the read model holds the change, and a record cached under an
 * older count is read again. The count is read BEFORE the database, so a change that lands between the two
 * reads leaves the entry stamped with the older count and it is refreshed on the next request: a
 * revocation still fails on the very next request, on every replica. If the counter cannot be read, the
 * database answers every time.
 */
export const IDENTITY_VERSION_KEY = 'gateway:identity-version';

/** Bumps the shared identity version; call after an identity change is visible in the read model. */
export async function bumpIdentityVersion(kv: KeyValue): Promise<void> {
  await kv.increment(IDENTITY_VERSION_KEY);
}

/**
 * @example const directory = withTokenCache(sqlDirectory, kv, { max: 50_000 });
 */
export function withTokenCache<D extends IdentityDirectory>(
  directory: D,
  kv: KeyValue,
  options: { max?: number } = {},
): D {
  const max = options.max ?? 50_000;
  const tokens = new Map<string, { record: TokenRecord; version: string }>();
  const identityVersion = (): Promise<string | null> =>
    kv.get(IDENTITY_VERSION_KEY).then(
      (version) => version ?? '0',
      () => null,
    );
  const findToken = async (
    tokenId: string,
    freshness: Promise<string | null> = identityVersion(),
  ): Promise<TokenRecord | null> => {
    const version = await freshness;
    if (version === null) return directory.findToken(tokenId);
    const cached = tokens.get(tokenId);
    if (cached && cached.version === version) return cached.record;
    const record = await directory.findToken(tokenId);
    // Unknown ids are not kept: a stream of random ids must not fill the memory.
    if (record) {
      if (tokens.size >= max && !tokens.has(tokenId)) tokens.delete(tokens.keys().next().value as string);
      tokens.set(tokenId, { record, version });
    } else {
      tokens.delete(tokenId);
    }
    return record;
  };
  return Object.assign(Object.create(directory) as D, { findToken, identityVersion });
}
