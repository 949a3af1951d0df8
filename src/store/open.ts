import type { StateStore } from "../config.ts";
import type { SqlDb } from "./sql.ts";
import { openSqlite } from "./sqlite.ts";

export interface OpenStoreOptions {
  /** an idle pooled PostgreSQL connection failed (the pool replaces it) */
  onError?: (error: Error) => void;
  /** a SQLite file only: run before its migrations (see OpenSqliteOptions) */
  beforeMigrating?: (db: SqlDb) => Promise<void>;
}

/**
 * The one place the backend is chosen (STATE_DB / DATABASE_URL, see src/config.ts): a SQLite
 * file, migrated by `openSqlite`, or a PostgreSQL database, brought to the latest migration
 * before anything reads it. Errors carry no URL (src/store/postgres.ts scrubs them). The
 * PostgreSQL driver (`pg`) is imported only for a PostgreSQL store: a bot on SQLite does not hold
 * its modules in memory (issue 31 item 14, the memory budget).
 */
export async function openStore(store: StateStore, options: OpenStoreOptions = {}): Promise<SqlDb> {
  if (store.kind === "sqlite") {
    const { beforeMigrating } = options;
    return openSqlite(store.path, undefined, beforeMigrating ? { beforeMigrating } : {});
  }
  const [{ openPostgres }, { migratePostgres }] = await Promise.all([
    import("./postgres.ts"),
    import("./postgres-migrate.ts"),
  ]);
  const db = await openPostgres(store.url, {
    applicationName: "palette-chatops",
    onError: options.onError,
  });
  try {
    await migratePostgres(db);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return db;
}
