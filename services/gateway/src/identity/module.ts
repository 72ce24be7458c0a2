/**
 * The identity slice of the gateway, built from its ports: the admin API, the directory the access checks
 * read, and the machinery between them (relay: store → topic; projector: topic → read model). The same
 * code runs embedded (PGlite, in-process bus, memory checkpoints) and distributed (PostgreSQL, Kafka, SQL
 * checkpoints).
 */
import {
  createOutboxRelay,
  createProjector,
  systemClock,
  waitForProjection,
  type CheckpointStore,
  type Clock,
  type EventBus,
  type EventStore,
  type KeyValue,
  type Logger,
  type Projector,
  type SqlDatabase,
  type Subscription,
} from '@verdict/platform';
import type { Router } from 'express';
import { adminRouter } from './routes';
import { createAdminReads, type Page } from './adminReads';
import { createMemberReads, type MemberReads } from './members';
import type { AdminTokenRecord } from '@verdict/contracts';
import { createIdentityCommands, type IdentityCommands } from './commands';
import type { IdentityDirectory } from './directory';
import {
  createSqlIdentityDirectory,
  IDENTITY_READ_MODEL,
  identityProjection,
} from './projections/identityReadModel';
import { withProjectCache } from './projectCache';
import { bumpIdentityVersion, withTokenCache } from './tokenCache';
import { seedDemo, type DemoSeed } from './seed';
import type { UserRecord } from './projections/identityReadModel';

/** What a web session shows of its person: who they are and what their organizations are called. */
export interface Accounts {
  findUser(userId: string): Promise<UserRecord | null>;
  organizationNames(ids: readonly string[]): Promise<Map<string, string>>;
  /** The person's own personal tokens, newest first, without their secrets' hashes. */
  personalTokens(userId: string, page: number, limit: number): Promise<Page<AdminTokenRecord>>;
}

/** The topic the identity events travel on, keyed by stream id. */
export const IDENTITY_TOPIC = 'identity';

export interface IdentityOptions {
  /** Holds the read model (and, through `store`, usually the events too). */
  db: SqlDatabase;
  /** The identity event store; every event in it is relayed to the identity topic. */
  store: EventStore;
  bus: EventBus;
  /** Where the relay keeps its position: SQL checkpoints when distributed, memory when embedded. */
  checkpoints: CheckpointStore;
  logger: Logger;
  clock?: Clock;
  /** The read model's schema, also the projection's name and consumer group suffix (default `identity`). */
  schema?: string;
  /** The topic of identity events (default `identity`). */
  topic?: string;
  /** How long an admin write waits for the read model before answering 503 (default 10 s). */
  readYourWritesTimeoutMs?: number;
  /**
   * Shared by the gateway replicas: token records are cached per replica and refreshed when an admin write
   * bumps the identity version here (see tokenCache.ts). Without it, every request reads the database.
   */
  kv?: KeyValue;
}

export interface Identity {
  /** The `/admin/v1` router, opened by `adminKey` (at least 16 characters). */
  adminRouter(adminKey: string): Router;
  /** Tokens, projects and roles for the access checks. */
  directory: IdentityDirectory;
  /** The use cases behind the admin API, for other in-process callers. */
  commands: IdentityCommands;
  accounts: Accounts;
  /** A project's members, for GET /{projectId}/members. */
  members: MemberReads;
  projector: Projector;
  /** Creates the store and the read model when missing, subscribes the projector, starts the relay. */
  start(): Promise<void>;
  /** Stops the relay and the projector's subscription; closes nothing it was given. */
  stop(): Promise<void>;
  /** The demo organization, project, owner and token of a fresh installation; null when not fresh. */
  seedDemo(): Promise<DemoSeed | null>;
}

/**
 * Builds the identity slice.
 *
 * @example const identity = createIdentity({ db, store, bus, checkpoints, logger }); await identity.start(); app.use('/admin/v1', identity.adminRouter(adminKey));
 */
export function createIdentity(options: IdentityOptions): Identity {
  const { db, store, bus } = options;
  const schema = options.schema ?? IDENTITY_READ_MODEL;
  const topic = options.topic ?? IDENTITY_TOPIC;
  const logger = options.logger.child({ component: 'identity' });
  const readModel = createSqlIdentityDirectory(db, schema);
  const projector = createProjector({
    db,
    projection: identityProjection(schema),
    logger,
    rebuildFrom: [store],
  });
  const relay = createOutboxRelay({
    name: `${schema}.relay`,
    store,
    bus,
    checkpoints: options.checkpoints,
    route: (event) => ({ topic, key: event.streamId }),
    logger,
  });
  const commands = createIdentityCommands({
    store,
    readModel,
    clock: options.clock ?? systemClock,
    waitForReadModel: async (streamId, version) => {
      await waitForProjection(db, schema, streamId, version, {
        timeoutMs: options.readYourWritesTimeoutMs ?? 10_000,
      });
      if (options.kv) await bumpIdentityVersion(options.kv);
    },
    onAppended: () => relay.notify(),
  });
  const reads = createAdminReads(db, schema);
  let subscription: Subscription | null = null;

  return {
    adminRouter: (adminKey) => adminRouter(commands, reads, adminKey),
    directory: options.kv
      ? withTokenCache(withProjectCache(readModel), options.kv)
      : withProjectCache(readModel),
    commands,
    accounts: {
      findUser: (userId) => readModel.findUser(userId),
      organizationNames: (ids) => readModel.organizationNames(ids),
      personalTokens: (userId, page, limit) => reads.personalTokensOf(userId, page, limit),
    },
    members: createMemberReads(db, schema),
    projector,
    async start() {
      if (subscription) return;
      await store.init();
      await projector.init();
      await bus.ensureTopics([topic]);
      subscription = await projector.subscribe(bus, [topic]);
      relay.start();
      logger.info({ topic, readModel: schema }, 'identity started');
    },
    async stop() {
      await relay.stop();
      await subscription?.stop();
      subscription = null;
    },
    seedDemo: () => seedDemo(commands, readModel),
  };
}
