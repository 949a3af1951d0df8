import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotifyEventLog } from "../../../../src/store/notify-events.ts";
import { openPostgres } from "../../../../src/store/postgres.ts";
import { migratePostgres } from "../../../../src/store/postgres-migrate.ts";
import { SnapshotStore } from "../../../../src/store/snapshots.ts";
import type { SqlDb, SqlExecutor } from "../../../../src/store/sql.ts";
import { ReconcileStaging } from "../../../../src/store/staging.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../../../support/postgres.ts";

/**
 * Issue 37, item 7: the poll's transaction holds one PostgreSQL client, and a second
 * `client.query()` while it still runs the first is deprecated in pg 8 (a warning) and refused by
 * pg 9. Each write the poll makes in that transaction must wait for its statement before the
 * next. Two checks: the transaction's executor counts statements in flight (at most one), and the
 * setup file test/support/pg-deprecation-guard.ts fails a test during which pg warned (pg warns
 * once a process, so that check alone would catch only the first offender of a file).
 */

let db: SqlDb;

beforeAll(async () => {
  db = await openPostgres((await freshDatabase()).url, { max: 3 });
  await migratePostgres(db);
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => {
  await db?.close();
});

/** runs `work` in a transaction whose executor notes the most statements it had in flight */
async function inTransaction(work: (tx: SqlExecutor) => Promise<void>): Promise<number> {
  let inFlight = 0;
  let most = 0;
  const counted =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      try {
        return await call(...args);
      } finally {
        inFlight -= 1;
      }
    };
  await db.transaction((tx) =>
    work({
      all: counted((sql, params) => tx.all(sql, params)),
      get: counted((sql, params) => tx.get(sql, params)),
      run: counted((sql, params) => tx.run(sql, params)),
    }),
  );
  return most;
}

const uids = ["c-1", "c-2", "c-3", "c-4"];

describe("the poll's writes on PostgreSQL run one statement at a time", () => {
  it("saveFlapHistories", async () => {
    const histories = new Map(uids.map((uid, i) => [uid, { transitions: [i], reported: i > 1 }]));
    expect(await inTransaction((tx) => new SnapshotStore(tx).saveFlapHistories(histories))).toBe(1);
    expect((await new SnapshotStore(db).flapHistories()).size).toBe(4);
  });

  it("NotifyEventLog.append", async () => {
    const at = "2026-01-01T00:00:00.000Z";
    const events = uids.map((uid) => ({
      at,
      clusterUid: uid,
      name: uid,
      project: "",
      tags: [],
      kind: "new" as const,
    }));
    expect(await inTransaction((tx) => new NotifyEventLog(tx).append(events))).toBe(1);
    expect(await new NotifyEventLog(db).between("2025-12-31T00:00:00.000Z", at)).toHaveLength(4);
  });

  it("more than one statement's rows (450 events, 450 flap histories): all kept, in order", async () => {
    const at = "2026-02-01T00:00:00.000Z";
    const many = Array.from({ length: 450 }, (_, i) => `m-${String(i).padStart(3, "0")}`);
    const events = many.map((uid) => ({
      at,
      clusterUid: uid,
      name: uid,
      project: "",
      tags: ["t"],
      kind: "new" as const,
    }));
    const histories = new Map(many.map((uid, i) => [uid, { transitions: [i], reported: false }]));
    expect(
      await inTransaction(async (tx) => {
        await new NotifyEventLog(tx).append(events);
        await new SnapshotStore(tx).saveFlapHistories(histories);
      }),
    ).toBe(1);
    const read = await new NotifyEventLog(db).between("2026-01-31T00:00:00.000Z", at);
    expect(read.map((e) => e.clusterUid)).toEqual(many);
    expect(read[449]).toMatchObject({ tags: ["t"], kind: "new" });
    const flaps = await new SnapshotStore(db).flapHistories();
    expect(flaps.size).toBe(450);
    expect(flaps.get("m-449")).toEqual({ transitions: [449], reported: false });
  });

  it("NotifyEventLog.applyUnhealthy", async () => {
    const log = new NotifyEventLog(db);
    const since = "2026-01-01T00:00:00.000Z";
    await log.applyUnhealthy({ start: [{ clusterUid: "c-0", since, exact: true }], end: [] });
    const moves = {
      start: uids.map((clusterUid) => ({ clusterUid, since, exact: false })),
      end: ["c-0"],
    };
    expect(await inTransaction((tx) => new NotifyEventLog(tx).applyUnhealthy(moves))).toBe(1);
    expect([...(await log.unhealthySince()).keys()].sort()).toEqual(uids);
  });

  it("ReconcileStaging.apply with deletions", async () => {
    const at = "2026-01-01T00:00:00.000Z";
    for (const uid of uids) {
      await db.run(
        `INSERT INTO notify_snapshots
           (project, cluster_uid, project_uid, name, state, health, tags, updated_at, seq)
         VALUES ('p', ?, 'p', ?, 'Running', 'Healthy', '[]', ?, ?)`,
        [uid, uid, at, uids.indexOf(uid) + 1],
      );
    }
    expect(await inTransaction((tx) => new ReconcileStaging(tx).apply("p", uids, at))).toBe(1);
    expect(await db.all("SELECT cluster_uid FROM notify_snapshots WHERE project = 'p'")).toEqual(
      [],
    );
  });
});
