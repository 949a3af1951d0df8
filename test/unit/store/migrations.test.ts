import { describe, expect, it } from "vitest";
import { openDb } from "../../../src/store/db.ts";
import { MIGRATIONS as migrations } from "../../../src/store/migrations/index.ts";

describe("migrations", () => {
  it("have one id each, so none is skipped or collides when two branches add one", () => {
    const ids = migrations.map((migration) => migration.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("apply to an empty store and record every id once", () => {
    const db = openDb(":memory:");
    const applied = db.prepare("SELECT id FROM schema_migrations ORDER BY id").all() as Array<{
      id: number;
    }>;
    expect(applied.map((row) => row.id)).toEqual(
      migrations.map((migration) => migration.id).sort((a, b) => a - b),
    );
  });
});
