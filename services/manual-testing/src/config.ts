import {
  blobDirOf,
  blobStoreEnv,
  brokerList,
  distributedProcessEnv,
  httpTimeoutsOf,
} from '@verdict/platform';
import { z } from 'zod';

/** The manual-testing process of the distributed mode (docs/configuration.md). */
export const ManualTestingConfig = z
  .object({
    ...distributedProcessEnv(8083),
    ...blobStoreEnv,
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
    attachmentMaxBytes: env.VERDICT_ARTIFACT_MAX_BYTES,
    logLevel: env.LOG_LEVEL,
    httpTimeouts: httpTimeoutsOf(env),
  }));
