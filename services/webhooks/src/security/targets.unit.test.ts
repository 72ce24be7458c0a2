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
  ])('when the address is %s, then it is refused', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'when the address is %s, then it is public',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
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
