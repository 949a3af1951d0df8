import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { BACKENDS } from "./backends.ts";

/**
 * A fresh, fully migrated store for a test: in-memory SQLite, or with `TEST_STORE=postgres` a
 * fresh database of the run's embedded PostgreSQL, so any suite written against it can be run
 * on the other backend too (`TEST_STORE=postgres npx vitest run test/unit/notify`).
 */
export function openMemoryDb(): Promise<SqlDb> {
  if (process.env.TEST_STORE === "postgres") return BACKENDS[1]!.open();
  return openSqlite(":memory:");
}
