import express from 'express';
import { ConfigError } from './config';
import { listen } from './process';

describe('listen', () => {
  it('when the port is taken, then a ConfigError names PORT and the address, not a stack trace', async () => {
    const first = await listen(express(), { host: '127.0.0.1', port: 0 });
    const address = first.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const second = listen(express(), { host: '127.0.0.1', port });
      await expect(second).rejects.toThrow(ConfigError);
      await expect(second).rejects.toThrow(`PORT: 127.0.0.1:${port} is already in use by another process`);
    } finally {
      first.close();
    }
  });

  it('when the host is no address of this machine, then a ConfigError names HOST', async () => {
    await expect(listen(express(), { host: '999.1.1.1', port: 0 })).rejects.toThrow(
      /^Invalid configuration:\n {2}- HOST: 999\.1\.1\.1 is not an address of this machine/,
    );
  });
});
