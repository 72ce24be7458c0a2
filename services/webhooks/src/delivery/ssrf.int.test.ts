import http, { type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { secretKey } from '../testKit';
import { createSecretBox, newSigningSecret } from '../security/secrets';
import { checkTarget, systemResolver, type ResolvedAddress, type Resolver } from '../security/targets';
import { attemptDelivery, type AttemptDeps, type DeliveryToSend } from './request';
import { createSender } from './send';

// The SSRF guard on the real delivery path (attemptDelivery: the check, then the sender's POST) against
// real local servers. Each "trap" is a server a refused attempt must never reach; where a case is refused,
// the same URL with private networks allowed does reach the trap, so a pass is never vacuous.

interface Listener {
  port: number;
  received: IncomingHttpHeaders[];
  answer: (res: http.ServerResponse) => void;
  close(): Promise<void>;
}

async function listenOn(host: string, port = 0): Promise<Listener> {
  const listener: Listener = {
    port: 0,
    received: [],
    answer: (res) => res.writeHead(204).end(),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server: Server = http.createServer((req, res) => {
    listener.received.push(req.headers);
    req.resume();
    req.on('end', () => listener.answer(res));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  listener.port = (server.address() as AddressInfo).port;
  return listener;
}

const secrets = createSecretBox(secretKey);
const sender = createSender({ idleTimeoutMs: 100 });
const deps = (allowPrivateNetworks: boolean, resolve: Resolver = systemResolver): AttemptDeps => ({
  sender,
  targets: { allowPrivateNetworks, resolve },
  secrets,
  cutover: new Date('2026-12-11T00:00:00Z'),
  timeoutMs: 2_000,
});
const delivery = (url: string): DeliveryToSend => ({
  id: 'dlv_ssrf',
  project_id: 'p-ssrf',
  event_name: 'run.finished',
  run_json: '{}',
  occurred_at: new Date('2026-03-01T10:00:00Z'),
  url,
  sealed_secret: secrets.seal(newSigningSecret()),
});
const now = new Date('2026-03-01T10:00:00Z');

describe('webhook SSRF on the delivery path', () => {
  // Dual-stack: it takes connections to 127.0.0.1, ::1 and ::ffff:127.0.0.1 alike.
  let trap: Listener;

  beforeAll(async () => {
    trap = await listenOn('::');
  });
  afterAll(async () => {
    sender.close();
    await trap.close();
  });
  beforeEach(() => {
    trap.received.length = 0;
  });

  it.each([
    ['decimal', 'http://2130706433:PORT/hook', '127.0.0.1'],
    ['octal', 'http://0177.0.0.1:PORT/hook', '127.0.0.1'],
    ['hex, dotted', 'http://0x7f.0.0.1:PORT/hook', '127.0.0.1'],
    ['hex, whole', 'http://0x7f000001:PORT/hook', '127.0.0.1'],
    ['short', 'http://127.1:PORT/hook', '127.0.0.1'],
    ['IPv6 loopback', 'http://[::1]:PORT/hook', '::1'],
    ['IPv4-mapped IPv6, dotted', 'http://[::ffff:127.0.0.1]:PORT/hook', '::ffff:7f00:1'],
    ['IPv4-mapped IPv6, hex', 'http://[::ffff:7f00:1]:PORT/hook', '::ffff:7f00:1'],
    // The system resolver's answer: 127.0.0.1 or ::1, whichever this machine's hosts file puts first.
    ['a name of loopback', 'http://localhost:PORT/hook', '127.0.0.1|::1'],
  ])(
    'when the url is a loopback address written %s, then nothing is sent (and with private networks allowed, the trap would get it)',
    async (_form, template, address) => {
      const url = template.replace('PORT', String(trap.port));
      const refused = await attemptDelivery(delivery(url), now, deps(false));
      expect(refused).toMatchObject({ ok: false, statusCode: null });
      const named = /refused: url resolves to (\S+),/.exec(refused.error ?? '')?.[1];
      expect(address.split('|')).toContain(named);
      expect(trap.received).toEqual([]);

      const allowed = await attemptDelivery(delivery(url), now, deps(true));
      expect(allowed).toMatchObject({ ok: true, statusCode: 204 });
      expect(trap.received).toHaveLength(1);
    },
  );

  it('when a name resolves to one address at the check and to another right after, then the POST goes to the address checked (pinned), never re-resolved', async () => {
    // Both on one port: the name's later answer (and the system's answer for `localhost`) is the trap.
    const rebound = await listenOn('127.0.0.1');
    const pinned = await listenOn('127.0.0.2', rebound.port);
    const answers: ResolvedAddress[] = [
      { address: '127.0.0.2', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    let asked = 0;
    const rebinding: Resolver = async () => [answers[Math.min(asked++, 1)] as ResolvedAddress];
    try {
      const outcome = await attemptDelivery(
        delivery(`http://localhost:${rebound.port}/hook`),
        now,
        deps(true, rebinding),
      );
      expect(outcome).toMatchObject({ ok: true, statusCode: 204 });
      expect(asked).toBe(1);
      expect(pinned.received).toHaveLength(1);
      expect(pinned.received[0]?.host).toBe(`localhost:${rebound.port}`);
      expect(rebound.received).toEqual([]);
    } finally {
      await Promise.all([pinned.close(), rebound.close()]);
    }
  });

  it('when a name was public when the subscription was checked and is loopback at send time, then the attempt is refused and nothing is sent', async () => {
    let answer: ResolvedAddress = { address: '93.184.216.34', family: 4 };
    const resolve: Resolver = async () => [answer];
    const url = `http://hooks.rebind.example:${trap.port}/hook`;
    expect((await checkTarget(url, { allowPrivateNetworks: false, resolve })).ok).toBe(true);
    answer = { address: '::ffff:127.0.0.1', family: 6 };
    const outcome = await attemptDelivery(delivery(url), now, deps(false, resolve));
    expect(outcome.error).toContain('refused: url resolves to ::ffff:127.0.0.1');
    expect(trap.received).toEqual([]);
  });

  it.each([
    [301, 'http://127.0.0.1:PORT/hook'],
    [302, 'http://127.0.0.1:PORT/hook'],
    [303, 'http://[::1]:PORT/hook'],
    [307, 'http://[::ffff:127.0.0.1]:PORT/hook'],
    [308, 'http://2130706433:PORT/hook'],
    [302, 'http://169.254.169.254/latest/meta-data/'],
  ])(
    'when the receiver answers %d to %s, then the redirect is not followed and the attempt fails',
    async (status, template) => {
      const redirecting = await listenOn('127.0.0.1');
      redirecting.answer = (res) =>
        res.writeHead(status, { location: template.replace('PORT', String(trap.port)) }).end();
      try {
        const outcome = await attemptDelivery(
          delivery(`http://127.0.0.1:${redirecting.port}/hook`),
          now,
          deps(true),
        );
        expect(outcome).toMatchObject({
          ok: false,
          statusCode: status,
          error: `redirect (${status}) not followed`,
        });
        expect(redirecting.received).toHaveLength(1);
        // A follow-up would have arrived by the time the attempt settled: the sender settles on the status line.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(trap.received).toEqual([]);
      } finally {
        await redirecting.close();
      }
    },
  );
});
