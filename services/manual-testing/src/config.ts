import path from 'node:path';
import { brokerList, distributedProcessEnv } from '@verdict/platform';
import { z } from 'zod';

/** The manual-testing process of the distributed mode (README, "Configuration"). */
export const ManualTestingConfig = z
  .object({
    ...distributedProcessEnv(8083),
    VERDICT_URL_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters'),
    VERDICT_PUBLIC_URL: z.url().default('http://localhost:8080'),
    VERDICT_DATA_DIR: z.string().min(1).default('./.verdict'),
    VERDICT_BLOB_DIR: z.string().min(1).optional(),
    VERDICT_ARTIFACT_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(100 * 1024 * 1024),
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    kafkaBrokers: brokerList(env.KAFKA_BROKERS),
    internalSecret: env.VERDICT_INTERNAL_SECRET,
    urlSigningSecret: env.VERDICT_URL_SIGNING_SECRET,
    publicUrl: env.VERDICT_PUBLIC_URL.replace(/\/+$/, ''),
    blobDir: path.resolve(env.VERDICT_BLOB_DIR ?? path.join(env.VERDICT_DATA_DIR, 'blobs')),
    attachmentMaxBytes: env.VERDICT_ARTIFACT_MAX_BYTES,
    logLevel: env.LOG_LEVEL,
  }));
