import {
  blobDirOf,
  blobStoreEnv,
  brokerList,
  distributedProcessEnv,
  envInteger,
  httpTimeoutsOf,
} from '@verdict/platform';
import { z } from 'zod';
import { TEST_RESULTS_ROLES } from './module';

/** The test-results process of the distributed mode (docs/configuration.md). */
export const TestResultsConfig = z
  .object({
    ...distributedProcessEnv(8081),
    ...blobStoreEnv,
    VERDICT_TEST_RESULTS_ROLE: z.enum(TEST_RESULTS_ROLES).default('all'),
    VERDICT_INGEST_CONCURRENCY: envInteger({ min: 1, fallback: 4 }),
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    kafkaBrokers: brokerList(env.KAFKA_BROKERS),
    schemaRegistryUrl: env.SCHEMA_REGISTRY_URL,
    internalSecret: env.VERDICT_INTERNAL_SECRET,
    urlSigningSecret: env.VERDICT_URL_SIGNING_SECRET,
    publicUrl: env.VERDICT_PUBLIC_URL.replace(/\/+$/, ''),
    blobDir: blobDirOf(env),
    artifactMaxBytes: env.VERDICT_ARTIFACT_MAX_BYTES,
    logLevel: env.LOG_LEVEL,
    httpTimeouts: httpTimeoutsOf(env),
    role: env.VERDICT_TEST_RESULTS_ROLE,
    ingestConcurrency: env.VERDICT_INGEST_CONCURRENCY,
  }));
