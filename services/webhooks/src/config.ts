import { DEFAULT_EVENT_NAME_CUTOVER } from '@verdict/contracts';
import {
  envBoolean,
  envInteger,
  envIntegerList,
  brokerList,
  distributedProcessEnv,
  httpTimeoutsOf,
} from '@verdict/platform';
import { z } from 'zod';

/** The variables every mode of the webhooks service reads (docs/configuration.md). */
export const WebhookEnv = {
  VERDICT_WEBHOOK_RETRY_DELAYS: envIntegerList('60000,300000,1800000,7200000'),
  VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: envBoolean(false),
  VERDICT_WEBHOOK_TIMEOUT_MS: envInteger({ min: 1, max: 120_000, fallback: 15_000 }),
  VERDICT_EVENT_NAME_CUTOVER: z.iso
    .datetime({ offset: true })
    .default(DEFAULT_EVENT_NAME_CUTOVER)
    .transform((value) => new Date(value)),
};

/** The webhooks process of the distributed mode. Secrets have no defaults. */
export const WebhooksConfig = z
  .object({
    ...distributedProcessEnv(8082),
    // Encrypts signing secrets at rest; falls back to VERDICT_INTERNAL_SECRET (then never rotate that one
    // alone, or stored secrets can no longer be read).
    VERDICT_WEBHOOK_SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
    VERDICT_PUBLIC_URL: z.url().default('http://localhost:8080'),
    ...WebhookEnv,
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    kafkaBrokers: brokerList(env.KAFKA_BROKERS),
    schemaRegistryUrl: env.SCHEMA_REGISTRY_URL,
    internalSecret: env.VERDICT_INTERNAL_SECRET,
    secretKey: env.VERDICT_WEBHOOK_SECRET_KEY ?? env.VERDICT_INTERNAL_SECRET,
    publicUrl: env.VERDICT_PUBLIC_URL.replace(/\/+$/, ''),
    retryDelaysMs: env.VERDICT_WEBHOOK_RETRY_DELAYS,
    allowPrivateNetworks: env.VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    timeoutMs: env.VERDICT_WEBHOOK_TIMEOUT_MS,
    eventNameCutover: env.VERDICT_EVENT_NAME_CUTOVER,
    logLevel: env.LOG_LEVEL,
    httpTimeouts: httpTimeoutsOf(env),
  }));
export type WebhooksConfig = z.output<typeof WebhooksConfig>;

/**
 * The webhook variables alone, for a launcher that mounts the module in its own process (embedded).
 *
 * @example const webhookSettings = loadConfig(WebhookSettingsConfig);
 */
export const WebhookSettingsConfig = z.object(WebhookEnv).transform((env) => ({
  retryDelaysMs: env.VERDICT_WEBHOOK_RETRY_DELAYS,
  allowPrivateNetworks: env.VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS,
  timeoutMs: env.VERDICT_WEBHOOK_TIMEOUT_MS,
  eventNameCutover: env.VERDICT_EVENT_NAME_CUTOVER,
}));
