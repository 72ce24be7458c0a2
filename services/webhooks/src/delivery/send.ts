/**
 * One HTTP POST of a delivery. It connects to the address the SSRF check approved (the name is not
 * resolved again, which closes DNS rebinding), sends the Host and TLS server name of the URL, follows no
 * redirect, ignores the response body, and gives up after the timeout.
 *
 * Connections are kept alive, in one pool per approved address: a pooled connection only ever reaches the
 * address it was opened to, so reuse cannot bypass the check, and a receiver taking many deliveries is not
 * sent a TCP (and TLS) handshake for each.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ResolvedAddress } from '../security/targets';

export interface SendRequest {
  url: URL;
  address: ResolvedAddress;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  responseTimeMs: number;
  error: string | null;
}

export interface Sender {
  /** Posts the body; resolves (never rejects) with what happened. */
  send(request: SendRequest): Promise<SendOutcome>;
  /** Closes every pooled connection. */
  close(): void;
}

export interface SenderOptions {
  /** Connections per address at most (default 64). */
  maxSocketsPerAddress?: number;
  /** Pools kept (one per address), least recently used dropped first (default 256). */
  maxPools?: number;
  /**
   * How long an idle connection is kept (default 4 s: under the 5 s keep-alive of Node servers, so the
   * receiver rarely closes a connection just as a delivery goes out on it).
   */
  idleTimeoutMs?: number;
}

/** A response body bigger than this is not drained: the connection is dropped instead of kept. */
const MAX_DRAINED_BYTES = 64 * 1024;
/** …or one that takes longer than this to arrive. */
const DRAIN_TIMEOUT_MS = 2_000;

/** A lookup that answers the pinned address whatever name it is asked for. */
function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
}

/** Errors of a kept-alive connection the receiver closed meanwhile: the request never reached it. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * The sender with its connection pools.
 *
 * @example const sender = createSender(); const outcome = await sender.send({ url, address, headers, body, timeoutMs: 15_000 });
 */
export function createSender(options: SenderOptions = {}): Sender {
  const maxPools = options.maxPools ?? 256;
  const idleTimeoutMs = options.idleTimeoutMs ?? 4_000;
  const maxSockets = options.maxSocketsPerAddress ?? 64;
  // Insertion order is recency: a used pool is moved to the end.
  const pools = new Map<string, http.Agent>();

  function poolFor(url: URL, address: ResolvedAddress): http.Agent {
    const key = `${url.protocol}//${address.family === 6 ? `[${address.address}]` : address.address}`;
    let agent = pools.get(key);
    if (agent) pools.delete(key);
    else {
      const settings = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: idleTimeoutMs };
      agent = url.protocol === 'https:' ? new https.Agent(settings) : new http.Agent(settings);
    }
    pools.set(key, agent);
    for (const [oldKey, old] of pools) {
      if (pools.size <= maxPools) break;
      pools.delete(oldKey);
      old.destroy();
    }
    return agent;
  }

  function send(request: SendRequest): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const body = Buffer.from(request.body, 'utf8');
    return new Promise((resolve) => {
      let settled = false;
      let current: http.ClientRequest | null = null;
      const settle = (outcome: Omit<SendOutcome, 'responseTimeMs'>, atLeastMs = 0) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...outcome, responseTimeMs: Math.max(elapsed(), atLeastMs) });
      };
      // Node's timers may fire a fraction of a millisecond before performance.now() says the time is up
      // (CI once measured 1,999 ms for a 2,000 ms timeout): a timed-out attempt waited the whole timeout.
      const timer = setTimeout(() => {
        const error = `timed out after ${request.timeoutMs} ms`;
        settle({ ok: false, statusCode: null, error }, request.timeoutMs);
        current?.destroy();
      }, request.timeoutMs);

      const post = (agent: http.Agent | false) => {
        const transport = request.url.protocol === 'https:' ? https : http;
        const req = transport.request(request.url, {
          method: 'POST',
          headers: { ...request.headers, 'content-length': String(body.length) },
          lookup: pinnedLookup(request.address),
          agent,
        });
        current = req;
        req.on('response', (res) => {
          const statusCode = res.statusCode ?? 0;
          // Spec §6: the response body is not read. A small one is drained unread so that the connection
          // can carry the next delivery; a big one (or a late one) costs the connection instead.
          const declared = Number(res.headers['content-length'] ?? 0);
          if (settled || declared > MAX_DRAINED_BYTES) req.destroy();
          else {
            let drained = 0;
            const deadline = setTimeout(() => req.destroy(), DRAIN_TIMEOUT_MS);
            res.on('data', (chunk: Buffer) => {
              drained += chunk.length;
              if (drained > MAX_DRAINED_BYTES) req.destroy();
            });
            res.on('close', () => clearTimeout(deadline));
            res.on('error', () => undefined);
          }
          if (statusCode >= 200 && statusCode < 300) settle({ ok: true, statusCode, error: null });
          else if (statusCode >= 300 && statusCode < 400) {
            settle({ ok: false, statusCode, error: `redirect (${statusCode}) not followed` });
          } else settle({ ok: false, statusCode, error: `answered ${statusCode}` });
        });
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (settled) return;
          // A pooled connection the receiver closed just before we wrote on it: once more, on a new one.
          if (agent !== false && req.reusedSocket && STALE_CONNECTION.has(error.code ?? '')) {
            post(false);
            return;
          }
          settle({ ok: false, statusCode: null, error: error.message || 'request failed' });
        });
        req.end(body);
      };
      post(poolFor(request.url, request.address));
    });
  }

  return {
    send,
    close() {
      for (const agent of pools.values()) agent.destroy();
      pools.clear();
    },
  };
}
