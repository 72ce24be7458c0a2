import { requireServer, uniqueName } from '../testing/env';
import { createTestPGlite } from '../testing/databases';
import { createPGliteDatabase } from './pglite';
import { createPostgresDatabase } from './postgres';
import type { SqlDatabase, SqlExecutor } from './types';
import { isSqlError, SQLSTATE } from './types';

// One suite, both adapters of the SQL port: the embedded and the distributed mode must behave alike.
const adapters: [string, () => Promise<SqlDatabase>][] = [
  ['PGlite (in memory)', createTestPGlite],
  [
    'PostgreSQL',
    async () => createPostgresDatabase({ connectionString: requireServer('DATABASE_URL'), max: 4 }),
  ],
];

/** A promise and the function that settles it, to hold a transaction open at a chosen point. */
function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Resolves with 'pending' when `promise` has not settled within `ms`. */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  try {
    return await Promise.race([promise, pending]);
  } finally {
    clearTimeout(timer);
  }
}

describe.each(adapters)('SQL port on %s', (kind, open) => {
  const schema = uniqueName('sql_port');
  let db: SqlDatabase;

  beforeAll(async () => {
    db = await open();
    await db.exec(
      `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items (id integer PRIMARY KEY, label text)`,
    );
  });

  afterAll(async () => {
    await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  beforeEach(async () => {
    await db.query(`DELETE FROM ${schema}.items`);
  });

  async function labels(): Promise<string[]> {
    const { rows } = await db.query<{ label: string }>(`SELECT label FROM ${schema}.items ORDER BY id`);
    return rows.map((row) => row.label);
  }

  it('when the database answers, then ping resolves and kind names the adapter', async () => {
    await expect(db.ping()).resolves.toBeUndefined();
    expect(db.kind).toBe(kind === 'PostgreSQL' ? 'postgres' : 'pglite');
  });

  it('when work resolves, then its writes are committed and its result returned', async () => {
    const result = await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${schema}.items VALUES (1, 'one'), (2, 'two')`);
      const { rowCount } = await tx.query(`UPDATE ${schema}.items SET label = upper(label)`);
      return rowCount;
    });
    expect(result).toBe(2);
    expect(await labels()).toEqual(['ONE', 'TWO']);
  });

  it('when work throws, then its writes are rolled back and the error reaches the caller', async () => {
    const failure = new Error('refused');
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO ${schema}.items VALUES ($1, $2)`, [1, 'one']);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await labels()).toEqual([]);
  });

  it('when a statement fails and work swallows the error, then COMMIT is refused with 25P02 and nothing is kept', async () => {
    const committing = db.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${schema}.items VALUES (1, 'one')`);
      await tx.query(`INSERT INTO ${schema}.items VALUES (1, 'again')`).catch(() => undefined);
      return 'done';
    });
    await expect(committing).rejects.toMatchObject({ code: SQLSTATE.transactionRolledBack });
    expect(await labels()).toEqual([]);
  });

  it('when a unique constraint is violated, then the error carries SQLSTATE 23505 and the constraint name', async () => {
    await db.query(`INSERT INTO ${schema}.items VALUES (1, 'one')`);
    const error: unknown = await db
      .query(`INSERT INTO ${schema}.items VALUES (1, 'again')`)
      .catch((e: unknown) => e);
    expect(isSqlError(error, SQLSTATE.uniqueViolation, 'items_pkey')).toBe(true);
    expect(isSqlError(error, SQLSTATE.uniqueViolation, 'other_key')).toBe(false);
    expect(isSqlError(new Error('plain'))).toBe(false);
  });

  it('when the executor of a finished transaction is used, then it refuses', async () => {
    let leaked: { query(text: string): Promise<unknown> } | undefined;
    await db.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked?.query('SELECT 1')).rejects.toThrow(/closed/i);
  });

  it('when work calls the database itself, then it completes instead of deadlocking', async () => {
    const outcome = db.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${schema}.items VALUES (1, 'outer')`);
      await db.query('SELECT 1');
      await db.exec('SELECT 1; SELECT 2');
      await db.ping();
      await db.transaction((inner) => inner.query(`INSERT INTO ${schema}.items VALUES (2, 'inner')`));
      return 'completed';
    });
    expect(await settledWithin(outcome, 10_000)).toBe('completed');
    expect(await labels()).toEqual(['outer', 'inner']);
  });

  it('when exec is given several statements, then it runs them all', async () => {
    await db.exec(`INSERT INTO ${schema}.items VALUES (1, 'a'); INSERT INTO ${schema}.items VALUES (2, 'b')`);
    expect(await labels()).toEqual(['a', 'b']);
  });

  it('when values come back, then they have the JavaScript types of pg on both adapters', async () => {
    const awkward = ['plain', 'with "quotes"', 'back\\slash', 'comma, and {braces}', '', 'NULL', 'é ✓'];
    const { rows } = await db.query<Record<string, unknown>>(
      `SELECT 9007199254740993::int8 AS big, count(*) AS counted, 42::int4 AS small, 1.5::numeric AS exact,
              2.5::float8 AS float, true AS flag, '2026-03-04'::date AS day,
              '2026-03-04T05:06:07.891Z'::timestamptz AS instant, '{"a":[1,{"b":null}]}'::jsonb AS doc,
              ARRAY[1, 2]::int8[] AS bigs, $1::text[] AS texts, $2::int AS param, $3::text AS absent`,
      [awkward, 7, null],
    );
    const row = rows[0] ?? {};
    expect(row.big).toBe('9007199254740993');
    expect(row.counted).toBe('1');
    expect(row.small).toBe(42);
    expect(row.exact).toBe('1.5');
    expect(row.float).toBe(2.5);
    expect(row.flag).toBe(true);
    expect(row.day).toEqual(new Date(2026, 2, 4));
    expect(row.instant).toEqual(new Date('2026-03-04T05:06:07.891Z'));
    expect(row.doc).toEqual({ a: [1, { b: null }] });
    expect(row.bigs).toEqual(['1', '2']);
    expect(row.texts).toEqual(awkward);
    expect(row.param).toBe(7);
    expect(row.absent).toBeNull();
  });

  it('when a timestamptz of a year before 100 comes back, then it is that year on both adapters (issue 19: PGlite read 0001 as 2001, 0020-02-29 as Invalid Date)', async () => {
    const { rows } = await db.query<Record<string, Date>>(
      `SELECT '0020-02-29T00:00:00Z'::timestamptz AS leap, '0001-01-01T00:00:00Z'::timestamptz AS first,
              '0001-06-01T00:00:00Z BC'::timestamptz AS before, '0099-12-31T23:59:59.5Z'::timestamptz AS late,
              '0020-02-29 00:00:00'::timestamp AS local`,
    );
    const row = rows[0] ?? {};
    expect(row.leap?.toISOString()).toBe('0020-02-29T00:00:00.000Z');
    expect(row.first?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    // 1 BC is year 0 of ISO 8601 and of JavaScript.
    expect(row.before?.toISOString()).toBe('0000-06-01T00:00:00.000Z');
    expect(row.late?.toISOString()).toBe('0099-12-31T23:59:59.500Z');
    expect(row.local?.getFullYear()).toBe(20);
  });
});

describe('SQL port on PGlite, one connection', () => {
  let db: SqlDatabase;
  const schema = uniqueName('sql_pglite');

  beforeAll(async () => {
    // Initialized by initdb as the embedded mode's first start does, not from the run's template.
    db = await createPGliteDatabase();
    await db.exec(
      `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.items (id integer PRIMARY KEY, label text)`,
    );
  });

  afterAll(async () => {
    await db?.close();
  });

  it('when another caller queries while a transaction is open, then it waits for the transaction to end', async () => {
    const hold = gate();
    const inserted = gate();
    const transaction = db.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${schema}.items VALUES (1, 'one')`);
      inserted.open();
      await hold.opened;
    });
    await inserted.opened;
    const outside = db.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.items`);
    expect(await settledWithin(outside, 200)).toBe('pending');
    hold.open();
    await transaction;
    expect((await outside).rows[0]?.n).toBe('1');
  });

  it('when a nested transaction throws, then only its own writes are rolled back', async () => {
    await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${schema}.items VALUES (10, 'kept')`);
      await expect(
        db.transaction(async (inner) => {
          await inner.query(`INSERT INTO ${schema}.items VALUES (11, 'dropped')`);
          throw new Error('inner refused');
        }),
      ).rejects.toThrow('inner refused');
    });
    const { rows } = await db.query<{ label: string }>(
      `SELECT label FROM ${schema}.items WHERE id >= 10 ORDER BY id`,
    );
    expect(rows.map((row) => row.label)).toEqual(['kept']);
  });
});

describe('SQL port on PostgreSQL, session settings', () => {
  const setting = async (db: SqlExecutor, name: string) =>
    (await db.query<{ value: string }>('SELECT current_setting($1) AS value', [name])).rows[0]?.value;

  it('when a pool opens sessions, then statements get no parallel workers', async () => {
    const db = createPostgresDatabase({ connectionString: requireServer('DATABASE_URL'), max: 2 });
    try {
      await expect(setting(db, 'max_parallel_workers_per_gather')).resolves.toBe('0');
      // Inside a transaction too: it is the session's setting, not a statement's.
      await expect(db.transaction((tx) => setting(tx, 'max_parallel_workers_per_gather'))).resolves.toBe('0');
    } finally {
      await db.close();
    }
  });

  it('when settings are given, then sessions start with them, a value with a space and a quote included', async () => {
    const db = createPostgresDatabase({
      connectionString: requireServer('DATABASE_URL'),
      max: 1,
      settings: { max_parallel_workers_per_gather: '1', application_name: "verdict's settings test" },
    });
    try {
      await expect(setting(db, 'max_parallel_workers_per_gather')).resolves.toBe('1');
      await expect(setting(db, 'application_name')).resolves.toBe("verdict's settings test");
    } finally {
      await db.close();
    }
  });

  it('when the connection string carries options, then they replace the default settings', async () => {
    const url = new URL(requireServer('DATABASE_URL'));
    url.searchParams.set('options', '-c max_parallel_workers_per_gather=2');
    const db = createPostgresDatabase({ connectionString: url.toString(), max: 1 });
    try {
      await expect(setting(db, 'max_parallel_workers_per_gather')).resolves.toBe('2');
    } finally {
      await db.close();
    }
  });

  it('when a setting name is not an identifier, then the pool is refused before it connects', () => {
    expect(() =>
      createPostgresDatabase({
        connectionString: requireServer('DATABASE_URL'),
        settings: { 'work_mem=1MB -c fsync': 'off' },
      }),
    ).toThrow(TypeError);
  });
});
