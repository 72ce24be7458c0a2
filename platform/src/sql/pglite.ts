import { AsyncLocalStorage } from 'node:async_hooks';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Transaction } from '@electric-sql/pglite';
import { getTypeParser } from 'pg-types';
import type { QueryResult, SqlDatabase, SqlExecutor } from './types';

/**
 * The SQL port over PGlite: PostgreSQL compiled to WASM, in this process, one connection. PGlite queues
 * every query behind an open transaction, so other callers simply wait. A call made from inside a
 * transaction's own work would wait for itself forever; those calls join the open transaction instead
 * (a nested `transaction()` becomes a savepoint). Values are parsed as pg parses them by default, so code
 * sees the same JavaScript types in both modes.
 *
 * PGlite loads its WASM and Node built-ins with import(), even from its CommonJS build: under jest, node
 * must run with --experimental-vm-modules, or the process dies on an unhandled rejection at create().
 */
export interface PGliteDatabaseOptions {
  /** Folder that keeps the data; in memory when undefined. */
  dataDir?: string;
  /**
   * Keep the resident memory of a long-running process small: smaller shared buffers, and a fresh data
   * folder initialized by a short-lived child process, because initdb's WASM heap is never given back.
   */
  lowMemory?: boolean;
  /**
   * A data folder dumped by PGlite's `dumpDataDir` (a tar) to start from instead of running initdb, which
   * is most of a fresh database's start-up (several seconds). Only for a new database: PGlite refuses to load
   * one into a data folder that already holds one.
   */
  loadDataDir?: Blob;
}

/** PostgreSQL settings of a small embedded database (a team's worth of data, one process). */
const LOW_MEMORY_SETTINGS = ['shared_buffers=16MB', 'wal_buffers=1MB', 'work_mem=4MB'];

/** Runs initdb for a fresh data folder in a child process, whose memory returns to the OS when it exits. */
function initializeInChildProcess(dataDir: string): void {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  const script =
    'require(process.argv[1]).PGlite.create({ dataDir: process.argv[2] })' +
    '.then((db) => db.close()).catch((e) => { console.error(e); process.exit(1); });';
  const result = spawnSync(
    process.execPath,
    ['-e', script, require.resolve('@electric-sql/pglite'), dataDir],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  if (result.status !== 0)
    throw new Error(`PGlite could not initialize ${dataDir}: ${String(result.stderr)}`);
}

// Array types reuse their element's parser, so int8[] and date[] follow these too.
const INT8 = 20;
const DATE = 1082;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

/** pg parses a `date` as local midnight; PGlite as UTC midnight. Same Date as pg, or PGlite's answer. */
function parseDateLikePg(value: string): Date | number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return value === 'infinity' ? Infinity : value === '-infinity' ? -Infinity : new Date(value);
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  date.setFullYear(Number(match[1]));
  return date;
}

interface OpenTransaction {
  tx: Transaction;
  open: boolean;
  savepoints: number;
}

function executorOf(target: Pick<Transaction, 'query'> | PGlite): SqlExecutor {
  return {
    async query<Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
      const result = await target.query<Row>(text, params ? [...params] : undefined);
      return { rows: result.rows, rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
    },
  };
}

/**
 * Opens (or creates) an embedded PostgreSQL. Resolves once the database is ready to answer.
 *
 * @example const db = await createPGliteDatabase({ dataDir: path.join(dataDir, 'pglite') });
 */
export async function createPGliteDatabase(options: PGliteDatabaseOptions = {}): Promise<SqlDatabase> {
  if (options.lowMemory && options.dataDir) initializeInChildProcess(options.dataDir);
  const pglite = await PGlite.create({
    dataDir: options.dataDir,
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    ...(options.lowMemory ? { postgresqlconf: LOW_MEMORY_SETTINGS } : {}),
    parsers: {
      [INT8]: (value: string) => value,
      [DATE]: parseDateLikePg,
      // pg's own parsers (postgres-date): PGlite's `new Date(text)` reads `0001-01-01 00:00:00+00` as 2001
      // and `0020-02-29 …` as Invalid Date, so a stored instant read differently in the two modes.
      [TIMESTAMP]: getTypeParser(TIMESTAMP),
      [TIMESTAMPTZ]: getTypeParser(TIMESTAMPTZ),
    },
  });
  const direct = executorOf(pglite);
  const current = new AsyncLocalStorage<OpenTransaction>();

  /** The open transaction when called from inside its own work; undefined for any other caller. */
  function joined(): OpenTransaction | undefined {
    const scope = current.getStore();
    return scope?.open ? scope : undefined;
  }

  async function savepoint<T>(scope: OpenTransaction, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    scope.savepoints += 1;
    const name = `verdict_savepoint_${scope.savepoints}`;
    const tx = executorOf(scope.tx);
    await tx.query(`SAVEPOINT ${name}`);
    try {
      const result = await work(tx);
      await tx.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await tx.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  }

  function query<Row>(text: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
    const scope = joined();
    return scope ? executorOf(scope.tx).query<Row>(text, params) : direct.query<Row>(text, params);
  }

  return {
    kind: 'pglite',
    query,
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const outer = joined();
      if (outer) return savepoint(outer, work);
      return pglite.transaction(async (tx) => {
        const scope: OpenTransaction = { tx, open: true, savepoints: 0 };
        try {
          return await current.run(scope, () => work(executorOf(tx)));
        } finally {
          // Work started inside and still running afterwards must not think it is in the transaction.
          scope.open = false;
        }
      });
    },
    async exec(sql) {
      const scope = joined();
      await (scope ? scope.tx.exec(sql) : pglite.exec(sql));
    },
    async ping() {
      await query('SELECT 1');
    },
    async close() {
      await pglite.close();
    },
  };
}
