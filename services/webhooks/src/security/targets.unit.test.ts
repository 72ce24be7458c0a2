import { checkTarget, isPrivateAddress, withResolveTimeout, type Resolver } from './targets';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.100.100.200',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '64:ff9b::a9fe:a9fe',
    '172.31.255.255',
    '100.64.0.1',
    '198.18.0.1',
    'fc00::1',
    'fe80::1%eth0',
    'FE80::1',
    // IPv4 inside IPv6, in every notation: mapped (dotted, hex, expanded), translated, compatible, NAT64,
    // 6to4 and Teredo.
    '::FFFF:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '0:0:0:0:0:ffff:7f00:1',
    '0000:0000:0000:0000:0000:ffff:c0a8:0101',
    '::ffff:0:7f00:1',
    '::ffff:0:127.0.0.1',
    '::127.0.0.1',
    '::7f00:1',
    '64:ff9b::127.0.0.1',
    '2002:7f00:1::',
    '2002:a9fe:a9fe::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  ])('when the address is %s, then it is refused', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('when the address is %s, then it is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('checkTarget', () => {
  const table: Record<string, { address: string; family: 4 | 6 }[]> = {
    'public.example': [{ address: '93.184.216.34', family: 4 }],
    'mixed.example': [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ],
  };
  const resolve = async (host: string) => {
    const found = table[host];
    if (!found) throw new Error('ENOTFOUND');
    return found;
  };
  const closed = { allowPrivateNetworks: false, resolve };

  it('when the host resolves to a public address, then that address is the one to connect to', async () => {
    expect(await checkTarget('https://public.example/hook', closed)).toMatchObject({
      ok: true,
      address: { address: '93.184.216.34', family: 4 },
    });
  });

  it('when one of the addresses of a name is private, then the URL is refused', async () => {
    expect(await checkTarget('https://mixed.example/hook', closed)).toEqual({
      ok: false,
      reason: 'resolves to 10.0.0.5, a private, loopback, link-local or metadata address',
    });
  });

  it('when private networks are allowed, then loopback is accepted', async () => {
    expect(
      (await checkTarget('http://127.0.0.1:8080/hook', { ...closed, allowPrivateNetworks: true })).ok,
    ).toBe(true);
  });

  it.each([
    ['file:///etc/passwd', 'must use http or https'],
    ['gopher://public.example/', 'must use http or https'],
    ['https://a:b@public.example/', 'must not carry a user name or password'],
    ['/relative', 'must be an absolute http or https URL'],
  ])('when the url is %s, then it is refused: %s', async (url, reason) => {
    expect(await checkTarget(url, closed)).toEqual({ ok: false, reason });
  });

  // WHATWG URL parsing (what checkTarget and the sender both read) normalises numeric hosts, so the check
  // sees the address a connection would reach; the resolver is never asked about an address.
  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0x7f.0.0.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1'],
    ['http://\uff11\uff12\uff17.0.0.1/', '127.0.0.1'],
    ['http://0xa9fea9fe/latest/meta-data/', '169.254.169.254'],
    ['http://0251.0376.0251.0376/', '169.254.169.254'],
    ['http://10.1/', '10.0.0.1'],
    ['http://[::1]/', '::1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::127.0.0.1]/', '::7f00:1'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254'],
    ['http://[fe80::1]/', 'fe80::1'],
  ])('when the url is %s, then it is refused as the address it names, %s', async (url, address) => {
    const asked: string[] = [];
    const spy: Resolver = async (host) => {
      asked.push(host);
      return [{ address: '93.184.216.34', family: 4 }];
    };
    expect(await checkTarget(url, { allowPrivateNetworks: false, resolve: spy })).toEqual({
      ok: false,
      reason: `resolves to ${address}, a private, loopback, link-local or metadata address`,
    });
    expect(asked).toEqual([]);
  });

  it.each([
    ['127.0.0.1', 4],
    ['::1', 6],
    ['::ffff:10.0.0.1', 6],
  ] as const)('when a name resolves to %s, then it is refused', async (address, family) => {
    const check = await checkTarget('https://localhost.attacker.example/hook', {
      allowPrivateNetworks: false,
      resolve: async () => [{ address, family }],
    });
    expect(check).toMatchObject({ ok: false, reason: expect.stringContaining(`resolves to ${address}`) });
  });

  it('when the host does not resolve, then it is refused and marked unresolved (a delivery fails; a subscription may wait)', async () => {
    expect(await checkTarget('https://unknown.example/', closed)).toEqual({
      ok: false,
      reason: 'host unknown.example does not resolve',
      unresolved: true,
    });
  });
});

describe('withResolveTimeout', () => {
  it('when a name takes longer than the timeout to resolve, then it counts as not resolving and the check says so', async () => {
    const never: Resolver = () => new Promise(() => undefined);
    const resolve = withResolveTimeout(never, 20);
    await expect(resolve('slow.example')).rejects.toThrow('slow.example did not resolve within 20 ms');
    const check = await checkTarget('https://slow.example/hook', { allowPrivateNetworks: false, resolve });
    expect(check).toEqual({ ok: false, reason: 'host slow.example does not resolve', unresolved: true });
  });

  it('when a name resolves in time, then its addresses come through', async () => {
    const resolve = withResolveTimeout(async () => [{ address: '93.184.216.34', family: 4 }], 1_000);
    expect(await resolve('example.com')).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });
});
