import { connect } from 'node:net';
import express from 'express';
import { ConfigError } from './config';
import { readdirSync, readlinkSync } from 'node:fs';
import { listen, portHolder, reservePort, tcpSocketInodes } from './process';

describe('listen', () => {
  it('when the port is taken, then a ConfigError names PORT, the address and the pid holding it, not a stack trace', async () => {
    const first = await listen(express(), { host: '127.0.0.1', port: 0 });
    const address = first.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const second = listen(express(), { host: '127.0.0.1', port });
      await expect(second).rejects.toThrow(ConfigError);
      await expect(second).rejects.toThrow(
        `PORT: 127.0.0.1:${port} is already in use by pid ${process.pid} (`,
      );
    } finally {
      first.close();
    }
  });

  it('when the host is no address of this machine, then a ConfigError names HOST', async () => {
    await expect(listen(express(), { host: '999.1.1.1', port: 0 })).rejects.toThrow(
      /^Invalid configuration:\n {2}- HOST: 999\.1\.1\.1 is not an address of this machine/,
    );
  });

  describe('a request Node refuses before the routes', () => {
    /** Sends `raw` on a plain socket and collects the whole answer. */
    async function rawExchange(raw: string): Promise<string> {
      const server = await listen(express(), { host: '127.0.0.1', port: 0 });
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      try {
        return await new Promise<string>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => socket.write(raw));
          let answer = '';
          socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
          socket.on('end', () => resolve(answer));
          socket.on('error', reject);
        });
      } finally {
        server.close();
      }
    }

    it('when the URL and headers exceed 16 KB, then it is a 431 with the error envelope', async () => {
      const answer = await rawExchange(`GET /runs?ids=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 431 /);
      expect(head).toMatch(/content-type: application\/json/i);
      expect(JSON.parse(body)).toEqual({
        success: false,
        error: { code: 'HEADERS_TOO_LARGE', message: expect.stringContaining('16 KB') },
      });
    });

    it('when the request is not HTTP, then it is a 400 VALIDATION_ERROR with the envelope', async () => {
      const answer = await rawExchange('HELLO THERE\r\n\r\n');
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(body)).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    });
  });
});

describe('portHolder', () => {
  it('when this process listens on a port, then it is named with its command line; a free port has no holder', async () => {
    const server = await listen(express(), { host: '127.0.0.1', port: 0 });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      expect(portHolder(port)).toEqual({ pid: process.pid, command: expect.stringContaining('node') });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(portHolder(port)).toBeNull();
  });
});

describe('tcpSocketInodes', () => {
  it('when this process holds a connection to a server, then the connection is among the established ones to its port, and the server among those listening on it', async () => {
    const server = await listen(express(), { host: '127.0.0.1', port: 0 });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const client = connect(port, '127.0.0.1');
    try {
      await new Promise((resolve) => client.once('connect', resolve));
      const ownSockets = readdirSync('/proc/self/fd')
        .map((fd) => {
          try {
            return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
          } catch {
            return undefined;
          }
        })
        .filter((inode): inode is string => inode !== undefined);
      const established = tcpSocketInodes({ state: 'established', remotePort: port });
      // The client's side, and nothing of this process's that goes elsewhere.
      expect(ownSockets.filter((inode) => established.has(inode))).toHaveLength(1);
      const listening = tcpSocketInodes({ state: 'listen', localPort: port });
      expect(ownSockets.filter((inode) => listening.has(inode))).toHaveLength(1);
    } finally {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(tcpSocketInodes({ state: 'listen', localPort: port }).size).toBe(0);
  });
});

describe('reservePort', () => {
  it('when port 0 is asked, then a free port is chosen, and it can then be listened on', async () => {
    const port = await reservePort({ host: '127.0.0.1', port: 0 });
    expect(port).toBeGreaterThan(0);
    const server = await listen(express(), { host: '127.0.0.1', port });
    await new Promise((resolve) => server.close(resolve));
  });

  it('when the port is taken, then a ConfigError names PORT before any work is done', async () => {
    const first = await listen(express(), { host: '127.0.0.1', port: 0 });
    const address = first.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      await expect(reservePort({ host: '127.0.0.1', port })).rejects.toThrow(
        `PORT: 127.0.0.1:${port} is already in use by pid ${process.pid} (`,
      );
    } finally {
      await new Promise((resolve) => first.close(resolve));
    }
  });
});
