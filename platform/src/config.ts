import path from 'node:path';
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once with a zod schema into a frozen object. A bad value is a ConfigError that
 * names every offending variable, so a process refuses to start instead of failing later.
 *
 * @example const config = loadConfig(z.object({ PORT: envInteger({ min: 0, max: 65535, fallback: 8080 }) }));
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = issue.path.join('.') || '(root)';
        // zod says "expected string, received undefined" of a variable that is not set at all.
        const missing = issue.code === 'invalid_type' && env[String(issue.path[0])] === undefined;
        return `${name}: ${missing ? 'is required' : issue.message}`;
      }),
    );
  }
  return Object.freeze(result.data);
}

/** A boolean environment variable: `true`/`1`/`yes` or `false`/`0`/`no`. */
export const envBoolean = (defaultValue: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(defaultValue ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

/**
 * An integer environment variable, written in decimal digits: `""`, `0x10`, `1e4` or `8080.0` are refused
 * (Number() reads them as 0, 16, 10000 and 8080, which a typo should not become).
 *
 * @example PORT: envInteger({ min: 0, max: 65535, fallback: 8080 })
 */
export const envInteger = (options: { min: number; max?: number; fallback: number }) =>
  z
    .string()
    .default(String(options.fallback))
    .transform((value, ctx) => {
      const number = Number(value);
      if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(number)) {
        ctx.addIssue({ code: 'custom', message: `expected an integer in decimal digits, got "${value}"` });
        return z.NEVER;
      }
      const { min, max = Number.MAX_SAFE_INTEGER } = options;
      if (number < min || number > max) {
        ctx.addIssue({ code: 'custom', message: `must be from ${min} to ${max}, got ${number}` });
        return z.NEVER;
      }
      return number;
    });

/** A comma-separated list of non-negative integers, e.g. retry delays in milliseconds. */
export const envIntegerList = (defaultValue: string) =>
  z
    .string()
    .default(defaultValue)
    .transform((value, ctx) => {
      // An empty entry (`500,,500`) is a typo that would silently drop an attempt: refused like any other.
      const items = value.split(',').map((s) => s.trim());
      const numbers = items.map(Number);
      if (items.some((item) => !/^[0-9]+$/.test(item)) || numbers.some((n) => !Number.isSafeInteger(n))) {
        ctx.addIssue({
          code: 'custom',
          message: `expected comma-separated non-negative integers, got "${value}"`,
        });
        return z.NEVER;
      }
      return numbers;
    });

/** How long the HTTP server waits for a client (listen() applies them); see httpServerEnv. */
export interface HttpTimeouts {
  /** From the connection (or the previous answer) to the end of the request's headers. */
  headersMs: number;
  /** From the connection (or the previous answer) to the end of the request's body. */
  requestMs: number;
  /** How long an idle kept-alive connection stays open between requests. */
  keepAliveMs: number;
}

/**
 * Keep-alive outlives a load balancer's (60 s is common), or it sees resets; headers may take a moment
 * longer than that; a whole request, an artifact upload of 100 MiB included, five minutes (Node's own default).
 */
export const DEFAULT_HTTP_TIMEOUTS: Readonly<HttpTimeouts> = Object.freeze({
  headersMs: 66_000,
  requestMs: 300_000,
  keepAliveMs: 65_000,
});

/**
 * The variables bounding a slow client (slowloris), read by every process that listens.
 *
 * @example const Config = z.object({ PORT: …, ...httpServerEnv }).transform((env) => ({ httpTimeouts: httpTimeoutsOf(env) }));
 */
export const httpServerEnv = {
  VERDICT_HTTP_HEADERS_TIMEOUT_MS: envInteger({
    min: 100,
    max: 3_600_000,
    fallback: DEFAULT_HTTP_TIMEOUTS.headersMs,
  }),
  VERDICT_HTTP_REQUEST_TIMEOUT_MS: envInteger({
    min: 100,
    max: 3_600_000,
    fallback: DEFAULT_HTTP_TIMEOUTS.requestMs,
  }),
  VERDICT_HTTP_KEEP_ALIVE_TIMEOUT_MS: envInteger({
    min: 100,
    max: 3_600_000,
    fallback: DEFAULT_HTTP_TIMEOUTS.keepAliveMs,
  }),
};

/** The parsed httpServerEnv variables as listen() takes them. */
export const httpTimeoutsOf = (env: {
  VERDICT_HTTP_HEADERS_TIMEOUT_MS: number;
  VERDICT_HTTP_REQUEST_TIMEOUT_MS: number;
  VERDICT_HTTP_KEEP_ALIVE_TIMEOUT_MS: number;
}): HttpTimeouts => ({
  headersMs: env.VERDICT_HTTP_HEADERS_TIMEOUT_MS,
  requestMs: env.VERDICT_HTTP_REQUEST_TIMEOUT_MS,
  keepAliveMs: env.VERDICT_HTTP_KEEP_ALIVE_TIMEOUT_MS,
});

/**
 * The variables every process of the distributed mode reads: where it listens, its PostgreSQL, Kafka and
 * schema registry, the secret of the gateway's internal identity, and its log level. Secrets have no defaults.
 *
 * @example const Config = z.object({ ...distributedProcessEnv(8081), VERDICT_PUBLIC_URL: z.url() });
 */
export const distributedProcessEnv = (defaultPort: number) => ({
  // Each process of the distributed mode has its own PORT; the launcher sets it.
  PORT: envInteger({ min: 0, max: 65535, fallback: defaultPort }),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  KAFKA_BROKERS: z.string().min(1, 'must list at least one host:port'),
  // Every event on Kafka is framed and checked by the schema registry: no registry, no distributed mode.
  SCHEMA_REGISTRY_URL: z.url({
    protocol: /^https?$/,
    error: "must be the http(s) URL of the schema registry's Confluent API",
  }),
  VERDICT_INTERNAL_SECRET: z.string().min(32, 'must be at least 32 characters'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ...httpServerEnv,
});

/** KAFKA_BROKERS as the list the Kafka adapter takes. */
export const brokerList = (value: string): string[] => value.split(',').map((broker) => broker.trim());

/**
 * The variables of a distributed process that keeps files in the blob store and signs their download
 * URLs (test-results' artifacts, manual testing's attachments).
 *
 * @example const Config = z.object({ ...distributedProcessEnv(8081), ...blobStoreEnv });
 */
export const blobStoreEnv = {
  VERDICT_URL_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters'),
  VERDICT_PUBLIC_URL: z.url().default('http://localhost:8080'),
  VERDICT_DATA_DIR: z.string().min(1).default('./.verdict'),
  VERDICT_BLOB_DIR: z.string().min(1).optional(),
  VERDICT_ARTIFACT_MAX_BYTES: envInteger({ min: 1, fallback: 100 * 1024 * 1024 }),
};

/** VERDICT_BLOB_DIR, else `blobs` under VERDICT_DATA_DIR, as an absolute path. */
export const blobDirOf = (env: { VERDICT_BLOB_DIR?: string | undefined; VERDICT_DATA_DIR: string }): string =>
  path.resolve(env.VERDICT_BLOB_DIR ?? path.join(env.VERDICT_DATA_DIR, 'blobs'));
