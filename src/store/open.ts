import type { StateStore } from "../config.ts";
import { openPostgres } from "./postgres.ts";
import { migratePostgres } from "./postgres-migrate.ts";
import type { SqlDb } from "./sql.ts";
import { openSqlite } from "./sqlite.ts";

export interface OpenStoreOptions {
  /** an idle pooled PostgreSQL connection failed (the pool replaces it) */
  onError?: (error: Error) => void;
}

/**
 * The one place the backend is chosen (STATE_DB / DATABASE_URL, see src/config.ts): a SQLite
 * file, migrated by `openSqlite`, or a PostgreSQL database, brought to the latest migration
 * before anything reads it. Errors carry no URL (src/store/postgres.ts scrubs them).
 */
export async function openStore(store: StateStore, options: OpenStoreOptions = {}): Promise<SqlDb> {
  if (store.kind === "sqlite") return openSqlite(store.path);
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
