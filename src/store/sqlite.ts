import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database, { type Statement } from "better-sqlite3";
import { MIGRATIONS } from "./migrations/index.ts";
import type { Migration } from "./migrations/migration.ts";
import type { SqlDb, SqlExecutor, SqlRunResult, SqlValue } from "./sql.ts";

/** SQLite's page cache per connection, in KiB */
export const SQLITE_CACHE_KIB = 2000;

/**
 * Opens (creating if needed) the SQLite file at `path` (`:memory:` allowed), applies the
 * migrations it has not seen, and serves it through the async store interface. WAL and
 * `synchronous=NORMAL` make a commit durable across a crash of the process (not of the machine)
 * at a fraction of the cost of FULL.
 */
export async function openSqlite(
  path: string,
  migrations: readonly Migration[] = MIGRATIONS,
  options: OpenSqliteOptions = {},
): Promise<SqlDb> {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  const store = new SqliteDb(db);
  try {
    // first: a second process opening the file at once waits for the first's locks (the switch
    // to WAL, the migrations) rather than failing at once with SQLITE_BUSY
    db.pragma("busy_timeout = 5000");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    // better-sqlite3 builds SQLite with a 16 MB page cache; at 50,000 clusters a reconciliation
    // fills it, a fifth of the bot's memory. Pages it drops are still in the OS's file cache.
    // 2 MB (SQLite's own default): with 4 MB the bench at 50,000 measured 121 MB steady, with 2
    // MB 119 MB, reconciliation and the radar's store time unchanged (docs/benchmarks.md)
    db.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
    await options.beforeMigrating?.(store);
    migrate(db, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return store;
}

export interface OpenSqliteOptions {
  /**
   * Run on the open file before any migration: the start-up claim of the file's lease
   * (src/app/bot.ts), so a newer release started beside a live older one is refused the file
   * before it changes the schema the older one runs on. Throwing closes the file.
   */
  beforeMigrating?: (db: SqlDb) => Promise<void>;
}

/** Applies the migrations `db` has not seen (exported for the schema parity test). */
export function migrate(db: Database.Database, migrations: readonly Migration[]): void {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const applied = new Set(
    db
      .prepare("SELECT id FROM schema_migrations")
      .all()
      .map((row) => (row as { id: number }).id),
  );
  const sorted = [...migrations].sort((a, b) => a.id - b.id);
  for (const migration of sorted) {
    if (applied.has(migration.id)) continue;
    // IMMEDIATE, and asked again inside: two processes starting together on a new file (the
    // second is then refused the file, src/app/sole-replica.ts) must not both apply it
    db.transaction(() => {
      if (db.prepare("SELECT 1 FROM schema_migrations WHERE id = ?").get(migration.id)) return;
      db.exec(migration.up);
      db.prepare("INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)").run(
        migration.id,
        migration.name,
        new Date().toISOString(),
      );
    }).immediate();
  }
}

/** Prepared statements kept; the stores' fixed texts are far fewer. */
const STATEMENT_CACHE = 1000;

/** One open transaction: its executor works while `open`, and only then. */
interface TxState {
  open: boolean;
}

/**
 * One better-sqlite3 connection behind the async interface. Statements run synchronously when
 * called (the promise is already settled), so a loop of `tx.run` inside a transaction costs what
 * it did before. A transaction holds the connection across its awaits: statements and
 * transactions from elsewhere wait for it to end (`gate`), statements through its `tx` run at
 * once. A statement on the database itself, or a nested `transaction`, from inside a
 * transaction's own work would wait for that very transaction: it is refused with an error
 * instead of hanging.
 */
class SqliteDb implements SqlDb {
  readonly dialect = "sqlite";
  private readonly statements = new Map<string, Statement>();
  /** settled when the open transaction ends; undefined while none is open */
  private gate: Promise<void> | undefined;
  private readonly context = new AsyncLocalStorage<TxState>();
  private closed = false;

  constructor(private readonly db: Database.Database) {}

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.whenFree("all", () => this.prepare(sql).all(...params) as T[]);
  }

  get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.whenFree("get", () => this.prepare(sql).get(...params) as T | undefined);
  }

  run(sql: string, params: readonly SqlValue[] = []): Promise<SqlRunResult> {
    return this.whenFree("run", () => ({ changes: this.prepare(sql).run(...params).changes }));
  }

  async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    this.refuseInsideOwnTransaction("transaction");
    // the check and the taking of the gate happen in one synchronous step
    while (this.gate) await this.gate;
    let end!: () => void;
    this.gate = new Promise<void>((resolve) => {
      end = resolve;
    });
    const state: TxState = { open: true };
    try {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const result = await this.context.run(state, () => work(this.executor(state)));
        state.open = false;
        this.db.exec("COMMIT");
        return result;
      } catch (error) {
        state.open = false;
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw error;
      }
    } finally {
      state.open = false;
      // One transaction at a time (the gate), so no other context of this storage is alive: it is
      // disabled between transactions, because while any AsyncLocalStorage is enabled Node runs
      // async hooks on every promise of the process (see src/palette/priority.ts).
      this.context.disable();
      this.gate = undefined;
      end();
    }
  }

  async close(): Promise<void> {
    while (this.gate) await this.gate;
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.db.close();
  }

  /**
   * Runs `op` at once when no transaction is open, else after it ends. The last check of the gate
   * and `op` happen in one synchronous step, so `op` never lands inside another's transaction.
   */
  private whenFree<R>(what: string, op: () => R): Promise<R> {
    try {
      this.refuseInsideOwnTransaction(what);
      if (!this.gate) return Promise.resolve(op());
    } catch (error) {
      return Promise.reject(error);
    }
    return (async () => {
      while (this.gate) await this.gate;
      return op();
    })();
  }

  private refuseInsideOwnTransaction(what: string): void {
    if (this.context.getStore()?.open) {
      throw new Error(
        `SQLite: ${what} on the database from inside one of its own transactions would wait for that transaction forever; run it through the transaction's executor (tx)`,
      );
    }
  }

  private executor(state: TxState): SqlExecutor {
    const check = () => {
      if (!state.open) throw new Error("SQLite: statement on a transaction that has ended");
    };
    return {
      all: async <T>(sql: string, params: readonly SqlValue[] = []) => {
        check();
        return this.prepare(sql).all(...params) as T[];
      },
      get: async <T>(sql: string, params: readonly SqlValue[] = []) => {
        check();
        return this.prepare(sql).get(...params) as T | undefined;
      },
      run: async (sql: string, params: readonly SqlValue[] = []) => {
        check();
        return { changes: this.prepare(sql).run(...params).changes };
      },
    };
  }

  /** Prepared once per SQL text. */
  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      // `IN (?, ?, …)` lists of every length are distinct texts: keep the cache bounded
      if (this.statements.size >= STATEMENT_CACHE) {
        this.statements.delete(this.statements.keys().next().value!);
      }
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
