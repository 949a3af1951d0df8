import { describe, expect, it } from "vitest";
import { MIGRATIONS as migrations } from "../../../src/store/migrations/index.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";

describe("migrations", () => {
  it("have one id each, so none is skipped or collides when two branches add one", async () => {
    const ids = migrations.map((migration) => migration.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("apply to an empty store and record every id once", async () => {
    const db = await openSqlite(":memory:");
    const applied = (await db.all("SELECT id FROM schema_migrations ORDER BY id")) as Array<{
      id: number;
    }>;
    expect(applied.map((row) => row.id)).toEqual(
      migrations.map((migration) => migration.id).sort((a, b) => a - b),
    );
  });
});
