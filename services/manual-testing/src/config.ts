import path from 'node:path';
import { z } from 'zod';

/** The manual-testing process of the distributed mode (README, "Configuration"). */
export const ManualTestingConfig = z
  .object({
    // Each process of the distributed mode has its own PORT; the launcher sets it.
    PORT: z.coerce.number().int().min(0).max(65535).default(8083),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
    KAFKA_BROKERS: z.string().min(1, 'must list at least one host:port'),
    VERDICT_INTERNAL_SECRET: z.string().min(32, 'must be at least 32 characters'),
    VERDICT_URL_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters'),
    VERDICT_PUBLIC_URL: z.url().default('http://localhost:8080'),
    VERDICT_DATA_DIR: z.string().min(1).default('./.verdict'),
    VERDICT_BLOB_DIR: z.string().min(1).optional(),
    VERDICT_ARTIFACT_MAX_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(100 * 1024 * 1024),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    kafkaBrokers: env.KAFKA_BROKERS.split(',').map((b) => b.trim()),
    internalSecret: env.VERDICT_INTERNAL_SECRET,
    urlSigningSecret: env.VERDICT_URL_SIGNING_SECRET,
    publicUrl: env.VERDICT_PUBLIC_URL.replace(/\/+$/, ''),
    blobDir: path.resolve(env.VERDICT_BLOB_DIR ?? path.join(env.VERDICT_DATA_DIR, 'blobs')),
    attachmentMaxBytes: env.VERDICT_ARTIFACT_MAX_BYTES,
    logLevel: env.LOG_LEVEL,
  }));
