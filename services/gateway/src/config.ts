import { isIP } from 'node:net';
import path from 'node:path';
import { brokerList, distributedProcessEnv, envInteger, httpTimeoutsOf } from '@verdict/platform';
import { z } from 'zod';

const PROXY_PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address or a range Express's `trust proxy` takes: an IP, an IP/prefix length or an IP/netmask. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_PRESETS.has(entry)) return true;
  const [address = '', range, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  return isIP(range) === family;
}

/**
 * VERDICT_TRUST_PROXY, checked when the process starts: Express would otherwise throw on its first use
 * with a stack trace that does not name the variable.
 */
export const TrustProxySetting = z
  .string()
  .optional()
  .refine(
    (value) =>
      value === undefined ||
      value === '' ||
      /^(true|false|\d+)$/.test(value) ||
      value.split(',').every((entry) => isProxyAddress(entry.trim())),
    'must be true, false, a hop count, or comma-separated addresses or ranges (or loopback, linklocal, uniquelocal)',
  );

/** VERDICT_PUBLIC_URL: links are followed by browsers and receivers, so only http and https. */
export const PublicUrlSetting = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .optional();

/** VERDICT_SESSION_IDLE_MINUTES: a web session ends after this long without a request (docs/web.md). */
export const SessionIdleMinutesSetting = envInteger({ min: 1, max: 525_600, fallback: 480 });

/** VERDICT_WEB_DIR: the built web app the gateway serves at `/` (`npm start` builds it when missing). */
export const WebDirSetting = z.string().min(1).default('./web/dist');

/**
 * The gateway process of the distributed mode (docs/configuration.md). Secrets have no defaults here:
 * the process refuses to start without them.
 */
export const GatewayConfig = z
  .object({
    ...distributedProcessEnv(8080),
    REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL'),
    VERDICT_ADMIN_KEY: z
      .string()
      .min(16, 'must be at least 16 characters')
      .regex(/^\S*$/, 'must not contain spaces'),
    VERDICT_URL_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters'),
    VERDICT_DATA_DIR: z.string().min(1).default('./.verdict'),
    VERDICT_BLOB_DIR: z.string().min(1).optional(),
    VERDICT_PUBLIC_URL: PublicUrlSetting,
    VERDICT_INGEST_RATE_LIMIT: envInteger({ min: 1, fallback: 1200 }),
    VERDICT_TRUST_PROXY: TrustProxySetting,
    VERDICT_SESSION_IDLE_MINUTES: SessionIdleMinutesSetting,
    VERDICT_WEB_DIR: WebDirSetting,
    VERDICT_TEST_RESULTS_URL: z.url().default('http://127.0.0.1:8081'),
    VERDICT_MANUAL_TESTING_URL: z.url().default('http://127.0.0.1:8083'),
    VERDICT_WEBHOOKS_URL: z.url().default('http://127.0.0.1:8082'),
    VERDICT_ANALYTICS_URL: z.url().default('http://127.0.0.1:8084'),
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    kafkaBrokers: brokerList(env.KAFKA_BROKERS),
    schemaRegistryUrl: env.SCHEMA_REGISTRY_URL,
    redisUrl: env.REDIS_URL,
    adminKey: env.VERDICT_ADMIN_KEY,
    internalSecret: env.VERDICT_INTERNAL_SECRET,
    urlSigningSecret: env.VERDICT_URL_SIGNING_SECRET,
    blobDir: path.resolve(env.VERDICT_BLOB_DIR ?? path.join(env.VERDICT_DATA_DIR, 'blobs')),
    publicUrl: (env.VERDICT_PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    ingestLimitPerMinute: env.VERDICT_INGEST_RATE_LIMIT,
    trustProxy: trustProxyOf(env.VERDICT_TRUST_PROXY),
    sessionIdleMinutes: env.VERDICT_SESSION_IDLE_MINUTES,
    webDir: path.resolve(env.VERDICT_WEB_DIR),
    testResultsUrl: env.VERDICT_TEST_RESULTS_URL,
    manualTestingUrl: env.VERDICT_MANUAL_TESTING_URL,
    webhooksUrl: env.VERDICT_WEBHOOKS_URL,
    analyticsUrl: env.VERDICT_ANALYTICS_URL,
    logLevel: env.LOG_LEVEL,
    httpTimeouts: httpTimeoutsOf(env),
  }));
export type GatewayConfig = z.output<typeof GatewayConfig>;

/** Express `trust proxy`: `true`/`false`, a hop count, or a list of addresses. */
export function trustProxyOf(value: string | undefined): boolean | number | string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}
