/**
 * The SQL port: the one connection interface that both PostgreSQL (pg) and PGlite implement, so the event
 * store, the relay checkpoints and every read model run the same SQL in the embedded and distributed modes.
 * Parameters are positional ($1, $2, …) as in PostgreSQL.
 */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

export interface SqlExecutor {
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
}

export interface SqlDatabase extends SqlExecutor {
  /** Which adapter this is, for logs and metrics only; code never branches on it. */
  readonly kind: 'postgres' | 'pglite';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Runs several statements separated by semicolons without parameters (DDL, migrations). */
  exec(sql: string): Promise<void>;
  /** Resolves when the database answers a trivial query; used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
