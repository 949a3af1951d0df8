import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import type { CardPayload, Hold, HoldChange } from "../../../src/model/notification.ts";
import { createPoller } from "../../../src/notify/poll/poll.ts";
import { HoldStore } from "../../../src/store/holds.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { type PollCluster, pollPalette } from "../../support/fake-palette.ts";
import { openMemoryDb } from "../../support/store.ts";

/** The poller with snoozes and mutes: what it keeps back, and the one line when a hold ends. */
async function setup() {
  const clusters: PollCluster[] = [
    { uid: "a", project: "p1", state: "Running", health: "Healthy" },
    { uid: "b", project: "p1", state: "Running", health: "Healthy" },
  ];
  const db = await openMemoryDb();
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 12));
  const palette = pollPalette(clusters);
  palette.alertComponents = [{ name: "ClusterHealth" }];
  const ended: HoldChange[] = [];
  const poller = createPoller({
    palette,
    db,
    clock,
    logger: silentLogger,
    projects: ["p1"],
    onHoldsEnded: (changes) => ended.push(...changes),
  });
  await new SubscriptionStore(db, clock).add({ channel: "C1", kind: "all", createdBy: "U" });
  await new SubscriptionStore(db, clock).add({ channel: "C2", kind: "all", createdBy: "U" });
  const holds = new HoldStore(db);
  const hold = (kind: Hold["kind"], channel: string, uid: string, forMs: number) =>
    holds.put({
      channel,
      clusterUid: uid,
      kind,
      clusterName: `n-${uid}`,
      projectUid: "p1",
      userId: "U7",
      reason: kind === "mute" ? "maintenance" : undefined,
      startedAt: clock.now(),
      untilMs: clock.now() + forMs,
    });
  const rows = async () =>
    (
      (await db.all("SELECT channel, kind, payload FROM notify_outbox ORDER BY id")) as Array<{
        channel: string;
        kind: string;
        payload: string;
      }>
    )
      .filter((row) => row.kind !== "summary")
      .map((row) => ({ ...row, payload: JSON.parse(row.payload) as CardPayload }));
  const step = async (ms = 30_000) => {
    clock.advance(ms);
    return poller.runCycle();
  };
  return { clusters, db, clock, poller, holds, hold, rows, step, ended };
}

const HOUR = 3_600_000;

describe("poll cycles with snoozes and mutes", () => {
  it("keeps a snoozed cluster's changes and alerts, then says them in ONE card row when it ends", async () => {
    const s = await setup();
    await s.poller.runCycle();
    await s.hold("snooze", "C1", "a", HOUR);

    s.clusters[0]!.state = "Upgrading";
    await s.step();
    s.clusters[0]!.health = "UnHealthy";
    await s.step();
    s.clusters[0]!.state = "Running";
    s.clusters[0]!.health = "Healthy";
    await s.step();
    // C2 is not snoozed: it heard all three; C1 nothing
    expect((await s.rows()).map((r) => r.channel)).toEqual(["C2", "C2", "C2"]);
    expect(await s.holds.kept("C1", "a")).toHaveLength(3);

    await s.step(HOUR);
    const c1 = (await s.rows()).filter((r) => r.channel === "C1");
    expect(c1).toHaveLength(1);
    expect(c1[0]!.kind).toBe("card");
    expect(c1[0]!.payload.lines[0]).toBe(
      "Snooze ended: 4 changes while snoozed (Running → Upgrading, health lost, Upgrading → Running, health recovered); now Running, Healthy",
    );
    expect(c1[0]!.payload.held?.ended).toEqual([{ kind: "snooze", userId: "U7" }]);
    expect(await s.holds.list()).toEqual([]);
    expect(await s.holds.kept("C1", "a")).toEqual([]);
    expect(s.ended).toEqual([{ channel: "C1", clusterUid: "a", queued: true }]);

    // after the end, changes are posted again as usual
    s.clusters[0]!.state = "Deleting";
    await s.step();
    expect((await s.rows()).filter((r) => r.channel === "C1")).toHaveLength(2);
  });

  it("ends a snooze with nothing kept silently, and tells the edge to redraw the card", async () => {
    const s = await setup();
    await s.poller.runCycle();
    await s.hold("snooze", "C1", "a", HOUR);
    await s.step();
    await s.step(HOUR);
    expect(await s.rows()).toEqual([]);
    expect(await s.holds.list()).toEqual([]);
    expect(s.ended).toEqual([{ channel: "C1", clusterUid: "a", queued: false }]);
  });

  it("keeps news while a snooze and a mute both run, until both have ended", async () => {
    const s = await setup();
    await s.poller.runCycle();
    await s.hold("snooze", "C1", "b", HOUR);
    await s.hold("mute", "C1", "b", 3 * HOUR);
    s.clusters[1]!.state = "Upgrading";
    await s.step();
    await s.step(HOUR); // the snooze ends; the mute still holds
    s.clusters[1]!.state = "Running";
    await s.step();
    expect((await s.rows()).filter((r) => r.channel === "C1")).toEqual([]);
    expect((await s.holds.list()).map((h) => h.kind)).toEqual(["mute"]);
    expect(s.ended).toEqual([]);

    await s.step(2 * HOUR);
    const c1 = (await s.rows()).filter((r) => r.channel === "C1");
    expect(c1).toHaveLength(1);
    expect(c1[0]!.payload.lines[0]).toBe(
      "Mute ended: 2 changes while muted (Running → Upgrading, Upgrading → Running); now Running, Healthy",
    );
    expect(c1[0]!.payload.held?.ended).toEqual([
      { kind: "mute", userId: "U7", reason: "maintenance" },
    ]);
  });

  it("leaves the fold into a digest to the news that is not held", async () => {
    const s = await setup();
    await s.poller.runCycle();
    await s.hold("mute", "C1", "a", HOUR);
    s.clusters[0]!.state = "Upgrading";
    s.clusters[1]!.state = "Upgrading";
    const result = await s.step();
    expect(result.outboxRows).toBe(3);
    expect((await s.rows()).map((r) => `${r.channel}:${r.payload.cluster.uid}`)).toEqual([
      "C1:b",
      "C2:a",
      "C2:b",
    ]);
  });
});
