import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { createPoller } from "../../../src/notify/poll/poll.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { type PollCluster, pollPalette } from "../../support/fake-palette.ts";
import { openMemoryDb } from "../../support/store.ts";

/**
 * Absence is not deletion: a cluster the listing leaves out is announced as deleted only when a
 * GET by UID says so. The FakePalette's `hiddenFromSearch` leaves a cluster out of the listing
 * while GET by UID still finds it; removing it from the array makes the GET answer 404.
 */
async function setup(clusters: PollCluster[], projects: string[]) {
  const db = await openMemoryDb();
  const clock = new ManualClock();
  const palette = pollPalette(clusters);
  palette.alertComponents = [{ name: "ClusterHealth" }];
  const poller = createPoller({ palette, db, clock, logger: silentLogger, projects });
  const subs = new SubscriptionStore(db, clock);
  const rows = async () =>
    (await db.all("SELECT channel, kind, payload FROM notify_outbox ORDER BY id")) as Array<{
      channel: string;
      kind: string;
      payload: string;
    }>;
  const cards = async (channel: string) =>
    (await rows())
      .filter((r) => r.kind === "card" && r.channel === channel)
      .map((r) => JSON.parse(r.payload) as CardPayload);
  const snapshot = async () => new Map((await new SnapshotStore(db).all()).map((c) => [c.uid, c]));
  const gets = () => palette.callsTo("getCluster").map((call) => call.args);
  // Steady clusters drop out of the listing here, which only a reconciliation lists: each poll
  // of these tests is one (the incremental cycle's own absences are tested below).
  const poll = async () => {
    clock.advance(30_000);
    poller.requestReconcile();
    const result = await poller.runCycle();
    expect(result.ok).toBe(true);
    return result;
  };
  return { db, palette, poller, subs, rows, cards, snapshot, gets, poll };
}

const fleet = (): PollCluster[] => [
  { uid: "a", project: "p1", state: "Running", health: "Healthy" },
  { uid: "b", project: "p1", state: "Running", health: "Healthy" },
  { uid: "c", project: "p2", state: "Running", health: "Healthy" },
];

const serverError = () =>
  new PaletteError("server", 503, undefined, "down", undefined, "GET /v1/spectroclusters/{uid}");

describe("poller: a cluster missing from a listing", () => {
  it("is announced neither as deleted nor as new when one listing leaves it out", async () => {
    const s = await setup(fleet(), ["p1", "p2"]);
    await s.subs.add({ channel: "C1", kind: "all", createdBy: "U" });
    await s.poll(); // baseline
    s.palette.hiddenFromSearch.add("a");
    await s.poll();
    s.palette.hiddenFromSearch.clear();
    await s.poll();
    await s.poll();
    expect((await s.rows()).map((r) => r.kind)).toEqual(["summary"]);
    expect((await s.snapshot()).get("a")).toMatchObject({ project: "p1", state: "Running" });
    // only the absent cluster was looked up, in its own project, once
    expect(s.gets()).toEqual([["a", { projectUid: "p1" }]]);
  });

  it("is read by UID when a listing leaves it out: a change it hid is announced in that cycle, once", async () => {
    const clusters = fleet();
    const s = await setup(clusters, ["p1", "p2"]);
    await s.subs.add({ channel: "C1", kind: "clusters", createdBy: "U" });
    await s.poll();
    s.palette.hiddenFromSearch.add("a");
    clusters[0]!.state = "Upgrading";
    clusters[0]!.health = "UnHealthy";
    await s.poll();
    expect((await s.cards("C1")).map((c) => c.lines)).toEqual([
      ["State Running → Upgrading", "Health lost: Healthy → UnHealthy"],
    ]);
    expect((await s.snapshot()).get("a")).toMatchObject({
      state: "Upgrading",
      health: "UnHealthy",
    });
    s.palette.hiddenFromSearch.clear();
    await s.poll();
    await s.poll();
    expect(await s.cards("C1")).toHaveLength(1);
  });

  it("keeps what the overview could not say when only the GET answers", async () => {
    const clusters = fleet();
    const s = await setup(clusters, ["p1", "p2"]);
    await s.subs.add({ channel: "C1", kind: "clusters", createdBy: "U" });
    await s.poll();
    s.palette.hiddenFromSearch.add("a");
    let overviews = 0;
    // the first overview fails, later ones answer
    s.palette.failOn("getClusterOverview", () => (++overviews === 1 ? serverError() : undefined));
    clusters[0]!.state = "Upgrading";
    clusters[0]!.health = "UnHealthy";
    await s.poll();
    // the GET's state now; health as last seen until a listing or an overview shows it
    expect((await s.cards("C1")).map((c) => c.lines)).toEqual([["State Running → Upgrading"]]);
    s.palette.hiddenFromSearch.clear();
    await s.poll();
    expect((await s.cards("C1")).map((c) => c.lines)).toEqual([
      ["State Running → Upgrading"],
      ["Health lost: Healthy → UnHealthy"],
    ]);
  });

  it("stays, unannounced, while GET by UID fails, and is asked about again next cycle", async () => {
    const clusters = fleet();
    const s = await setup(clusters, ["p1", "p2"]);
    await s.subs.add({ channel: "C1", kind: "clusters", createdBy: "U" });
    await s.poll();
    s.palette.hiddenFromSearch.add("a");
    s.palette.failOn("getCluster", serverError());
    await s.poll();
    await s.poll();
    expect(await s.cards("C1")).toEqual([]);
    expect((await s.snapshot()).has("a")).toBe(true);
    // now it really is gone: the GET answers 404
    s.palette.failOn("getCluster", undefined);
    clusters.splice(0, 1);
    await s.poll();
    await s.poll();
    expect((await s.cards("C1")).map((c) => c.kinds)).toEqual([["deleted"]]);
    expect((await s.cards("C1"))[0]!.cluster).toMatchObject({ uid: "a", state: "Deleted" });
    expect((await s.snapshot()).has("a")).toBe(false);
    expect(s.gets().map(([uid]) => uid)).toEqual(["a", "a", "a"]);
  });

  it("is announced deleted once when GET answers 404, state Deleted or a deletion timestamp", async () => {
    const clusters: PollCluster[] = [
      { uid: "gone", project: "p1", state: "Running", health: "Healthy" },
      { uid: "soft", project: "p1", state: "Running", health: "Healthy" },
      { uid: "marked", project: "p1", state: "Running", health: "Healthy" },
      { uid: "stays", project: "p1", state: "Running", health: "Healthy" },
    ];
    const s = await setup(clusters, ["p1"]);
    await s.subs.add({ channel: "C1", kind: "clusters", createdBy: "U" });
    await s.poll();
    clusters.splice(0, 1); // 404
    clusters[0]!.state = "Deleted";
    clusters[1]!.state = "Deleting";
    clusters[1]!.deletionTimestamp = "2026-01-01T00:00:00Z";
    s.palette.hiddenFromSearch.add("soft").add("marked");
    await s.poll();
    await s.poll();
    const cards = await s.cards("C1");
    expect(cards.map((c) => [c.cluster.uid, c.kinds])).toEqual([
      ["gone", ["deleted"]],
      ["soft", ["deleted"]],
      ["marked", ["deleted"]],
    ]);
    expect([...(await s.snapshot()).keys()]).toEqual(["stays"]);
    expect(s.gets().map(([uid]) => uid)).toEqual(["gone", "soft", "marked"]);
  });
});

describe("poller: project channels in tenant scope", () => {
  it("reach the channels subscribed to the deleted cluster's project", async () => {
    const clusters = fleet();
    const s = await setup(clusters, []);
    await s.subs.add({ channel: "C1", kind: "clusters", project: "p1", createdBy: "U" });
    await s.subs.add({ channel: "C2", kind: "clusters", project: "p2", createdBy: "U" });
    await s.poll();
    expect((await s.snapshot()).get("a")?.project).toBe("p1");
    clusters.splice(0, 1);
    await s.poll();
    expect((await s.cards("C1")).map((c) => [c.cluster.uid, c.cluster.project, c.kinds])).toEqual([
      ["a", "p1", ["deleted"]],
    ]);
    expect(await s.cards("C2")).toEqual([]);
    // the GET that confirmed it was made in the cluster's own project
    expect(s.gets()).toEqual([["a", { projectUid: "p1" }]]);
  });

  it("gives a channel subscribed to project X the first poll's summary of X's clusters", async () => {
    const s = await setup(fleet(), []);
    await s.subs.add({ channel: "C1", kind: "clusters", project: "p1", createdBy: "U" });
    await s.poll();
    const summaries = (await s.rows()).filter((r) => r.kind === "summary");
    expect(summaries.map((r) => r.channel)).toEqual(["C1"]);
    expect(JSON.parse(summaries[0]!.payload)).toMatchObject({ projects: [""], total: 2 });
  });

  it("learns the project of clusters remembered before it was stored", async () => {
    const clusters = fleet();
    const s = await setup(clusters, []);
    await s.subs.add({ channel: "C1", kind: "clusters", project: "p1", createdBy: "U" });
    await s.poll();
    // rows as an older build wrote them: no project of their own
    await s.db.run("UPDATE notify_snapshots SET project_uid = ''");
    expect((await s.snapshot()).get("a")?.project).toBe("");
    await s.poll(); // nothing changed, but the listing names each cluster's project
    expect((await s.snapshot()).get("a")?.project).toBe("p1");
    clusters.splice(0, 1);
    await s.poll();
    expect((await s.cards("C1")).map((c) => [c.cluster.uid, c.kinds])).toEqual([
      ["a", ["deleted"]],
    ]);
  });
});
