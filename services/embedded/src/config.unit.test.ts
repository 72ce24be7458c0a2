import { EmbeddedConfig } from './config';

describe('the embedded configuration', () => {
  it('when VERDICT_TRUST_PROXY is set, then the gateway gets it as Express trust proxy', () => {
    expect(EmbeddedConfig.parse({ VERDICT_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(EmbeddedConfig.parse({ VERDICT_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(EmbeddedConfig.parse({ VERDICT_TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
  });

  it('when VERDICT_TRUST_PROXY is unset, then no proxy is trusted', () => {
    expect(EmbeddedConfig.parse({}).trustProxy).toBeUndefined();
  });
});
