import path from 'node:path';
import {
  PublicUrlSetting,
  SessionIdleMinutesSetting,
  TrustProxySetting,
  trustProxyOf,
  WebDirSetting,
} from '@verdict/gateway';
import { envInteger, httpTimeoutsOf, httpServerEnv } from '@verdict/platform';
import { z } from 'zod';

/** The embedded process's environment (docs/configuration.md). */
export const EmbeddedConfig = z
  .object({
    PORT: envInteger({ min: 0, max: 65535, fallback: 8080 }),
    HOST: z.string().min(1).default('127.0.0.1'),
    VERDICT_DATA_DIR: z.string().min(1).default('./.verdict'),
    VERDICT_ADMIN_KEY: z
      .string()
      .min(16, 'must be at least 16 characters')
      .regex(/^\S*$/, 'must not contain spaces')
      .optional(),
    VERDICT_PUBLIC_URL: PublicUrlSetting,
    VERDICT_INGEST_RATE_LIMIT: envInteger({ min: 1, fallback: 1200 }),
    VERDICT_TRUST_PROXY: TrustProxySetting,
    VERDICT_ARTIFACT_MAX_BYTES: envInteger({ min: 1, fallback: 100 * 1024 * 1024 }),
    VERDICT_SESSION_IDLE_MINUTES: SessionIdleMinutesSetting,
    VERDICT_WEB_DIR: WebDirSetting,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ...httpServerEnv,
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    dataDir: path.resolve(env.VERDICT_DATA_DIR),
    adminKey: env.VERDICT_ADMIN_KEY,
    publicUrl: env.VERDICT_PUBLIC_URL?.replace(/\/+$/, ''),
    ingestLimitPerMinute: env.VERDICT_INGEST_RATE_LIMIT,
    trustProxy: trustProxyOf(env.VERDICT_TRUST_PROXY),
    artifactMaxBytes: env.VERDICT_ARTIFACT_MAX_BYTES,
    sessionIdleMinutes: env.VERDICT_SESSION_IDLE_MINUTES,
    webDir: path.resolve(env.VERDICT_WEB_DIR),
    logLevel: env.LOG_LEVEL,
    httpTimeouts: httpTimeoutsOf(env),
  }));
export type EmbeddedConfig = z.output<typeof EmbeddedConfig>;
