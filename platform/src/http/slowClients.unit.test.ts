import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { silentLogger } from '../logging';
import { closeServer, listen } from '../process';
import { createHttpApp } from './app';

// Slowloris: a client that trickles its headers or its body, or opens a connection and says nothing, is
// closed by the server's timeouts (listen's `timeouts`, VERDICT_HTTP_*_TIMEOUT_MS). The timeouts here are
// short; the test asserts only that the socket closes, well before a generous deadline.

const TIMEOUTS = { headersMs: 300, requestMs: 600, keepAliveMs: 300 };
/** Far past every timeout above, and far short of jest's own: a server that never closes fails here. */
const DEADLINE_MS = 10_000;

describe('a slow client', () => {
  let server: Server;
  let port: number;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'test' });
    app.post('/echo', (req, res) => res.json({ success: true, data: req.body as unknown }));
    finish(app);
    server = await listen(app, { host: '127.0.0.1', port: 0, timeouts: TIMEOUTS });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await closeServer(server)();
  });

  /** A raw connection; `closed` resolves with what the server sent once it closes the connection. */
  async function open(): Promise<{ socket: Socket; closed: Promise<string> }> {
    const socket = connect(port, '127.0.0.1');
    sockets.push(socket);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const closed = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`still open after ${DEADLINE_MS} ms`)), DEADLINE_MS);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(received);
      });
    });
    await new Promise((resolve) => socket.once('connect', resolve));
    return { socket, closed };
  }

  /** Writes `text` a byte every `everyMs` until it is all sent or the socket is closed. */
  function trickle(socket: Socket, text: string, everyMs = 50): void {
    let index = 0;
    const timer = setInterval(() => {
      if (index >= text.length || socket.destroyed || !socket.writable) {
        clearInterval(timer);
        return;
      }
      socket.write(text.charAt(index));
      index += 1;
    }, everyMs);
    socket.on('close', () => clearInterval(timer));
  }

  it('when it sends its headers a byte at a time, then the server answers 408 and closes the connection', async () => {
    const { socket, closed } = await open();
    trickle(socket, `GET /healthz HTTP/1.1\r\nHost: x\r\n${'X-Slow: a\r\n'.repeat(200)}\r\n`);
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('when it sends its headers and then its body a byte at a time, then the server closes the connection', async () => {
    const { socket, closed } = await open();
    const body = JSON.stringify({ padding: 'x'.repeat(500) });
    socket.write(
      `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    trickle(socket, body);
    // No answer of the route: the body never arrived whole.
    expect(await closed).not.toContain('"success":true');
  });

  it('when it opens a connection and sends nothing, then the server closes it', async () => {
    const { closed } = await open();
    await expect(closed).resolves.toBeDefined();
  });

  it('when it keeps a connection open after its answer, then the server closes the idle connection', async () => {
    const { socket, closed } = await open();
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await closed).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('when the headers timeout is set past the request timeout, then the server still listens, bounded by the request timeout', async () => {
    const { app } = createHttpApp({ logger: silentLogger(), service: 'test' });
    const other = await listen(app, {
      host: '127.0.0.1',
      port: 0,
      timeouts: { ...TIMEOUTS, headersMs: 60_000 },
    });
    expect([other.headersTimeout, other.requestTimeout]).toEqual([600, 600]);
    await closeServer(other)();
  });
});
