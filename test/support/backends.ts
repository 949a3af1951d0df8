/**
 * The two store backends, for one suite that runs on both (`describe.each(BACKENDS)`): an
 * in-memory SQLite, or a fresh PostgreSQL database (its own, migrated) on the run's embedded
 * server. Every database a test opens is closed after it by `closeOpened`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgres } from "../../src/store/postgres.ts";
import { migratePostgres } from "../../src/store/postgres-migrate.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { freshDatabase } from "./postgres.ts";

export interface Backend {
  name: "sqlite" | "postgres";
  /** a new migrated database, closed by `closeOpened` */
  open(): Promise<SqlDb>;
  /**
   * A new database that can be opened again (a restart): each call of the opener connects to
   * the same one (a file for SQLite), migrated; the caller closes what it opens.
   */
  database(): Promise<() => Promise<SqlDb>>;
}

const opened: SqlDb[] = [];

export const BACKENDS: Backend[] = [
  {
    name: "sqlite",
    async open() {
      const db = await openSqlite(":memory:");
      opened.push(db);
      return db;
    },
    async database() {
      const file = join(mkdtempSync(join(tmpdir(), "store-backend-")), "state.sqlite");
      return () => openSqlite(file);
    },
  },
  {
    name: "postgres",
    async open() {
      const db = await openPostgres((await freshDatabase()).url, { max: 3 });
      opened.push(db);
      await migratePostgres(db);
      return db;
    },
    async database() {
      const { url } = await freshDatabase();
      return async () => {
        const db = await openPostgres(url, { max: 3 });
        await migratePostgres(db);
        return db;
      };
    },
  },
];

/** for `afterEach`/`afterAll`: closes every database opened so far */
export async function closeOpened(): Promise<void> {
  const all = opened.splice(0);
  await Promise.all(all.map((db) => db.close()));
}
