import { describe, expect, it } from "vitest";
import { copyStore, PAGE_ROWS } from "../../../src/store/copy.ts";
import type { SqlDb, SqlExecutor } from "../../../src/store/sql.ts";
import { openMemoryDb } from "../../support/store.ts";

/**
 * copyStore reads each table in pages (issue 38, review finding 2): 300,000 audit rows read whole
 * took the copy to 380 MB of RSS, near the bot container's 384Mi. Here the source is watched: no
 * one read returns more than PAGE_ROWS rows, and every row lands, in a table with a one-column
 * key (audit) and one with a two-column key (notify_snapshots).
 */

const AUDIT_ROWS = Math.floor(PAGE_ROWS * 2.5);
const SNAPSHOT_ROWS = PAGE_ROWS + 7;

async function seed(db: SqlDb): Promise<void> {
  await db.transaction(async (tx) => {
    for (let i = 0; i < AUDIT_ROWS; i++) {
      await tx.run(
        "INSERT INTO audit (at, user_id, action, target, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)",
        [new Date(1e12 + i).toISOString(), "U1", "ack", `cluster-${i}`, "granted", `d${i}`],
      );
    }
    for (let i = 0; i < SNAPSHOT_ROWS; i++) {
      // two projects, so the second key column decides the order within each
      await tx.run(
        "INSERT INTO notify_snapshots (project, cluster_uid, name, state, health, tags, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [`p${i % 2}`, `uid-${i}`, `c${i}`, "Running", "Healthy", "[]", "2026-11-28T00:00:00Z"],
      );
    }
  });
}

/** the source as copyStore sees it, noting the rows of each read */
function watched(db: SqlDb, reads: number[]): SqlExecutor & Pick<SqlDb, "dialect"> {
  return {
    dialect: db.dialect,
    all: async (sql, params) => {
      const rows = await db.all(sql, params);
      reads.push(rows.length);
      return rows as never;
    },
    get: (sql, params) => db.get(sql, params),
    run: (sql, params) => db.run(sql, params),
  };
}

const everything = (db: SqlDb, table: string, order: string) =>
  db.all(`SELECT * FROM ${table} ORDER BY ${order}`);

describe("copyStore reads a table a page at a time", () => {
  it("never reads more than PAGE_ROWS rows at once, and copies every row", async () => {
    const from = await openMemoryDb();
    const to = await openMemoryDb();
    await seed(from);
    const reads: number[] = [];
    const copied = await copyStore(watched(from, reads), to);

    expect(copied).toContainEqual({ table: "audit", rows: AUDIT_ROWS });
    expect(copied).toContainEqual({ table: "notify_snapshots", rows: SNAPSHOT_ROWS });
    expect(Math.max(...reads)).toBeLessThanOrEqual(PAGE_ROWS);
    expect(await everything(to, "audit", "id")).toEqual(await everything(from, "audit", "id"));
    expect(await everything(to, "notify_snapshots", "project, cluster_uid")).toEqual(
      await everything(from, "notify_snapshots", "project, cluster_uid"),
    );
    await from.close();
    await to.close();
  });
});
