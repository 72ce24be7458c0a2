import path from 'node:path';
import { z } from 'zod';

/** The embedded process's environment (README, "Configuration"). */
export const EmbeddedConfig = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    VERDICT_DATA_DIR: z.string().min(1).default('./.verdict'),
    VERDICT_PUBLIC_URL: z.url().optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .transform((env) => ({
    port: env.PORT,
    host: env.HOST,
    dataDir: path.resolve(env.VERDICT_DATA_DIR),
    publicUrl: (env.VERDICT_PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL,
  }));
export type EmbeddedConfig = z.output<typeof EmbeddedConfig>;
