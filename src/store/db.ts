import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { MIGRATIONS } from "./migrations/index.ts";
import type { Migration } from "./migrations/migration.ts";

export type Db = Database.Database;

/**
 * Opens (creating if needed) the SQLite file at `path` (`:memory:` allowed) and applies the
 * migrations it has not seen. WAL and `synchronous=NORMAL` make a commit durable across a crash
 * of the process (not of the machine) at a fraction of the cost of FULL.
 */
export function openDb(path: string, migrations: Migration[] = MIGRATIONS): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db, migrations);
  return db;
}

export function migrate(db: Db, migrations: Migration[]): void {
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
    db.transaction(() => {
      db.exec(migration.up);
      db.prepare("INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)").run(
        migration.id,
        migration.name,
        new Date().toISOString(),
      );
    })();
  }
}
