import {
  createInProcessBus,
  createMemoryCheckpointStore,
  createSqlCheckpointStore,
  createSqlEventStore,
  silentLogger,
  type Clock,
  type EventBus,
  type SqlDatabase,
} from '@verdict/platform';
import { createKafkaBus } from '@verdict/platform/kafka';
import { createTestPGlite } from '@verdict/platform/testing/databases';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { requireServer, uniqueName } from '@verdict/platform/testing';
import { createIdentity, type Identity } from '../module';

/**
 * The two adapter pairs every identity integration test runs on: the embedded one (PGlite + in-process
 * bus + memory checkpoints) and the distributed one (PostgreSQL + Kafka + SQL checkpoints).
 */
export interface Adapters {
  db: SqlDatabase;
  /** Another connection to the same database, as a second gateway replica would hold. */
  replicaDb: SqlDatabase;
  bus: EventBus;
  distributed: boolean;
  close(): Promise<void>;
}

export const ADAPTERS: [string, () => Promise<Adapters>][] = [
  [
    'PGlite + in-process bus',
    async () => {
      const db = await createTestPGlite();
      const bus = createInProcessBus();
      // PGlite has one connection per process: the embedded mode has no second replica.
      return {
        db,
        replicaDb: db,
        bus,
        distributed: false,
        close: async () => {
          await bus.close();
          await db.close();
        },
      };
    },
  ],
  [
    'PostgreSQL + Kafka',
    async () => {
      const connectionString = requireServer('DATABASE_URL');
      const db = createPostgresDatabase({ connectionString });
      const replicaDb = createPostgresDatabase({ connectionString, max: 2 });
      const bus = createKafkaBus({
        brokers: requireServer('KAFKA_BROKERS').split(','),
        clientId: uniqueName('identity-test'),
        logger: silentLogger(),
      });
      return {
        db,
        replicaDb,
        bus,
        distributed: true,
        close: async () => {
          await bus.close();
          await replicaDb.close();
          await db.close();
        },
      };
    },
  ],
];

export interface StartedIdentity {
  identity: Identity;
  /** The read model's schema. */
  schema: string;
  /** The event store's schema. */
  storeSchema: string;
}

/**
 * A started identity slice on fresh schemas and a fresh topic, so tests never see each other's data.
 *
 * @example const { identity, schema } = await startIdentity(adapters);
 */
export async function startIdentity(adapters: Adapters, clock?: Clock): Promise<StartedIdentity> {
  const storeSchema = uniqueName('idstore');
  const schema = uniqueName('idmodel');
  const store = createSqlEventStore({ db: adapters.db, schema: storeSchema });
  const checkpoints = adapters.distributed
    ? await createSqlCheckpointStore(adapters.db, storeSchema)
    : createMemoryCheckpointStore();
  const identity = createIdentity({
    db: adapters.db,
    store,
    bus: adapters.bus,
    checkpoints,
    logger: silentLogger(),
    clock,
    schema,
    topic: uniqueName('identity'),
    // A fresh Kafka consumer group takes a few seconds to be assigned its partitions.
    readYourWritesTimeoutMs: 60_000,
  });
  await identity.start();
  return { identity, schema, storeSchema };
}
