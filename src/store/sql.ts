/**
 * The one store interface both backends implement (issue "Two replicas, one voice"): SQLite
 * through better-sqlite3 for one replica and the demo, PostgreSQL through `pg` for several.
 * Asynchronous, because a PostgreSQL round trip must not block the event loop; SQL is written
 * once, in the subset both speak: `?` placeholders (the PostgreSQL side numbers them), `ON
 * CONFLICT … DO UPDATE/NOTHING` (never `INSERT OR …`), `RETURNING` for generated ids, ISO text
 * for times, INTEGER for epoch milliseconds and flags, JSON as TEXT.
 *
 * SQLite: src/store/sqlite.ts (`openSqlite`); PostgreSQL: src/store/postgres.ts; `open.ts`
 * chooses from the config. Every store takes a `SqlExecutor`. No rowid: an order a store keeps
 * is a column of its own (`seq`, migration 47).
 */

export type SqlValue = string | number | null;

export interface SqlRunResult {
  /** rows the statement inserted, updated or deleted */
  changes: number;
}

/** What a store needs to run statements: the database itself, or one transaction of it. */
export interface SqlExecutor {
  /** every row of a query (or of an `INSERT … RETURNING`) */
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** the first row, or undefined */
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult>;
}

export interface SqlDb extends SqlExecutor {
  readonly dialect: "sqlite" | "postgres";
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. Its
   * statements go through `tx` only; on SQLite, statements from elsewhere wait until it ends (one
   * connection), on PostgreSQL they run on other pooled connections.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
