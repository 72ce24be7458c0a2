import { readFileSync } from 'node:fs';
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

let template: Blob | undefined;

/**
 * The fresh data folder the jest run dumped once (scripts/jest/pglite-template.js), so a new in-memory
 * database loads it instead of running initdb (seconds each). Without one, PGlite runs initdb as usual.
 */
function pgliteTemplate(): Blob | undefined {
  const file = process.env.VERDICT_PGLITE_TEMPLATE;
  if (!file) return undefined;
  template ??= new Blob([readFileSync(file)]);
  return template;
}

/**
 * A fresh in-memory PGlite, as `createPGliteDatabase()` gives, started from the run's template when there is one.
 *
 * @example const db = await createTestPGlite();
 */
export function createTestPGlite(): Promise<SqlDatabase> {
  return createPGliteDatabase({ loadDataDir: pgliteTemplate() });
}

/**
 * Both adapters, for `describe.each`.
 *
 * @example describe.each(testDatabases())('on $name', ({ open }) => { beforeAll(async () => { db = await open(); }); });
 */
export function testDatabases(options: { postgresPoolSize?: number } = {}): TestDatabase[] {
  return [
    { name: 'PGlite (in memory)', open: createTestPGlite },
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
