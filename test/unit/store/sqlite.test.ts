import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SqlDb } from "../../../src/store/sql.ts";
import { openSqlite, SQLITE_CACHE_KIB } from "../../../src/store/sqlite.ts";

const TABLE = [
  { id: 1, name: "t", up: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)" },
];

/** a promise and the function that settles it, to hold a transaction open on cue */
function latch(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** lets every already settled promise run its continuations (a few macrotask turns) */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

const values = async (db: SqlDb) =>
  (await db.all<{ v: string }>("SELECT v FROM t ORDER BY id")).map((row) => row.v);

describe("openSqlite", () => {
  let db: SqlDb;
  afterEach(async () => {
    await db.close();
  });

  it("runs queries with ? parameters, returns numbers for INTEGER and counts changes", async () => {
    db = await openSqlite(":memory:", TABLE);
    expect(db.dialect).toBe("sqlite");
    const inserted = await db.all<{ id: number }>(
      "INSERT INTO t (v) VALUES (?), (?) RETURNING id",
      ["a", "b"],
    );
    expect(inserted).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await db.get<{ v: string }>("SELECT v FROM t WHERE id = ?", [2])).toEqual({ v: "b" });
    expect(await db.get("SELECT v FROM t WHERE id = ?", [3])).toBeUndefined();
    expect(await db.run("UPDATE t SET v = ? WHERE id > ?", ["c", 0])).toEqual({ changes: 2 });
  });

  it("keeps SQLite's page cache at 4 MB, not the 16 MB better-sqlite3 builds it with", async () => {
    db = await openSqlite(":memory:", TABLE);
    expect(await db.get("PRAGMA cache_size")).toEqual({ cache_size: -SQLITE_CACHE_KIB });
    expect(SQLITE_CACHE_KIB).toBeLessThan(16_000);
  });

  it("applies the migrations once, also when the file is opened again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlite-test-"));
    try {
      const path = join(dir, "nested", "state.db");
      db = await openSqlite(path, TABLE);
      await db.run("INSERT INTO t (v) VALUES (?)", ["kept"]);
      await db.close();
      db = await openSqlite(path, TABLE);
      expect(await values(db)).toEqual(["kept"]);
      expect(await db.all("SELECT id FROM schema_migrations")).toEqual([{ id: 1 }]);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("commits a transaction's statements when its work resolves, and returns what it returned", async () => {
    db = await openSqlite(":memory:", TABLE);
    const result = await db.transaction(async (tx) => {
      await tx.run("INSERT INTO t (v) VALUES (?)", ["a"]);
      await tx.run("INSERT INTO t (v) VALUES (?)", ["b"]);
      return (await tx.all("SELECT * FROM t")).length;
    });
    expect(result).toBe(2);
    expect(await values(db)).toEqual(["a", "b"]);
  });

  it("rolls a transaction back when its work throws, and passes the error on", async () => {
    db = await openSqlite(":memory:", TABLE);
    await db.run("INSERT INTO t (v) VALUES (?)", ["before"]);
    await expect(
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO t (v) VALUES (?)", ["lost"]);
        await tx.run("UPDATE t SET v = ? WHERE v = ?", ["changed", "before"]);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await values(db)).toEqual(["before"]);
    // a failing statement rolls back too, and the connection is usable afterwards
    await expect(
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO t (v) VALUES (?)", ["lost"]);
        await tx.run("INSERT INTO t (v) VALUES (?)", [null]);
      }),
    ).rejects.toThrow(/NOT NULL/);
    expect(await values(db)).toEqual(["before"]);
    await db.transaction(async (tx) => {
      await tx.run("INSERT INTO t (v) VALUES (?)", ["after"]);
    });
    expect(await values(db)).toEqual(["before", "after"]);
  });

  it("makes a statement from outside wait while a transaction is open, and runs it after the commit", async () => {
    db = await openSqlite(":memory:", TABLE);
    const hold = latch();
    const order: string[] = [];
    const inside = db.transaction(async (tx) => {
      await tx.run("INSERT INTO t (v) VALUES (?)", ["tx-1"]);
      order.push("tx-1");
      await hold.promise;
      await tx.run("INSERT INTO t (v) VALUES (?)", ["tx-2"]);
      order.push("tx-2");
    });
    // started after the transaction took the connection, while its work awaits
    await settle();
    const outside = db.run("INSERT INTO t (v) VALUES (?)", ["outside"]).then(() => {
      order.push("outside");
    });
    const read = db.all<{ v: string }>("SELECT v FROM t ORDER BY id");
    await settle();
    expect(order).toEqual(["tx-1"]);
    hold.open();
    await Promise.all([inside, outside]);
    expect(order).toEqual(["tx-1", "tx-2", "outside"]);
    // the waiting read saw the whole committed transaction, and ran after the earlier waiter
    expect((await read).map((row) => row.v)).toEqual(["tx-1", "tx-2", "outside"]);
    expect(await values(db)).toEqual(["tx-1", "tx-2", "outside"]);
  });

  it("a statement from outside waits for a transaction that rolls back, and does not roll back with it", async () => {
    db = await openSqlite(":memory:", TABLE);
    const hold = latch();
    const failed = db.transaction(async (tx) => {
      await tx.run("INSERT INTO t (v) VALUES (?)", ["lost"]);
      await hold.promise;
      throw new Error("boom");
    });
    await settle();
    const outside = db.run("INSERT INTO t (v) VALUES (?)", ["outside"]);
    hold.open();
    await expect(failed).rejects.toThrow("boom");
    await outside;
    expect(await values(db)).toEqual(["outside"]);
  });

  it("runs two transactions started together one after the other", async () => {
    db = await openSqlite(":memory:", TABLE);
    const order: string[] = [];
    const work =
      (name: string) => async (tx: Parameters<Parameters<SqlDb["transaction"]>[0]>[0]) => {
        order.push(`${name} begin`);
        await tx.run("INSERT INTO t (v) VALUES (?)", [`${name}-1`]);
        await settle();
        const seen = (await tx.all<{ v: string }>("SELECT v FROM t ORDER BY id")).map((r) => r.v);
        await tx.run("INSERT INTO t (v) VALUES (?)", [`${name}-2`]);
        order.push(`${name} end`);
        return seen;
      };
    const [first, second] = await Promise.all([
      db.transaction(work("a")),
      db.transaction(work("b")),
    ]);
    expect(order).toEqual(["a begin", "a end", "b begin", "b end"]);
    expect(first).toEqual(["a-1"]);
    expect(second).toEqual(["a-1", "a-2", "b-1"]);
    expect(await values(db)).toEqual(["a-1", "a-2", "b-1", "b-2"]);
  });

  it("refuses a nested transaction, or a statement on the database inside a transaction, instead of hanging", async () => {
    db = await openSqlite(":memory:", TABLE);
    let nested: unknown;
    let direct: unknown;
    await expect(
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO t (v) VALUES (?)", ["outer"]);
        nested = await db
          .transaction(async (inner) => inner.run("INSERT INTO t (v) VALUES (?)", ["inner"]))
          .catch((error: unknown) => error);
        direct = await db
          .run("INSERT INTO t (v) VALUES (?)", ["direct"])
          .catch((error: unknown) => error);
        throw nested;
      }),
    ).rejects.toThrow(/inside one of its own transactions/);
    expect(String(nested)).toMatch(/transaction on the database from inside/);
    expect(String(direct)).toMatch(/run on the database from inside/);
    // the outer transaction rolled back; nothing of the refused statements landed
    expect(await values(db)).toEqual([]);
  });

  it("still refuses a statement on the database inside a later transaction (its context storage is off between transactions)", async () => {
    db = await openSqlite(":memory:", TABLE);
    await db.transaction(async (tx) => {
      await tx.run("INSERT INTO t (v) VALUES (?)", ["first"]);
    });
    // between transactions a statement runs at once
    await db.run("INSERT INTO t (v) VALUES (?)", ["between"]);
    let direct: unknown;
    await db.transaction(async (tx) => {
      await tx.run("INSERT INTO t (v) VALUES (?)", ["second"]);
      direct = await db
        .run("INSERT INTO t (v) VALUES (?)", ["direct"])
        .catch((error: unknown) => error);
    });
    expect(String(direct)).toMatch(/run on the database from inside/);
    expect(await values(db)).toEqual(["first", "between", "second"]);
  });

  it("refuses statements through a transaction's executor once it has ended", async () => {
    db = await openSqlite(":memory:", TABLE);
    let kept: Parameters<Parameters<SqlDb["transaction"]>[0]>[0] | undefined;
    await db.transaction(async (tx) => {
      kept = tx;
    });
    await expect(kept!.run("INSERT INTO t (v) VALUES (?)", ["late"])).rejects.toThrow(/ended/);
    expect(await values(db)).toEqual([]);
  });

  it("close waits for the open transaction to commit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sqlite-test-"));
    try {
      const path = join(dir, "state.db");
      db = await openSqlite(path, TABLE);
      const hold = latch();
      const inside = db.transaction(async (tx) => {
        await hold.promise;
        await tx.run("INSERT INTO t (v) VALUES (?)", ["committed"]);
      });
      await settle();
      const closing = db.close();
      hold.open();
      await Promise.all([inside, closing]);
      db = await openSqlite(path, TABLE);
      expect(await values(db)).toEqual(["committed"]);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
