import { z } from 'zod';

/** The analytics process of the distributed mode (README, "Configuration"). */
export const AnalyticsConfig = z
  .object({
    // Each process of the distributed mode has its own PORT; the launcher sets it.
    PORT: z.coerce.number().int().min(0).max(65535).default(8084),
    HOST: z.string().min(1).default('127.0.0.1'),
    DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
    KAFKA_BROKERS: z.string().min(1, 'must list at least one host:port'),
    VERDICT_INTERNAL_SECRET: z.string().min(32, 'must be at least 32 characters'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    kafkaBrokers: env.KAFKA_BROKERS.split(',').map((b) => b.trim()),
    internalSecret: env.VERDICT_INTERNAL_SECRET,
    logLevel: env.LOG_LEVEL,
  }));
