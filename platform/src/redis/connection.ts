/**
 * The lifecycle every Redis client of the platform needs: connect in the background, reconnect with
 * capped, jittered backoff while open, know whether a connection attempt is in flight, and close without
 * leaking a connection node-redis completes after destroy().
 */
interface RedisClient {
  on(event: 'ready' | 'error' | 'reconnecting', listener: (err: unknown) => void): unknown;
  off(event: 'ready' | 'error', listener: (err: unknown) => void): unknown;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): unknown;
}

export type ConnectionState = 'connecting' | 'ready' | 'backingOff';

export interface ManagedConnection {
  state(): ConnectionState;
  /** True once the client has been ready at least once. */
  everReady(): boolean;
  /** Resolves when the first connect() settles (never rejects). */
  connecting: Promise<void>;
  close(): Promise<void>;
}

/** Exponential backoff from 100 ms up to `maxDelayMs`, with jitter so replicas do not reconnect in lockstep. */
export function reconnectDelay(retries: number, maxDelayMs = 5_000): number {
  const base = Math.min(100 * 2 ** Math.min(retries, 16), maxDelayMs);
  return Math.round(base / 2 + Math.random() * (base / 2));
}

/**
 * Starts a client's connection and tracks its state; `onReady` and `onError` let each adapter log as it
 * sees fit (an error listener is always installed: without one node-redis crashes the process).
 *
 * @example const connection = manageConnection(client, { onError: (err, wasReady) => wasReady && log.warn({ err }, 'lost') });
 */
export function manageConnection(
  client: RedisClient,
  hooks: {
    onReady?(): void;
    onError?(err: unknown, wasReady: boolean): void;
    onGiveUp?(err: unknown): void;
  } = {},
): ManagedConnection {
  let state: ConnectionState = 'connecting';
  let everReady = false;
  client.on('ready', () => {
    state = 'ready';
    everReady = true;
    hooks.onReady?.();
  });
  client.on('error', (err: unknown) => {
    hooks.onError?.(err, state === 'ready');
    state = 'backingOff';
  });
  client.on('reconnecting', () => {
    state = 'connecting';
  });
  const connecting = client.connect().then(
    () => undefined,
    (err: unknown) => hooks.onGiveUp?.(err),
  );
  return {
    state: () => state,
    everReady: () => everReady,
    connecting,
    async close() {
      // node-redis completes a connection attempt that was in flight when destroy() was called and then
      // leaks it, so let such an attempt settle first (connectTimeout bounds it).
      while (state === 'connecting') {
        await new Promise<void>((resolve) => {
          const settle = () => {
            client.off('ready', settle);
            client.off('error', settle);
            resolve();
          };
          client.on('ready', settle);
          client.on('error', settle);
        });
      }
      // close() lets in-flight commands finish; destroy() also ends the backoff sleep of a reconnect loop.
      if (state === 'ready') await client.close();
      else client.destroy();
      await connecting;
    },
  };
}
