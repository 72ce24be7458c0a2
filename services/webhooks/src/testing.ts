import type { SqlDatabase } from '@verdict/platform';
import { createPGliteDatabase } from '@verdict/platform/pglite';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { requireServer } from '@verdict/platform/testing';

/**
 * FOR TESTS ONLY: the two databases every integration test of this service runs on — the embedded mode's
 * PGlite (in memory) and the distributed mode's real PostgreSQL (which must be running; never skipped).
 */
export interface TestDatabase {
  name: string;
  open(): Promise<SqlDatabase>;
}

export function testDatabases(): TestDatabase[] {
  return [
    { name: 'PGlite (in memory)', open: () => createPGliteDatabase() },
    {
      name: 'PostgreSQL',
      open: async () => createPostgresDatabase({ connectionString: requireServer('DATABASE_URL'), max: 8 }),
    },
  ];
}
