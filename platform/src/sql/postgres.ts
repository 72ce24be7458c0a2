import { createHash } from 'node:crypto';
import { DatabaseError, Pool } from 'pg';
import type { PoolClient, QueryConfig, QueryResult as PgQueryResult, QueryResultRow } from 'pg';
import type { Logger } from '../logging';
import type { QueryOptions, QueryResult, SqlDatabase, SqlError, SqlExecutor } from './types';
import { SQLSTATE } from './types';

/**
 * The SQL port over PostgreSQL through a `pg` Pool. Value parsing is left at pg's defaults (no global type
 * parsers are registered); the PGlite adapter mimics them. Statements run with `prepare` are named after
 * a hash of their text, so a name always means one text; they need session pooling (a PgBouncer in
 * transaction mode must be 1.21+ with max_prepared_statements set).
 */
export interface PostgresDatabaseOptions {
  connectionString: string;
  /** Pool size (default 10). */
  max?: number;
  /** Shown in pg_stat_activity, so an operator can tell the services apart. */
  applicationName?: string;
  /** Where to report a pooled connection that died while idle (the pool replaces it). */
  logger?: Logger;
  /**
   * Settings every pooled session starts with (a SET before its first statement); default
   * SESSION_SETTINGS. A connection string with an `options` parameter chooses its own: then none of these
   * is applied.
   */
  settings?: Readonly<Record<string, string>>;
}

/**
 * No parallel workers for a statement. Verdict's statements read small precomputed rows, and a request
 * runs several of them at once: on a 2-core host a parallel plan's workers only took cores from the other
 * statements and added their start-up. On the analytics bench's read model (1M results), in one process
 * with the two settings taking turns (three rounds of 75 calls): the explorer's median 17.7-19.7 ms
 * without parallel workers, 27.3-27.8 ms with them; the summary's 29.4-37.3 ms against 41.3-49.9 ms.
 */
export const SESSION_SETTINGS: Readonly<Record<string, string>> = { max_parallel_workers_per_gather: '0' };

const SETTING_NAME = /^[a-z_][a-z0-9_.]*$/;

/**
 * The settings as one `SET …; SET …` text, run first on each new connection. Not the `options` startup
 * parameter: PgBouncer refuses a connection that sends one (unless told to ignore it), and a SET passes.
 */
function settingStatements(settings: Readonly<Record<string, string>>): string | undefined {
  const parts = Object.entries(settings).map(([name, value]) => {
    if (!SETTING_NAME.test(name)) throw new TypeError(`Not a PostgreSQL setting name: ${name}`);
    return `SET ${name} = '${value.replace(/'/g, "''")}'`;
  });
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** A connection string that sets `options` itself (URL or keyword form) chooses its own settings. */
const choosesOptions = (connectionString: string) => /(^|[?&\s])options=/.test(connectionString);

const statementNames = new Map<string, string>();

/** What pg runs: a named (prepared) statement when asked to prepare, an unnamed one otherwise. */
function configOf(
  text: string,
  params: readonly unknown[] | undefined,
  options: QueryOptions | undefined,
): QueryConfig {
  const values = params as unknown[] | undefined;
  if (!options?.prepare) return { text, values };
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `verdict_${createHash('sha1').update(text).digest('hex').slice(0, 32)}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

function resultOf<Row>(result: PgQueryResult<QueryResultRow>): QueryResult<Row> {
  return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
}

function transactionRolledBack(): SqlError {
  return Object.assign(new Error('Transaction was rolled back instead of committed'), {
    code: SQLSTATE.transactionRolledBack,
  });
}

/** An executor bound to one checked-out client, refusing use once its transaction is over. */
function clientExecutor(client: PoolClient): { tx: SqlExecutor; close(): void } {
  let closed = false;
  const tx: SqlExecutor = {
    async query<Row>(text: string, params?: readonly unknown[], options?: QueryOptions) {
      // The client goes back to the pool after the transaction: a late query would run in someone else's.
      if (closed) throw new Error('Transaction is closed');
      return resultOf<Row>(await client.query(configOf(text, params, options)));
    },
  };
  return { tx, close: () => (closed = true) };
}

/**
 * Connects the SQL port to PostgreSQL. Connections open lazily; `ping()` checks the server is there.
 *
 * @example const db = createPostgresDatabase({ connectionString: config.databaseUrl, applicationName: 'test-results' });
 */
export function createPostgresDatabase(options: PostgresDatabaseOptions): SqlDatabase {
  const pool = new Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName,
  });
  // Without a listener an idle connection dropped by the server would crash the process.
  pool.on('error', (error) => options.logger?.warn({ err: error }, 'idle PostgreSQL connection failed'));
  const settings = choosesOptions(options.connectionString)
    ? undefined
    : settingStatements(options.settings ?? SESSION_SETTINGS);
  const settled = new WeakSet<PoolClient>();

  /** A pooled client, its session settings applied the first time it is handed out. */
  async function acquire(): Promise<PoolClient> {
    const client = await pool.connect();
    if (settings === undefined || settled.has(client)) return client;
    settled.add(client);
    try {
      await client.query(settings);
    } catch (error) {
      // The settings tune; a session without them still answers correctly.
      options.logger?.warn({ err: error }, 'could not apply the session settings');
    }
    return client;
  }

  /**
   * One statement on a pooled client. A refusal of PostgreSQL's goes back to the pool with its client; any
   * other failure (a dropped connection) destroys the client.
   */
  async function withClient<T>(use: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await acquire();
    let result: T;
    try {
      result = await use(client);
    } catch (error) {
      // A statement PostgreSQL refused (a DatabaseError) leaves the session sound.
      client.release(error instanceof DatabaseError ? undefined : toError(error));
      throw error;
    }
    client.release();
    return result;
  }

  async function transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const client = await acquire();
    const { tx, close } = clientExecutor(client);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(tx);
      close();
      // PostgreSQL answers COMMIT of a failed transaction with ROLLBACK and no error; PGlite throws. Align.
      const commit = await client.query('COMMIT');
      if (commit.command === 'ROLLBACK') throw transactionRolledBack();
      return result;
    } catch (error) {
      close();
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      // A client whose ROLLBACK failed is in an unknown state: destroy it rather than pool it.
      client.release(broken);
    }
  }

  return {
    kind: 'postgres',
    async query<Row>(text: string, params?: readonly unknown[], options?: QueryOptions) {
      const config = configOf(text, params, options);
      return resultOf<Row>(await withClient((client) => client.query(config)));
    },
    transaction,
    async exec(sql) {
      await withClient((client) => client.query(sql));
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
}

const toError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));
