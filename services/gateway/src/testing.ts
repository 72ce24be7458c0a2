import type { Server } from 'node:http';
import type { Express } from 'express';
import {
  createInProcessBus,
  createMemoryCheckpointStore,
  createMemoryKeyValue,
  createMemoryRateLimiter,
  createSqlCheckpointStore,
  createSqlDeadLetterStore,
  listen,
  newSecret,
  silentLogger,
  systemClock,
  type EventBus,
  type KeyValue,
  type RateLimiter,
  type SqlDatabase,
} from '@verdict/platform';
import { createKafkaBus } from '@verdict/platform/kafka';
import { createTestPGlite } from '@verdict/platform/testing/databases';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { createRedisRateLimiter } from '@verdict/platform/rateLimit/redis';
import { createRedisKeyValue } from '@verdict/platform/redis';
import { requireServer, uniqueName } from '@verdict/platform/testing';
import { startGateway, type Gateway, type GatewaySettings } from './gateway';
import type { ServiceMount } from './routing/forward';

/**
 * FOR TESTS ONLY: whole gateways on real adapters. `embedded` is what `npm start` runs (PGlite, in-process
 * bus, memory stores); `distributed` runs on PostgreSQL, Kafka and Redis, and can start several replicas
 * over the same servers, as a deployment behind a load balancer would.
 */
export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface RunningGateway {
  gateway: Gateway;
  app: Express;
  server: Server;
  url: string;
}

/** Settings a test may give one replica, beyond the cluster's. */
export type ReplicaSettings = Pick<GatewaySettings, 'webDir' | 'sessionIdleMinutes'>;

export interface GatewayCluster {
  /** Starts one more gateway replica on the shared servers (embedded: only one is possible). */
  replica(services?: ServiceMount[], settings?: ReplicaSettings): Promise<RunningGateway>;
  close(): Promise<void>;
}

interface Shared {
  db: SqlDatabase;
  bus: EventBus;
  kvs: KeyValue[];
  limiters: RateLimiter[];
  distributed: boolean;
}

async function startReplica(
  shared: Shared,
  names: Record<string, string>,
  services: ServiceMount[],
  settings: ReplicaSettings = {},
) {
  const kv = shared.distributed
    ? createRedisKeyValue({ url: requireServer('REDIS_URL') })
    : createMemoryKeyValue();
  const rateLimiter = shared.distributed
    ? createRedisRateLimiter({ url: requireServer('REDIS_URL'), keyPrefix: names.topic })
    : createMemoryRateLimiter();
  shared.kvs.push(kv);
  shared.limiters.push(rateLimiter);
  const gateway = await startGateway(
    {
      db: shared.db,
      bus: shared.bus,
      kv,
      rateLimiter,
      checkpoints: shared.distributed
        ? await createSqlCheckpointStore(shared.db, names.storeSchema as string)
        : createMemoryCheckpointStore(),
      clock: systemClock,
      logger: silentLogger(),
      deadLetters: createSqlDeadLetterStore({
        db: shared.db,
        clock: systemClock,
        schema: `${names.storeSchema}_dead_letters`,
      }),
    },
    {
      adminKey: ADMIN_KEY,
      internalSecret: INTERNAL_SECRET,
      publicUrl: 'http://localhost',
      ingestLimitPerMinute: 1200,
      services,
      names,
      ...settings,
    },
  );
  const server = await listen(gateway.app, { host: '127.0.0.1', port: 0 });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { gateway, app: gateway.app, server, url: `http://127.0.0.1:${port}` };
}

/** The internal JWT secret of test gateways, so a test service can verify what they forward. */
export const INTERNAL_SECRET = newSecret(32);

export const CLUSTERS: [string, () => Promise<GatewayCluster>][] = [
  ['embedded (PGlite, in-process bus, memory)', () => cluster(false)],
  ['distributed (PostgreSQL, Kafka, Redis)', () => cluster(true)],
];

async function cluster(distributed: boolean): Promise<GatewayCluster> {
  const shared: Shared = distributed
    ? {
        db: createPostgresDatabase({ connectionString: requireServer('DATABASE_URL') }),
        bus: createKafkaBus({
          brokers: requireServer('KAFKA_BROKERS').split(','),
          clientId: uniqueName('gateway-test'),
          logger: silentLogger(),
        }),
        kvs: [],
        limiters: [],
        distributed,
      }
    : { db: await createTestPGlite(), bus: createInProcessBus(), kvs: [], limiters: [], distributed };
  const names = {
    storeSchema: uniqueName('gw_store'),
    readModelSchema: uniqueName('gw_identity'),
    topic: uniqueName('identity'),
  };
  const running: RunningGateway[] = [];
  return {
    async replica(services = [], settings = {}) {
      if (!distributed && running.length > 0) throw new Error('the embedded mode runs one process');
      const replica = await startReplica(shared, names, services, settings);
      running.push(replica);
      return replica;
    },
    async close() {
      for (const replica of running) {
        await new Promise((resolve) => replica.server.close(resolve));
        await replica.gateway.stop();
      }
      for (const limiter of shared.limiters) await limiter.close();
      for (const kv of shared.kvs) await kv.close();
      await shared.bus.close();
      await shared.db.close();
    },
  };
}

/** Calls the admin API; throws with the answer when it is not the expected status. */
export async function admin<T>(
  url: string,
  method: string,
  path: string,
  body: unknown,
  expected: number,
): Promise<T> {
  const response = await fetch(`${url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as { data: T };
  if (response.status !== expected)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** An organization, a project, a user with `role` and a personal token for the project. */
export async function provision(url: string, role: 'owner' | 'admin' | 'member' | 'viewer' = 'owner') {
  const organization = await admin<{ id: string }>(
    url,
    'POST',
    '/organizations',
    { name: uniqueName('org') },
    201,
  );
  const project = await admin<{ id: string }>(
    url,
    'POST',
    `/organizations/${organization.id}/projects`,
    { name: 'Checkout' },
    201,
  );
  const user = await admin<{ id: string }>(
    url,
    'POST',
    '/users',
    { email: `${uniqueName('user')}@example.com`, firstName: 'Ada', lastName: 'Lovelace' },
    201,
  );
  await admin(url, 'PUT', `/organizations/${organization.id}/members/${user.id}`, { role }, 200);
  const token = await admin<{ id: string; token: string }>(
    url,
    'POST',
    '/tokens',
    { kind: 'personal', userId: user.id, projectIds: [project.id] },
    201,
  );
  return { organizationId: organization.id, projectId: project.id, userId: user.id, token };
}

/**
 * One replica of a fresh cluster for a suite (a `describe.each(CLUSTERS)` case): its URL and the public
 * API's base are set before the tests run, and the cluster closes after them.
 *
 * @example const at = gatewayUnderTest(makeCluster); it('…', async () => { await fetch(`${at.base}/projects`); });
 */
export function gatewayUnderTest(makeCluster: () => Promise<GatewayCluster>) {
  const at = { url: '', base: '' };
  let started: GatewayCluster | undefined;
  beforeAll(async () => {
    started = await makeCluster();
    const { url } = await started.replica();
    at.url = url;
    at.base = `${url}/api/public/v1`;
  });
  afterAll(() => started?.close());
  return at;
}
