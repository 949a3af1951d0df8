import type { Migration } from "./migrations/migration.ts";
import { POSTGRES_MIGRATIONS } from "./migrations/postgres.ts";
import type { SqlDb } from "./sql.ts";

/**
 * Applies the PostgreSQL migrations the database has not seen, in id order, all in one
 * transaction (PostgreSQL's DDL is transactional: a failing step leaves nothing behind).
 * Returns the ids it applied.
 *
 * Replicas starting together against an empty database would otherwise race: both create
 * schema_migrations and the first table, and one fails on a duplicate catalog row. So the
 * transaction first takes a transaction-scoped advisory lock: the others wait for it, then read
 * schema_migrations after the first has committed and find nothing left to do. The lock is
 * released with the transaction, also when the process dies mid-way.
 */
/** the advisory lock key of the migrations: any BIGINT, fixed, unlikely to collide ("pcmigr") */
const MIGRATION_LOCK = 0x7063_6d69_6772;

export async function migratePostgres(
  db: SqlDb,
  migrations: Migration[] = POSTGRES_MIGRATIONS,
): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.get("SELECT pg_advisory_xact_lock(?) AS locked", [MIGRATION_LOCK]);
    await tx.run(
      "CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
    );
    const applied = new Set(
      (await tx.all<{ id: number }>("SELECT id FROM schema_migrations")).map((row) => row.id),
    );
    const missing = [...migrations]
      .sort((a, b) => a.id - b.id)
      .filter((migration) => !applied.has(migration.id));
    for (const migration of missing) {
      await tx.run(migration.up);
      await tx.run("INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)", [
        migration.id,
        migration.name,
        new Date().toISOString(),
      ]);
    }
    return missing.map((migration) => migration.id);
  });
}
