/**
 * The SQL port: the one connection interface that both PostgreSQL (pg) and PGlite implement, so the event
 * store, the relay checkpoints and every read model run the same SQL in the embedded and distributed modes.
 * Parameters are positional ($1, $2, …) as in PostgreSQL. Both adapters return the same JavaScript values
 * for a column (pg's defaults: int8 and numeric as strings, timestamptz and date as Date, json parsed).
 */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * Keep the statement prepared on each connection and reuse it, so PostgreSQL parses and plans it once
   * (a third of a small INSERT's time). Only for a constant text that runs often: every distinct text stays
   * prepared for the connection's life. PGlite ignores it.
   */
  prepare?: boolean;
}

export interface SqlExecutor {
  query<Row = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<Row>>;
}

export interface SqlDatabase extends SqlExecutor {
  /** Which adapter this is, for logs and metrics only; code never branches on it. */
  readonly kind: 'postgres' | 'pglite';
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. Inside `work`
   * use `tx` only: a call on the database itself runs on another connection on PostgreSQL (it does not see
   * the transaction's writes) and joins the open transaction on PGlite (its only connection); code must not
   * depend on either. A COMMIT that PostgreSQL turns into a ROLLBACK (a failed statement was swallowed)
   * rejects with code 25P02 on both adapters.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Runs several statements separated by semicolons without parameters (DDL, migrations). */
  exec(sql: string): Promise<void>;
  /** Resolves when the database answers a trivial query; used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What both adapters reject with when PostgreSQL refuses a statement: its SQLSTATE `code` ('23505' for a
 * unique violation) and, for a constraint violation, the constraint's name.
 */
export interface SqlError extends Error {
  code: string;
  constraint?: string;
  detail?: string;
}

/** SQLSTATE codes the platform branches on. */
export const SQLSTATE = {
  uniqueViolation: '23505',
  transactionRolledBack: '25P02',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  invalidTextRepresentation: '22P02',
  numericValueOutOfRange: '22003',
} as const;

/**
 * True when `error` is PostgreSQL's refusal with this SQLSTATE (and this constraint, when given).
 *
 * @example if (isSqlError(error, SQLSTATE.uniqueViolation, 'events_event_id_key')) return alreadyDone();
 */
export function isSqlError(error: unknown, code?: string, constraint?: string): error is SqlError {
  // Duck-typed, not instanceof: the error may come from another realm (jest's vm, a worker).
  if (typeof error !== 'object' || error === null) return false;
  const { code: actual, constraint: actualConstraint } = error as Partial<SqlError>;
  if (typeof actual !== 'string' || !/^[0-9A-Z]{5}$/.test(actual)) return false;
  return (
    (code === undefined || actual === code) && (constraint === undefined || actualConstraint === constraint)
  );
}

/**
 * The database as seen from inside a transaction already open: every statement runs in `tx`, and a
 * `transaction()` joins it (commits and rollbacks are the outer transaction's). For writing through a
 * port built on a database (an event store and its inline projection) together with other statements.
 *
 * @example const store = createSqlEventStore({ db: joinTransaction(db, tx), schema });
 */
export function joinTransaction(db: SqlDatabase, tx: SqlExecutor): SqlDatabase {
  return {
    kind: db.kind,
    query: tx.query.bind(tx),
    transaction: (work) => work(tx),
    exec: () => Promise.reject(new Error('exec() runs statements without a transaction; not inside one')),
    ping: () => db.ping(),
    close: () => Promise.reject(new Error('A joined transaction is closed by its owner')),
  };
}
