import { brokerList, distributedProcessEnv, httpTimeoutsOf } from '@verdict/platform';
import { z } from 'zod';

/** The analytics process of the distributed mode (docs/configuration.md). */
export const AnalyticsConfig = z
  .object({
    ...distributedProcessEnv(8084),
    VERDICT_PUBLIC_URL: z.url().default('http://localhost:8080'),
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    kafkaBrokers: brokerList(env.KAFKA_BROKERS),
    schemaRegistryUrl: env.SCHEMA_REGISTRY_URL,
    internalSecret: env.VERDICT_INTERNAL_SECRET,
    publicUrl: env.VERDICT_PUBLIC_URL.replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL,
    httpTimeouts: httpTimeoutsOf(env),
  }));
