import { brokerList, distributedProcessEnv } from '@verdict/platform';
import { z } from 'zod';
import { ANALYTICS_PROJECTOR_CONCURRENCY } from './module';

/** The analytics process of the distributed mode (README, "Configuration"). */
export const AnalyticsConfig = z
  .object({
    ...distributedProcessEnv(8084),
    VERDICT_ANALYTICS_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(16)
      .default(ANALYTICS_PROJECTOR_CONCURRENCY),
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    kafkaBrokers: brokerList(env.KAFKA_BROKERS),
    internalSecret: env.VERDICT_INTERNAL_SECRET,
    logLevel: env.LOG_LEVEL,
    projectorConcurrency: env.VERDICT_ANALYTICS_CONCURRENCY,
  }));
