import type { Express } from 'express';
import type {
  BlobStore,
  CheckpointStore,
  Clock,
  DeadLetterStore,
  EventBus,
  KeyValue,
  Logger,
  RateLimiter,
  Registry,
  SqlDatabase,
} from '@verdict/platform';
import { createSqlEventStore } from '@verdict/platform';
import { createSessionStore } from './access/sessions/sessionStore';
import { createGatewayApp, DEFAULT_SESSION_IDLE_MINUTES } from './app';
import { createIdentity, type Identity } from './identity/module';
import type { McpEndpoint } from './mcp/mcpEndpoint';
import type { ServiceMount } from './routing/forward';

/** The gateway's event store schema: identity's events. */
export const GATEWAY_SCHEMA = 'gateway_identity';

export interface GatewayPorts {
  db: SqlDatabase;
  bus: EventBus;
  kv: KeyValue;
  rateLimiter: RateLimiter;
  /** SQL checkpoints in the distributed mode; memory in the embedded mode, where the bus is in memory too. */
  checkpoints: CheckpointStore;
  clock: Clock;
  logger: Logger;
  /** Where the gateway's metrics go, shared with modules of the same process; its own when omitted. */
  metrics?: Registry;
  /** The dead letters of every consumer (one table in the shared database), for the admin API. */
  deadLetters: DeadLetterStore;
}

export interface GatewaySettings {
  adminKey: string;
  internalSecret: string;
  publicUrl: string;
  ingestLimitPerMinute: number;
  services: ServiceMount[];
  trustProxy?: boolean | number | string;
  downloads?: { blobs: BlobStore; secret: string };
  /** A web session ends after this many minutes without a request (VERDICT_SESSION_IDLE_MINUTES). */
  sessionIdleMinutes?: number;
  /** The built web app served at `/` (VERDICT_WEB_DIR); the API only without it. */
  webDir?: string;
  /** The MCP server to serve at /mcp (`createMcpHttpHandler` of `@verdict/mcp`); absent: none. */
  mcp?: McpEndpoint;
  /**
   * Where identity lives: event store schema, read-model schema and topic. Defaults suit one Verdict per
   * database and cluster; set them to run several side by side (integration tests do).
   */
  names?: { storeSchema?: string; readModelSchema?: string; topic?: string };
}

export interface Gateway {
  app: Express;
  identity: Identity;
  /**
   * A one-time sign-in link of the web app for a token: it opens one session, once, within `ttlMs`.
   * `npm start` prints one for the demo user on its first start.
   */
  signInLink(tokenId: string, ttlMs: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Builds and starts the gateway on its ports: identity (store, relay, projector), then the HTTP app.
 * The embedded launcher and the gateway's own process both go through here, so both run one code path.
 *
 * @example const gateway = await startGateway(ports, settings); await listen(gateway.app, { host, port });
 */
export async function startGateway(ports: GatewayPorts, settings: GatewaySettings): Promise<Gateway> {
  const { names, sessionIdleMinutes, ...appSettings } = settings;
  const store = createSqlEventStore({
    db: ports.db,
    schema: names?.storeSchema ?? GATEWAY_SCHEMA,
    clock: ports.clock,
  });
  const identity = createIdentity({
    db: ports.db,
    store,
    bus: ports.bus,
    checkpoints: ports.checkpoints,
    logger: ports.logger,
    clock: ports.clock,
    kv: ports.kv,
    ...(names?.readModelSchema ? { schema: names.readModelSchema } : {}),
    ...(names?.topic ? { topic: names.topic } : {}),
  });
  await identity.start();
  const sessions = createSessionStore({
    kv: ports.kv,
    clock: ports.clock,
    idleTimeoutMs: (sessionIdleMinutes ?? DEFAULT_SESSION_IDLE_MINUTES) * 60_000,
  });
  const app = createGatewayApp({
    sessions,
    logger: ports.logger,
    readiness: {
      store: () => ports.db.ping(),
      bus: () => ports.bus.ping(),
      keyValue: () => ports.kv.ping(),
    },
    identity,
    rateLimiter: ports.rateLimiter,
    kv: ports.kv,
    clock: ports.clock,
    ...(ports.metrics ? { metrics: ports.metrics } : {}),
    deadLetters: { store: ports.deadLetters, bus: ports.bus },
    ...appSettings,
  });
  return {
    app,
    identity,
    async signInLink(tokenId, ttlMs) {
      const code = await sessions.issueSignInCode(tokenId, ttlMs);
      // In the fragment: browsers send no fragment to servers, so the code stays out of access logs.
      return `${settings.publicUrl.replace(/\/+$/, '')}/sign-in#code=${code}`;
    },
    stop: () => identity.stop(),
  };
}
