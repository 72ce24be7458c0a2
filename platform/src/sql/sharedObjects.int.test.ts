import { requireServer, uniqueName } from '../testing/env';
import { createTestPGlite } from '../testing/databases';
import { createPostgresDatabase } from './postgres';
import { createSharedObjects } from './sharedObjects';
import { isSqlError, type SqlDatabase } from './types';

const adapters: [string, () => Promise<SqlDatabase>][] = [
  ['PGlite (in memory)', () => createTestPGlite()],
  [
    'PostgreSQL',
    async () => createPostgresDatabase({ connectionString: requireServer('DATABASE_URL'), max: 2 }),
  ],
];

describe.each(adapters)('creating shared database objects on %s', (_name, open) => {
  let db: SqlDatabase;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(() => db.close());

  test('when a creation fails on an object another process committed meanwhile, then it is tried once more and succeeds', async () => {
    const schema = uniqueName('shared');
    await db.exec(`CREATE SCHEMA ${schema}`);
    const errors: unknown[] = [];
    let attempts = 0;
    await createSharedObjects(db, schema, async (tx) => {
      attempts += 1;
      // The first attempt stands for an IF NOT EXISTS that missed the other process's schema.
      const create = attempts === 1 ? `CREATE SCHEMA ${schema}` : `CREATE SCHEMA IF NOT EXISTS ${schema}`;
      await tx.query(create).catch((error: unknown) => {
        errors.push(error);
        throw error;
      });
      await tx.query(`CREATE TABLE IF NOT EXISTS ${schema}.things (id text PRIMARY KEY)`);
    });
    expect({ attempts, duplicate: isSqlError(errors[0], '42P06') }).toEqual({ attempts: 2, duplicate: true });
    const { rows } = await db.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [
      `${schema}.things`,
    ]);
    expect(rows[0]?.found).toBe(true);
    await db.exec(`DROP SCHEMA ${schema} CASCADE`);
  });

  test('when a creation fails for another reason, then it fails at once, without a second attempt', async () => {
    let attempts = 0;
    const creating = createSharedObjects(db, uniqueName('shared'), async (tx) => {
      attempts += 1;
      await tx.query('CREATE TABLE no_such_schema_here.things (id text)');
    });
    await expect(creating).rejects.toMatchObject({ code: '3F000' });
    expect(attempts).toBe(1);
  });
});

test('when four processes create the same schema at once on PostgreSQL, then each one succeeds and the table exists once', async () => {
  const schema = uniqueName('shared');
  const table = `${schema}.things`;
  // One pool per process: separate sessions, as the services of the distributed mode are.
  const dbs = Array.from({ length: 4 }, () =>
    createPostgresDatabase({ connectionString: requireServer('DATABASE_URL'), max: 1 }),
  );
  try {
    const results = await Promise.allSettled(
      dbs.map((db) =>
        createSharedObjects(db, table, async (tx) => {
          await tx.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
          await tx.query(`CREATE TABLE IF NOT EXISTS ${table} (id text PRIMARY KEY)`);
        }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const { rows } = await dbs[0]!.query<{ count: string }>(
      'SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename = $2',
      [schema, 'things'],
    );
    expect(Number(rows[0]?.count)).toBe(1);
    await dbs[0]!.exec(`DROP SCHEMA ${schema} CASCADE`);
  } finally {
    await Promise.all(dbs.map((db) => db.close()));
  }
});
