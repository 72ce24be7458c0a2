import type { Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { Duplex } from 'node:stream';
import { httpStatusOf, type ErrorCode } from '@verdict/contracts';
import type { Express } from 'express';
import { ConfigError } from './config';
import type { Logger } from './logging';

/** What a process must release on shutdown, in order: the HTTP server first, the store last. */
export type Closer = () => Promise<void>;

/**
 * Listens on `host:port` and resolves with the server once it accepts connections.
 *
 * @example const server = await listen(app, { host: '127.0.0.1', port: 8080 });
 */
export function listen(app: Express, options: { host: string; port: number }): Promise<Server> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(listenError(error, options));
    const server = app.listen(options.port, options.host, (error?: Error) =>
      error ? failed(error) : resolve(server),
    );
    server.once('error', failed);
    server.on('clientError', answerClientError);
    // Behind a load balancer idle sockets must outlive its keep-alive, or it sees resets.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
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

function listenError(error: Error, options: { host: string; port: number }): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const where = `${options.host}:${options.port}`;
  if (code === 'EADDRINUSE') return new ConfigError([`PORT: ${where} is already in use by another process`]);
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
 * Runs the closers once, in order, on SIGINT or SIGTERM, then exits; a second signal exits at once.
 *
 * @example onShutdown(logger, [closeServer(server), () => bus.close(), () => db.close()]);
 */
export function onShutdown(logger: Logger, closers: Closer[]): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
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
