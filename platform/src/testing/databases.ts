import type { SqlDatabase } from '../sql/types';
import { createPGliteDatabase } from '../sql/pglite';
import { createPostgresDatabase } from '../sql/postgres';
import { requireServer } from './env';

/**
 * FOR TESTS ONLY: the two databases every integration test of a service runs on — the embedded mode's
 * PGlite (in memory) and the distributed mode's real PostgreSQL (which must be running; never skipped).
 * Its own entry point (`@verdict/platform/testing/databases`), so unit tests load no database driver.
 */
export interface TestDatabase {
  name: string;
  open(): Promise<SqlDatabase>;
}

/**
 * Both adapters, for `describe.each`.
 *
 * @example describe.each(testDatabases())('on $name', ({ open }) => { beforeAll(async () => { db = await open(); }); });
 */
export function testDatabases(options: { postgresPoolSize?: number } = {}): TestDatabase[] {
  return [
    { name: 'PGlite (in memory)', open: () => createPGliteDatabase() },
    {
      name: 'PostgreSQL',
      open: async () =>
        createPostgresDatabase({
          connectionString: requireServer('DATABASE_URL'),
          max: options.postgresPoolSize ?? 8,
        }),
    },
  ];
}
