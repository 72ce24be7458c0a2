import { randomBytes } from 'node:crypto';

/**
 * The servers an integration test needs. They come from the environment that `npm test` sets up through
 * infra/local; when one is missing the test fails (it never skips), so a green run proves the real thing ran.
 */
export function requireServer(
  variable: 'DATABASE_URL' | 'KAFKA_BROKERS' | 'REDIS_URL' | 'SCHEMA_REGISTRY_URL',
): string {
  const value = process.env[variable];
  if (!value) {
    throw new Error(
      `${variable} is not set: integration tests run against real servers. Run them with \`npm test\` ` +
        '(which starts infra/local) or set the variable yourself.',
    );
  }
  return value;
}

/** A name no other test file uses: a fresh schema, topic or consumer group per test. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}
