import { EmbeddedConfig } from './config';

describe('the embedded configuration', () => {
  it('when VERDICT_TRUST_PROXY is set, then the gateway gets it as Express trust proxy', () => {
    expect(EmbeddedConfig.parse({ VERDICT_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(EmbeddedConfig.parse({ VERDICT_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(EmbeddedConfig.parse({ VERDICT_TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
  });

  it('when VERDICT_TRUST_PROXY lists addresses and ranges, then they are taken as they are', () => {
    const value = '10.0.0.1, 192.168.0.0/16,fd00::/8, 10.1.0.0/255.255.0.0,uniquelocal';
    expect(EmbeddedConfig.parse({ VERDICT_TRUST_PROXY: value }).trustProxy).toBe(value);
  });

  it.each(['maybe', '-3', '10.0.0.1/33', '10.0.0/8', 'true,1'])(
    'when VERDICT_TRUST_PROXY is %s, then the configuration is refused naming it',
    (value) => {
      const parsed = EmbeddedConfig.safeParse({ VERDICT_TRUST_PROXY: value });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(['VERDICT_TRUST_PROXY']);
    },
  );

  it('when VERDICT_PUBLIC_URL is not http or https, then the configuration is refused naming it', () => {
    const parsed = EmbeddedConfig.safeParse({ VERDICT_PUBLIC_URL: 'ftp://x.example' });
    expect(parsed.error?.issues[0]?.path).toEqual(['VERDICT_PUBLIC_URL']);
    expect(EmbeddedConfig.parse({ VERDICT_PUBLIC_URL: 'https://verdict.example/' }).publicUrl).toBe(
      'https://verdict.example',
    );
  });

  it.each([
    ['PORT', ''],
    ['PORT', '0x4744'],
    ['PORT', '1e4'],
    ['PORT', '8080.0'],
    ['PORT', '65536'],
    ['VERDICT_INGEST_RATE_LIMIT', '0'],
    ['VERDICT_ARTIFACT_MAX_BYTES', ' 100'],
    ['VERDICT_ADMIN_KEY', 'probe admin key 0123456789'],
  ])('when %s is %j, then the configuration is refused naming it', (name, value) => {
    const parsed = EmbeddedConfig.safeParse({ [name]: value });
    expect(parsed.error?.issues.map((issue) => issue.path)).toEqual([[name]]);
  });

  it('when PORT is written in decimal digits, then it is that port; unset, 8080', () => {
    expect(EmbeddedConfig.parse({ PORT: '0' }).port).toBe(0);
    expect(EmbeddedConfig.parse({ PORT: '18240' }).port).toBe(18240);
    expect(EmbeddedConfig.parse({}).port).toBe(8080);
  });

  it('when VERDICT_TRUST_PROXY is unset, then no proxy is trusted', () => {
    expect(EmbeddedConfig.parse({}).trustProxy).toBeUndefined();
  });
});
