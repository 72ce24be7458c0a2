import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { httpStatusOf, type ErrorCode } from '@verdict/contracts';
import type { Express } from 'express';
import { ConfigError, DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from './config';
import type { Logger } from './logging';

/** What a process must release on shutdown, in order: the HTTP server first, the store last. */
export type Closer = () => Promise<void>;

/**
 * Listens on `host:port` and resolves with the server once it accepts connections. A client slower than
 * `timeouts` (default DEFAULT_HTTP_TIMEOUTS) to send its headers or its body is answered 408 and closed; an
 * idle kept-alive connection is closed after the keep-alive timeout.
 *
 * @example const server = await listen(app, { host: '127.0.0.1', port: 8080, timeouts: config.httpTimeouts });
 */
export function listen(
  app: Express,
  options: { host: string; port: number; timeouts?: HttpTimeouts | undefined },
): Promise<Server> {
  const timeouts = options.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  // Node refuses a headers timeout past the request timeout; the headers are part of the request anyway.
  const headersMs = Math.min(timeouts.headersMs, timeouts.requestMs);
  return new Promise((resolve, reject) => {
    const server = createServer(
      {
        headersTimeout: headersMs,
        requestTimeout: timeouts.requestMs,
        // How often Node looks for connections past those timeouts (its default, 30 s, would let a short
        // timeout run up to 30 s late).
        connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(headersMs / 4))),
      },
      app,
    );
    server.keepAliveTimeout = timeouts.keepAliveMs;
    server.once('error', (error: Error) => reject(listenError(error, options)));
    server.on('clientError', answerClientError);
    server.listen(options.port, options.host, () => resolve(server));
  });
}

/** A raw HTTP/1.1 answer that closes the connection, with the error envelope as its body when given. */
function rawAnswer(status: number, reason: string, error?: { code: ErrorCode; message: string }): string {
  const body = error ? JSON.stringify({ success: false, error }) : '';
  const type = error ? 'Content-Type: application/json; charset=utf-8\r\n' : '';
  return `HTTP/1.1 ${status} ${reason}\r\n${type}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * A request Node's parser refuses before Express sees it (Node answers it with an empty body): with the
 * envelope of every other error instead. Headers over 16 KB, a URL of thousands of ids among them, are a
 * 431; a request that is not HTTP a 400; one whose headers never finished a 408, as Node says it.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const answer =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? rawAnswer(httpStatusOf.HEADERS_TOO_LARGE, 'Request Header Fields Too Large', {
          code: 'HEADERS_TOO_LARGE',
          message: 'The URL and headers exceed 16 KB: send long lists in fewer requests',
        })
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? rawAnswer(408, 'Request Timeout')
        : rawAnswer(httpStatusOf.VALIDATION_ERROR, 'Bad Request', {
            code: 'VALIDATION_ERROR',
            message: 'Malformed HTTP request',
          });
  socket.end(answer);
}

/**
 * A port that is taken or an address this machine does not have is a setting to change, not a crash:
 * said as a ConfigError naming HOST or PORT, without a stack trace.
 */
/**
 * Checks that `host:port` can be listened on, and which port that is (port 0: a free one, chosen now), by
 * listening and closing at once: a process fails on a taken port before it does any work, and knows the
 * port its own URLs name before the server that will use it exists.
 *
 * @example const port = await reservePort({ host: '127.0.0.1', port: 0 });
 */
export function reservePort(options: { host: string; port: number }): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', (error) => reject(listenError(error, options)));
    probe.listen(options.port, options.host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : options.port;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The inodes of this machine's TCP sockets (IPv4 and IPv6, from /proc/net) in a state, by port: `listen`
 * on a local port, or `established` to a remote one (a client's side of its connections to a server).
 * Matched against `/proc/<pid>/fd` links (`socket:[inode]`), they say which process holds which socket.
 *
 * @example tcpSocketInodes({ state: 'established', remotePort: 5432 }) // the connections to PostgreSQL
 */
export function tcpSocketInodes(
  filter: { state: 'listen'; localPort: number } | { state: 'established'; remotePort: number },
): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const columns = line.trim().split(/\s+/);
      const [local, remote, state, inode] = [columns[1], columns[2], columns[3], columns[9]];
      if (inode === undefined || inode === '0') continue;
      // 0A: LISTEN, 01: ESTABLISHED; the port is the hex after the address's last colon.
      const port = (address: string | undefined) => parseInt(address?.split(':').at(-1) ?? '', 16);
      const matches =
        filter.state === 'listen'
          ? state === '0A' && port(local) === filter.localPort
          : state === '01' && port(remote) === filter.remotePort;
      if (matches) inodes.add(inode);
    }
  }
  return inodes;
}

/**
 * The process listening on TCP `port` on this machine, with its command line, as far as /proc tells (Linux;
 * null elsewhere, or when the process belongs to another user). Same lookup as portHolder in scripts/lib.cjs,
 * which the launcher runs before any dependency is installed.
 *
 * @example portHolder(8080) // { pid: 4242, command: 'node services/gateway/…' }
 */
export function portHolder(port: number): { pid: number; command: string } | null {
  const inodes = tcpSocketInodes({ state: 'listen', localPort: port });
  if (inodes.size === 0) return null;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && inodes.has(inode)) return { pid: Number(pid), command: commandOf(pid) };
    }
  }
  return null;
}

function commandOf(pid: string): string {
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return command.length > 200 ? `${command.slice(0, 199)}…` : command;
  } catch {
    return '?';
  }
}

/** Who holds a port, in words for a refusal. */
function holderText(port: number): string {
  const holder = portHolder(port);
  return holder === null ? 'another process' : `pid ${holder.pid} (${holder.command})`;
}

function listenError(error: Error, options: { host: string; port: number }): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${options.host}:${options.port}`;
  if (code === 'EADDRINUSE') {
    return new ConfigError([
      `PORT: ${where} is already in use by ${holderText(options.port)}; stop it (an earlier Verdict?) or choose another port`,
    ]);
  }
  if (code === 'EACCES') return new ConfigError([`PORT: this process may not listen on ${where}`]);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new ConfigError([`HOST: ${options.host} is not an address of this machine (${code})`]);
  }
  return error;
}

/**
 * Whether a process with this pid exists (signal 0 checks without signalling).
 *
 * @example if (!isProcessAlive(holder)) takeOver();
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else; ESRCH: it is gone.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Closes an HTTP server: stops accepting, lets in-flight requests finish, drops idle keep-alive sockets. */
export function closeServer(server: Server): Closer {
  return () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
}

/**
 * The variable a launcher sets to the file descriptor of a pipe it holds open to this process (and never
 * writes to). The pipe ends when the launcher does, however it ended (a SIGKILL included): the process
 * then stops, rather than running on as an orphan with its port bound and its consumers in their groups.
 */
export const LAUNCHER_FD_VARIABLE = 'VERDICT_LAUNCHER_FD';

/** How long a process whose launcher is gone may take to stop cleanly before it exits anyway. */
const ORPHAN_STOP_MS = 20_000;

/**
 * Calls `onGone` once the launcher's pipe (LAUNCHER_FD_VARIABLE) ends; does nothing without one.
 *
 * @example whenLauncherGone(() => process.kill(process.pid, 'SIGTERM'));
 */
export function whenLauncherGone(onGone: () => void): void {
  const fd = Number(process.env[LAUNCHER_FD_VARIABLE]);
  if (!Number.isInteger(fd) || fd < 3) return;
  // Not for this process's own children: they get no such descriptor.
  delete process.env[LAUNCHER_FD_VARIABLE];
  let pipe: Socket;
  try {
    pipe = new Socket({ fd, readable: true, writable: false });
  } catch {
    return;
  }
  let gone = false;
  const end = () => {
    if (gone) return;
    gone = true;
    onGone();
  };
  pipe.on('end', end);
  pipe.on('close', end);
  pipe.on('error', end);
  pipe.resume();
  // Watching must not keep an otherwise finished process alive.
  pipe.unref();
}

/**
 * Runs the closers once, in order, on SIGINT or SIGTERM, then exits; a second signal exits at once. Also
 * when the launcher that started the process is gone (whenLauncherGone), within ORPHAN_STOP_MS.
 *
 * @example onShutdown(logger, [closeServer(server), () => bus.close(), () => db.close()]);
 */
export function onShutdown(logger: Logger, closers: Closer[]): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals | 'launcher gone') => {
    if (stopping) process.exit(130);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    let code = 0;
    for (const close of closers) {
      try {
        await close();
      } catch (error) {
        code = 1;
        logger.error({ err: error }, 'error during shutdown');
      }
    }
    logger.flush();
    process.exit(code);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  whenLauncherGone(() => {
    // Its end of stdout and stderr may be gone with it: a failed write must not stop the shutdown.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
    logger.warn('the launcher that started this process is gone; shutting down');
    setTimeout(() => process.exit(1), ORPHAN_STOP_MS).unref();
    void stop('launcher gone');
  });
}

/**
 * Runs a process's start-up: a bad configuration exits 2 with the offending variables named, any other
 * failure exits 1 with its stack on stderr (the process is not serving yet, so nothing else can report it).
 *
 * @example runMain('gateway', main);
 */
export function runMain(name: string, start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${name} failed to start: ${detail}\n`);
    process.exit(1);
  });
}
