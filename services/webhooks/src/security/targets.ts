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
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254 included)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address in any notation (dotted tail, zeros, a zone), or null if it is none. */
function ipv6Bytes(address: string): number[] | null {
  let canonical: string;
  try {
    // WHATWG URL serialises an IPv6 host canonically: lower-case hex, zeros compressed, no dotted tail.
    canonical = new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head = '', tail] = canonical.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const [front, back] = [groups(head), groups(tail)];
  const words = [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

const zeros = (bytes: number[]) => bytes.every((b) => b === 0);
const dotted = (bytes: number[]) => bytes.join('.');

/**
 * The IPv4 address an IPv6 address carries and reaches, if any: mapped (::ffff:a.b.c.d), translated
 * (::ffff:0:a.b.c.d), NAT64 (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
 */
function embeddedIpv4(bytes: number[]): string | null {
  const [b0, b1, b8, b9, b10, b11] = [bytes[0], bytes[1], bytes[8], bytes[9], bytes[10], bytes[11]];
  if (zeros(bytes.slice(0, 10)) && b10 === 0xff && b11 === 0xff) return dotted(bytes.slice(12));
  if (zeros(bytes.slice(0, 8)) && b8 === 0xff && b9 === 0xff && b10 === 0 && b11 === 0) {
    return dotted(bytes.slice(12));
  }
  if (b0 === 0 && b1 === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(bytes.slice(4, 12))) {
    return dotted(bytes.slice(12));
  }
  if (b0 === 0x20 && b1 === 0x02) return dotted(bytes.slice(2, 6));
  return null;
}

/**
 * True for an address a webhook must not reach by default: private, loopback, link-local, metadata,
 * multicast or otherwise not public, in any notation an IPv6 address may carry an IPv4 one in.
 *
 * @example isPrivateAddress('169.254.169.254') // true
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const bytes = ipv6Bytes(address);
  if (bytes === null) return true;
  // IPv4-compatible (::a.b.c.d, deprecated; :: and ::1 among them) and Teredo (2001::/32, whose IPv4
  // client is obfuscated): no webhook receiver lives there.
  if (zeros(bytes.slice(0, 12))) return true;
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0 && bytes[3] === 0) return true;
  const v4 = embeddedIpv4(bytes);
  if (v4 !== null) return blocked.check(v4, 'ipv4');
  // The rest of ::/8 is reserved. Not a BlockList subnet: BlockList checks IPv4 addresses against IPv6
  // subnets as ::ffff:a.b.c.d, so ::/8 would refuse every IPv4 address.
  if (bytes[0] === 0) return true;
  return blocked.check(address.replace(/%.*$/, ''), 'ipv6');
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
