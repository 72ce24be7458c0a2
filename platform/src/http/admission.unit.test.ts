import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { admitAtMost } from './admission';

/** A server whose `/slow/:id` requests hold until released; it records what arrived and what got in. */
async function serverWith(limit: number) {
  const arrived: string[] = [];
  const entered: string[] = [];
  const closed: string[] = [];
  const releases = new Map<string, () => void>();
  const app = express();
  app.use((req, res, next) => {
    arrived.push(req.path);
    res.once('close', () => closed.push(req.path));
    next();
  });
  app.use(admitAtMost({ limit, matches: (req) => req.path.startsWith('/slow/') }));
  app.get('/slow/:id', (req, res) => {
    entered.push(req.params.id);
    releases.set(req.params.id, () => res.send('done'));
  });
  app.get('/fast', (_req, res) => {
    entered.push('fast');
    res.send('done');
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const get = (path: string) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent: false });
    const answered = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
    answered.catch(() => undefined);
    return { req, answered };
  };
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const close = () => new Promise((resolve) => server.close(resolve));
  return { arrived, entered, closed, releases, get, until, close };
}

describe('admitAtMost', () => {
  it('when more matching requests arrive than the limit, then the limit get in and the next goes in as one finishes', async () => {
    const s = await serverWith(2);
    const [a, , c] = ['a', 'b', 'c'].map((id) => s.get(`/slow/${id}`));
    await s.until(() => s.arrived.length === 3 && s.entered.length === 2);
    expect(s.entered).toEqual(['a', 'b']);

    s.releases.get('a')?.();
    expect(await a?.answered).toBe(200);
    await s.until(() => s.entered.length === 3);
    expect(s.entered).toEqual(['a', 'b', 'c']);
    s.releases.get('b')?.();
    s.releases.get('c')?.();
    expect(await c?.answered).toBe(200);
    await s.close();
  });

  it('when the limit is taken, then a request it does not match still goes straight in', async () => {
    const s = await serverWith(1);
    s.get('/slow/a');
    await s.until(() => s.entered.length === 1);
    expect(await s.get('/fast').answered).toBe(200);
    expect(s.entered).toEqual(['a', 'fast']);
    s.releases.get('a')?.();
    await s.close();
  });

  it('when a waiting client goes away, then it leaves the queue and the one after it gets the freed place', async () => {
    const s = await serverWith(1);
    s.get('/slow/a');
    const gone = s.get('/slow/gone');
    const c = s.get('/slow/c');
    await s.until(() => s.arrived.length === 3);
    gone.req.destroy();
    await s.until(() => s.closed.includes('/slow/gone'));
    s.releases.get('a')?.();
    await s.until(() => s.entered.length === 2);
    expect(s.entered).toEqual(['a', 'c']);
    s.releases.get('c')?.();
    expect(await c.answered).toBe(200);
    await s.close();
  });

  it('when the limit is not a positive integer, then it refuses to build', () => {
    expect(() => admitAtMost({ limit: 0, matches: () => true })).toThrow(TypeError);
  });
});
