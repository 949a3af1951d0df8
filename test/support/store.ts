import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";

/** A fresh, fully migrated in-memory store. */
export function openMemoryDb(): Promise<SqlDb> {
  return openSqlite(":memory:");
}
