import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import { createPoller } from "../../../src/notify/poll/poll.ts";
import { FencedOut } from "../../../src/store/lease.ts";
import type { SqlExecutor } from "../../../src/store/sql.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { type PollCluster, pollPalette } from "../../support/fake-palette.ts";

/**
 * Issue 12: the poll's commit carries the leader's fencing token. A fence that refuses (the
 * lease moved on while the cycle read Palette) rolls the whole commit back: no snapshot, no
 * outbox row, and the failure says why.
 */
describe("the poll's fence", () => {
  it("runs inside the commit; a refusal leaves the store as it was", async () => {
    const db = await openSqlite(":memory:");
    const clock = new ManualClock();
    await new SubscriptionStore(db, clock).add({ channel: "C1", kind: "all", createdBy: "U" });
    const clusters: PollCluster[] = [
      { uid: "a", project: "", state: "Running", health: "Healthy" },
    ];
    let deposed = false;
    const fenced: string[] = [];
    const poller = createPoller({
      palette: pollPalette(clusters),
      db,
      clock,
      logger: silentLogger,
      projects: [],
      fence: async (tx: SqlExecutor) => {
        // inside the commit's transaction, first: a refusal rolls back everything after it
        const rows = await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM notify_outbox");
        fenced.push(`outbox ${rows?.n}`);
        if (deposed) throw new FencedOut("singletons", 1, 2);
      },
    });
    expect((await poller.runCycle()).ok).toBe(true);
    expect(fenced).toHaveLength(1);
    const outboxBefore = await db.all("SELECT * FROM notify_outbox");
    const snapshotsBefore = await db.all("SELECT * FROM notify_snapshots");
    expect(outboxBefore).toHaveLength(1);

    deposed = true;
    clusters[0]!.health = "UnHealthy";
    clusters.push({ uid: "b", project: "", state: "Provisioning", health: "Healthy" });
    const late = await poller.runCycle();
    expect(late.ok).toBe(false);
    expect(late.error).toBe("this replica no longer leads: the commit was refused");
    expect(fenced).toHaveLength(2);
    expect(await db.all("SELECT * FROM notify_outbox")).toEqual(outboxBefore);
    expect(await db.all("SELECT * FROM notify_snapshots")).toEqual(snapshotsBefore);
  });
});
