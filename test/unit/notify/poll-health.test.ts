import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { createPoller } from "../../../src/notify/poll/poll.ts";
import type { PaletteEvent } from "../../../src/palette/schemas.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { callLog, type PollCluster, pollPalette } from "../../support/fake-palette.ts";
import { openMemoryDb } from "../../support/store.ts";

/**
 * The shared FakePalette over the test's own array (read at each call). A project-scoped search
 * returns that project's clusters; a tenant-scoped one returns all of them, each naming its
 * project, as the real search does.
 */
function fakePalette(clusters: PollCluster[], events: Record<string, PaletteEvent[]> = {}) {
  const api = pollPalette(clusters);
  api.alertComponents = [{ name: "ClusterHealth" }];
  api.events = events;
  return { api, calls: () => callLog(api) };
}

async function setup(
  clusters: PollCluster[],
  projects: string[],
  events?: Record<string, PaletteEvent[]>,
) {
  const db = await openMemoryDb();
  const clock = new ManualClock();
  const palette = fakePalette(clusters, events);
  const poller = createPoller({ palette: palette.api, db, clock, logger: silentLogger, projects });
  await new SubscriptionStore(db, clock).add({ channel: "C1", kind: "all", createdBy: "U" });
  const rows = async () =>
    (await db.all("SELECT kind, payload FROM notify_outbox ORDER BY id")) as Array<{
      kind: string;
      payload: string;
    }>;
  const cards = async () =>
    (await rows())
      .filter((r) => r.kind === "card")
      .map((r) => JSON.parse(r.payload) as CardPayload);
  const raised = async () => [...(await new SnapshotStore(db).raisedAlerts()).values()];
  const poll = async () => {
    clock.advance(30_000);
    const result = await poller.runCycle();
    expect(result.ok).toBe(true);
    return result;
  };
  return { palette, poll, rows, cards, raised };
}

describe("poller: clusters that come up unhealthy", () => {
  it("raises ClusterHealth when a provisioning cluster first reports UnHealthy, resolves on recovery", async () => {
    const clusters: PollCluster[] = [
      { uid: "a", project: "p1", state: "Running", health: "Healthy" },
      { uid: "new", project: "p1", state: "Provisioning", health: "" },
    ];
    const s = await setup(clusters, ["p1"], {
      new: [{ severity: "Warning", reason: "NodeNotReady", message: "worker-1 not ready" }],
    });
    await s.poll(); // baseline
    clusters[1] = {
      ...clusters[1]!,
      state: "Running",
      health: "UnHealthy",
      conditions: [{ type: "ControlPlane", message: "apiserver unreachable" }],
    };
    await s.poll();
    const [lost] = await s.cards();
    expect(lost).toMatchObject({ kinds: ["state", "health-lost"], worse: true });
    expect(lost!.alerts).toEqual([
      expect.objectContaining({
        status: "raised",
        alert: "ClusterHealth",
        reason: "ControlPlane: apiserver unreachable; NodeNotReady: worker-1 not ready",
      }),
    ]);
    expect(s.palette.calls().filter((c) => c.startsWith("events"))).toEqual(["events new p1"]);
    expect((await s.raised()).map((r) => r.clusterUid)).toEqual(["new"]);

    clusters[1] = { ...clusters[1]!, health: "Healthy", conditions: [] };
    await s.poll();
    const back = (await s.cards())[1]!;
    expect(back.kinds).toEqual(["health-recovered"]);
    expect(back.alerts.map((a) => a.status)).toEqual(["resolved"]);
    expect(await s.raised()).toEqual([]);
  });

  it("commits without the event reads still out when their window ends (a reason from conditions)", async () => {
    const clusters: PollCluster[] = [
      { uid: "a", project: "p1", state: "Running", health: "Healthy" },
    ];
    const db = await openMemoryDb();
    const clock = new ManualClock();
    const palette = fakePalette(clusters);
    // Palette never answers the events read: under faults it may take seconds
    palette.api.listClusterEvents = () => new Promise<PaletteEvent[]>(() => {});
    const poller = createPoller({
      palette: palette.api,
      db,
      clock,
      logger: silentLogger,
      projects: ["p1"],
      eventReadsWindowMs: 50,
    });
    await new SubscriptionStore(db, clock).add({ channel: "C1", kind: "all", createdBy: "U" });
    clock.advance(30_000);
    await poller.runCycle(); // baseline
    clusters[0] = {
      ...clusters[0]!,
      health: "UnHealthy",
      conditions: [{ type: "ControlPlane", message: "apiserver unreachable" }],
    };
    clock.advance(30_000);
    const result = await poller.runCycle();
    expect(result.ok).toBe(true);
    expect(result.changes).toBe(1);
    const raised = [...(await new SnapshotStore(db).raisedAlerts()).values()];
    expect(raised.map((r) => [r.clusterUid, r.reason])).toEqual([
      ["a", "ControlPlane: apiserver unreachable"],
    ]);
  });

  it("reads events within the cycle's call allowance, the others' reasons from conditions", async () => {
    // twelve clusters turn UnHealthy at once in one project: the reads cost two searches of one
    // page each, the allowance is 3 + 1 page + 0 left = 4, so two event reads are left
    const clusters: PollCluster[] = Array.from({ length: 12 }, (_, i) => ({
      uid: `c${i}`,
      project: "p1",
      state: "Running",
      health: "Healthy",
    }));
    const events = Object.fromEntries(
      clusters.map((c) => [
        c.uid,
        [{ severity: "Warning", reason: "Evicted", message: `${c.uid} evicted` }],
      ]),
    ) as Record<string, PaletteEvent[]>;
    const s = await setup(clusters, ["p1"], events);
    await s.poll(); // baseline (a reconciliation)
    await s.poll(); // an incremental cycle: kinds known, nothing unsteady
    for (const [i, c] of clusters.entries()) {
      clusters[i] = {
        ...c,
        health: "UnHealthy",
        conditions: [{ type: "Disk", message: `${c.uid} full` }],
      };
    }
    const before = s.palette.calls().length;
    await s.poll();
    const cycle = s.palette.calls().slice(before);
    const eventReads = cycle.filter((call) => call.startsWith("events"));
    expect(eventReads).toHaveLength(2);
    expect(cycle.length).toBeLessThanOrEqual(4);
    const reasons = (await s.raised()).map((r) => r.reason).sort();
    expect(reasons).toHaveLength(12);
    // every alert has its reason, from the health conditions where no event was read
    expect(reasons.every((r) => r.startsWith("Disk:"))).toBe(true);
  });

  it("announces a fresh cluster coming up Healthy by its state alone", async () => {
    const clusters: PollCluster[] = [
      { uid: "new", project: "p1", state: "Provisioning", health: "" },
    ];
    const s = await setup(clusters, ["p1"]);
    await s.poll();
    clusters[0] = { ...clusters[0]!, state: "Running", health: "Healthy" };
    await s.poll();
    const [card] = await s.cards();
    expect(card).toMatchObject({ kinds: ["state"], worse: false, alerts: [] });
    expect(card!.lines).toEqual(["State Provisioning → Running"]);
  });

  it("raises ClusterHealth for a cluster first seen (after the baseline) already unhealthy", async () => {
    const clusters: PollCluster[] = [
      { uid: "a", project: "p1", state: "Running", health: "Healthy" },
    ];
    const s = await setup(clusters, ["p1"]);
    await s.poll();
    clusters.push({
      uid: "bad",
      project: "p1",
      state: "Running",
      health: "UnHealthy",
      conditions: [{ type: "NodeNotReady", message: "worker-2" }],
    });
    await s.poll();
    const [card] = await s.cards();
    expect(card).toMatchObject({ kinds: ["new"], worse: true });
    expect(card!.alerts).toEqual([
      expect.objectContaining({ status: "raised", reason: "NodeNotReady: worker-2" }),
    ]);
    expect(s.palette.calls().filter((c) => c.startsWith("events"))).toEqual(["events bad p1"]);
    expect((await s.raised()).map((r) => r.clusterUid)).toEqual(["bad"]);
  });

  it("records clusters already unhealthy at the baseline, so their recovery is reported once", async () => {
    const clusters: PollCluster[] = [
      { uid: "sick", project: "p1", state: "Running", health: "UnHealthy" },
      { uid: "coming", project: "p1", state: "Provisioning", health: "Unknown" },
    ];
    const s = await setup(clusters, ["p1"]);
    await s.poll();
    expect((await s.rows()).map((r) => r.kind)).toEqual(["summary"]);
    // only a known bad health counts: a provisioning cluster's Unknown is not an alert
    expect((await s.raised()).map((r) => r.clusterUid)).toEqual(["sick"]);
    expect(s.palette.calls().filter((c) => c.startsWith("events"))).toEqual([]);
    clusters[0] = { ...clusters[0]!, health: "Healthy" };
    await s.poll();
    const [card] = await s.cards();
    expect(card!.alerts).toEqual([
      expect.objectContaining({ status: "resolved", alert: "ClusterHealth" }),
    ]);
    await s.poll();
    expect(await s.cards()).toHaveLength(1);
  });
});

describe("poller: tenant scope", () => {
  it("keeps health conditions in the alert reason when PALETTE_PROJECTS is empty", async () => {
    const clusters: PollCluster[] = [
      { uid: "a", project: "p1", state: "Running", health: "Healthy" },
      { uid: "b", project: "p2", state: "Provisioning", health: "" },
    ];
    const s = await setup(clusters, []);
    await s.poll();
    clusters[0] = {
      ...clusters[0]!,
      health: "UnHealthy",
      conditions: [{ type: "NodeNotReady", message: "worker-3 NotReady" }],
    };
    clusters[1] = {
      ...clusters[1]!,
      health: "UnHealthy",
      conditions: [{ type: "EtcdDegraded", message: "etcd member down" }],
    };
    await s.poll();
    const reasons = new Map(
      (await s.cards()).flatMap((card) =>
        card.alerts.map((a) => [a.cluster.uid, a.reason] as const),
      ),
    );
    expect(reasons).toEqual(
      new Map([
        ["a", "NodeNotReady: worker-3 NotReady"],
        ["b", "EtcdDegraded: etcd member down"],
      ]),
    );
    // events are read in each cluster's own project
    expect(
      s.palette
        .calls()
        .filter((c) => c.startsWith("events"))
        .sort(),
    ).toEqual(["events a p1", "events b p2"]);
  });
});
