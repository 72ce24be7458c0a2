/**
 * Where a webhook may go (SSRF guard). A URL is checked when a subscription is written and again before
 * every attempt, since DNS may answer differently later (rebinding): the sender then connects to the
 * address checked here, never resolving the name a second time.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has; the port tests replace with a fixed table. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/**
 * How long a name may take to resolve. The system resolver retries an unanswered query for several
 * seconds a time; a subscription's write (and a delivery) waits at most this long, then the name counts
 * as not resolving for now, as when DNS says it does not exist.
 */
export const RESOLVE_TIMEOUT_MS = 3_000;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/**
 * A resolver that gives up after `timeoutMs` (rejecting, as for a name that does not exist).
 *
 * @example const resolve = withResolveTimeout(systemResolver);
 */
export function withResolveTimeout(resolve: Resolver, timeoutMs: number = RESOLVE_TIMEOUT_MS): Resolver {
  return async (hostname) => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${hostname} did not resolve within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([resolve(hostname), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  };
}

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT (and Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254 included)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, or NAT64 64:ff9b::a.b.c.d), if any. */
function embeddedIpv4(address: string): string | null {
  const match = /^(?:::ffff:|64:ff9b::)(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (match) return match[1] ?? null;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const high = parseInt(hex[1] ?? '0', 16);
  const low = parseInt(hex[2] ?? '0', 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/**
 * True for an address a webhook must not reach by default: private, loopback, link-local, metadata,
 * multicast or otherwise not public.
 *
 * @example isPrivateAddress('169.254.169.254') // true
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== null) return blocked.check(v4, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

export interface TargetPolicy {
  allowPrivateNetworks: boolean;
  resolve: Resolver;
}

export type TargetCheck =
  | { ok: true; url: URL; address: ResolvedAddress }
  /** `unresolved`: the name has no address right now (unknown, or DNS unreachable), which may change. */
  | { ok: false; reason: string; unresolved?: boolean };

/** The host of a URL without IPv6 brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Shape rules that need no network: http(s) only, no credentials, a host. */
export function checkUrlShape(raw: string): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'must use http or https' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'must not carry a user name or password' };
  }
  if (hostOf(url) === '') return { ok: false, reason: 'must name a host' };
  return { ok: true, url };
}

/**
 * Resolves the URL's host and picks the address to connect to. Refuses when any address the name has is
 * not public (an attacker's DNS may rotate between a public and a private answer), unless allowed.
 *
 * @example const target = await checkTarget('https://hooks.example.com/x', policy); if (!target.ok) fail(target.reason);
 */
export async function checkTarget(raw: string, policy: TargetPolicy): Promise<TargetCheck> {
  const shape = checkUrlShape(raw);
  if (!shape.ok) return shape;
  const host = hostOf(shape.url);
  let addresses: ResolvedAddress[];
  const literal = isIP(host);
  if (literal !== 0) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await policy.resolve(host);
    } catch {
      return { ok: false, reason: `host ${host} does not resolve`, unresolved: true };
    }
    if (addresses.length === 0)
      return { ok: false, reason: `host ${host} does not resolve`, unresolved: true };
  }
  if (!policy.allowPrivateNetworks) {
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    if (refused) {
      return {
        ok: false,
        reason: `resolves to ${refused.address}, a private, loopback, link-local or metadata address`,
      };
    }
  }
  return { ok: true, url: shape.url, address: addresses[0] as ResolvedAddress };
}
