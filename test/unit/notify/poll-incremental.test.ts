import { describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { createPoller } from "../../../src/notify/poll/poll.ts";
import type { ClusterSearch } from "../../../src/palette/api.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { callLog, type PollCluster, pollPalette } from "../../support/fake-palette.ts";
import { openMemoryDb } from "../../support/store.ts";

/**
 * The incremental cycle and the reconciliation, over the shared FakePalette (the test's own
 * array, read at each call). The first cycle reconciles; later ones are incremental unless
 * `requestReconcile()` asks for a reconciliation.
 */
async function setup(clusters: PollCluster[], projects = ["p1", "p2"], reconcileBatch?: number) {
  const db = await openMemoryDb();
  const clock = new ManualClock();
  const palette = pollPalette(clusters);
  palette.alertComponents = [{ name: "ClusterHealth" }];
  const poller = createPoller({
    palette,
    db,
    clock,
    logger: silentLogger,
    projects,
    reconcileBatch,
  });
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
  const staged = async () =>
    ((await db.get("SELECT COUNT(*) AS n FROM notify_reconcile_staging")) as { n: number }).n;
  const snapshot = async () => new Map((await new SnapshotStore(db).all()).map((c) => [c.uid, c]));
  const poll = async () => {
    clock.advance(30_000);
    return poller.runCycle();
  };
  const since = (from: number) => callLog(palette).slice(from);
  return { db, palette, poller, rows, cards, staged, snapshot, poll, since };
}

const fleet = (): PollCluster[] => [
  { uid: "a", project: "p1", state: "Running", health: "Healthy" },
  { uid: "b", project: "p1", state: "Running", health: "UnHealthy" },
  { uid: "c", project: "p2", state: "Provisioning", health: "" },
  { uid: "d", project: "p2", state: "Running", health: "Healthy" },
];

const searches = (s: Awaited<ReturnType<typeof setup>>) =>
  s.palette.callsTo("searchClusters").map((call) => call.args[0] as ClusterSearch);

describe("poller: incremental cycles", () => {
  it("asks only for clusters not Running and not Healthy: two searches a project, no alert kinds", async () => {
    const s = await setup(fleet());
    expect((await s.poll()).kind).toBe("reconcile");
    const before = s.palette.calls.length;
    const result = await s.poll();
    expect(result).toMatchObject({ kind: "incremental", ok: true, paletteCalls: 4, changes: 0 });
    expect(s.since(before)).toEqual(["search p1", "search p1", "search p2", "search p2"]);
    expect(searches(s).slice(-2)).toEqual([
      expect.objectContaining({ projectUid: "p2", state: { values: ["Running"], negate: true } }),
      expect.objectContaining({ projectUid: "p2", health: { values: ["Healthy"], negate: true } }),
    ]);
    expect(result.clusters).toBe(4);
  });

  it("confirms clusters that left the set with one name search, and reports what they became", async () => {
    const clusters = fleet();
    const s = await setup(clusters);
    await s.poll();
    clusters[1] = { ...clusters[1]!, health: "Healthy" }; // b recovers
    clusters[2] = { ...clusters[2]!, state: "Running", health: "Healthy" }; // c comes up
    const before = s.palette.calls.length;
    const result = await s.poll();
    expect(result.kind).toBe("incremental");
    const names = searches(s)
      .filter((q) => q.names)
      .map((q) => [q.projectUid, q.names]);
    expect(names).toEqual([
      ["p1", ["n-b"]],
      ["p2", ["n-c"]],
    ]);
    expect((await s.cards()).map((c) => [c.cluster.uid, c.kinds])).toEqual([
      ["b", ["health-recovered"]],
      ["c", ["state"]],
    ]);
    expect((await s.cards())[0]!.alerts.map((a) => a.status)).toEqual(["resolved"]);
    // the alert kinds read at the reconciliation serve the news: nothing besides the searches
    expect(s.since(before).filter((c) => !c.startsWith("search"))).toEqual([]);
    await s.poll();
    expect(await s.cards()).toHaveLength(2);
  });

  it("keeps a not-steady cluster the searches skip while GET finds it; announces it deleted on 404", async () => {
    const clusters = fleet();
    const s = await setup(clusters);
    await s.poll();
    s.palette.hiddenFromSearch.add("b");
    await s.poll();
    expect(await s.cards()).toEqual([]);
    expect((await s.snapshot()).get("b")).toMatchObject({ health: "UnHealthy" });
    expect(s.palette.callsTo("getCluster").map((c) => c.args[0])).toEqual(["b"]);
    clusters.splice(1, 1); // now GET answers 404
    await s.poll();
    expect((await s.cards()).map((c) => [c.cluster.uid, c.kinds])).toEqual([["b", ["deleted"]]]);
    expect((await s.cards())[0]!.alerts.map((a) => a.status)).toEqual(["resolved"]);
    expect((await s.snapshot()).has("b")).toBe(false);
  });

  it("announces changes found by different searches in the order Palette lists the clusters", async () => {
    const clusters: PollCluster[] = ["a", "b", "c", "d"].map((uid) => ({
      uid,
      project: "p1",
      state: "Upgrading",
      health: uid === "c" ? "UnHealthy" : "Healthy",
    }));
    const s = await setup(clusters, ["p1"]);
    await s.poll();
    // a, b and d leave the set (found by name); c stays in it (still unhealthy)
    for (const c of clusters) c.state = "Running";
    await s.poll();
    expect((await s.cards()).map((c) => c.cluster.uid)).toEqual(["a", "b", "c", "d"]);
  });

  it("reads a scope without its baseline in full, even in an incremental cycle", async () => {
    const s = await setup(fleet());
    s.palette.failOn("searchClusters", (args: unknown[]) =>
      (args[0] as ClusterSearch).projectUid === "p2"
        ? new PaletteError("forbidden", 403, undefined, "no", undefined, "POST /v1/dashboard")
        : undefined,
    );
    await s.poll(); // p2 refused: no baseline for it
    s.palette.failOn("searchClusters", undefined);
    const before = s.palette.calls.length;
    expect((await s.poll()).kind).toBe("incremental");
    expect(s.since(before)).toEqual(["search p1", "search p1", "search p2", "alerts p2"]);
    expect((await s.rows()).map((r) => r.kind)).toEqual(["summary", "summary"]);
  });
});

describe("poller: reconciliation", () => {
  it("streams the listing into the staging table batch by batch while it reads", async () => {
    const clusters: PollCluster[] = Array.from({ length: 180 }, (_, i) => ({
      uid: `u${i}`,
      project: "p1",
      state: "Running",
      health: "Healthy",
    }));
    const s = await setup(clusters, ["p1"], 50);
    await s.poll();
    clusters[170]!.state = "Upgrading";
    // hold the third page: the first two pages must already be staged, nothing else written
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let pages = 0;
    const search = s.palette.searchClusters.bind(s.palette);
    s.palette.searchClusters = async (query) => {
      if (++pages === 3) await held;
      return search(query);
    };
    s.poller.requestReconcile();
    const cycle = s.poll();
    while (pages < 3) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(await s.staged()).toBe(100);
    expect((await s.rows()).map((r) => r.kind)).toEqual(["summary"]);
    expect((await s.snapshot()).get("u170")?.state).toBe("Running");
    release();
    const result = await cycle;
    expect(result).toMatchObject({ kind: "reconcile", ok: true, changes: 1, paletteCalls: 5 });
    expect((await s.cards()).map((c) => [c.cluster.uid, c.kinds])).toEqual([["u170", ["state"]]]);
    expect((await s.snapshot()).get("u170")?.state).toBe("Upgrading");
    expect(await s.staged()).toBe(0);
  });

  it("commits nothing when it fails after staging, stays due, and the next one starts clean", async () => {
    const clusters = fleet();
    const s = await setup(clusters, ["p1", "p2"], 2);
    await s.poll();
    clusters[0]!.state = "Upgrading";
    clusters[3]!.health = "UnHealthy";
    s.palette.failOn(
      "listAlertComponents",
      new PaletteError("server", 503, undefined, "down", undefined, "GET /v1/projects/alerts"),
    );
    s.poller.requestReconcile();
    const failed = await s.poll();
    expect(failed).toMatchObject({ kind: "reconcile", ok: false });
    expect(await s.staged()).toBeGreaterThan(0);
    expect((await s.rows()).map((r) => r.kind)).toEqual(["summary"]);
    expect((await s.snapshot()).get("a")?.state).toBe("Running");

    s.palette.failOn("listAlertComponents", undefined);
    const next = await s.poll();
    expect(next).toMatchObject({ kind: "reconcile", ok: true, changes: 2 });
    expect((await s.cards()).map((c) => [c.cluster.uid, c.kinds])).toEqual([
      ["a", ["state"]],
      ["d", ["health-lost"]],
    ]);
    expect(await s.staged()).toBe(0);
    expect((await s.poll()).kind).toBe("incremental");
    expect(await s.cards()).toHaveLength(2);
  });

  it("keeps no copy of the fleet: the App Home's snapshot is read from the store when asked", async () => {
    const s = await setup(fleet());
    expect(await s.poller.lastSnapshot()).toEqual({ clusters: [] });
    await s.poll();
    expect((await s.poller.lastSnapshot()).clusters.map((c) => c.uid)).toEqual([
      "a",
      "b",
      "c",
      "d",
    ]);
    await s.db.run("DELETE FROM notify_snapshots WHERE cluster_uid IN ('a', 'b')");
    expect((await s.poller.lastSnapshot()).clusters.map((c) => c.uid)).toEqual(["c", "d"]);
    expect((await s.poller.lastSnapshot()).at).toBeDefined();
  });

  it("learns tag changes of steady clusters, which no incremental search can see", async () => {
    const s = await setup(fleet());
    await s.poll();
    await s.db.run("UPDATE notify_snapshots SET tags = '[\"old\"]' WHERE cluster_uid = 'a'");
    await s.poll();
    expect((await s.snapshot()).get("a")?.tags).toEqual(["old"]);
    s.poller.requestReconcile();
    await s.poll();
    expect((await s.snapshot()).get("a")?.tags).toEqual([]);
    expect(await s.cards()).toEqual([]);
  });
});

describe("poller: incremental cycles while a reconciliation reads", () => {
  it("go on announcing, and the reconciliation's older reading neither repeats their news nor overwrites it", async () => {
    const clusters = fleet();
    const s = await setup(clusters);
    await s.poll();
    // the reconciliation's full listing of p2 waits until released; p1's goes through
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const search = s.palette.searchClusters.bind(s.palette);
    s.palette.searchClusters = async (query) => {
      const fullListing = !query.state && !query.health && !query.names && !query.name;
      if (fullListing && query.projectUid === "p2") await held;
      return search(query);
    };

    clusters[0]!.state = "Upgrading";
    s.poller.requestReconcile();
    const reconciliation = s.poll();
    // it has read p1 (a: Upgrading) and waits on p2
    await vi.waitFor(() =>
      expect(searches(s).some((q) => q.projectUid === "p2" && !q.state && !q.health)).toBe(true),
    );
    const first = await s.poll();
    expect(first).toMatchObject({ kind: "incremental", ok: true, changes: 1 });
    clusters[0]!.state = "Running";
    const second = await s.poll();
    expect(second).toMatchObject({ kind: "incremental", ok: true, changes: 1 });

    release();
    expect(await reconciliation).toMatchObject({ kind: "reconcile", ok: true, changes: 0 });
    expect(
      (await s.cards()).map((c) => [c.cluster.uid, c.previous?.state, c.cluster.state]),
    ).toEqual([
      ["a", "Running", "Upgrading"],
      ["a", "Upgrading", "Running"],
    ]);
    // the snapshot keeps what the later incremental cycle saw, not the reconciliation's Upgrading
    expect((await s.snapshot()).get("a")?.state).toBe("Running");
    expect(await s.poll()).toMatchObject({ kind: "incremental", changes: 0 });
    expect(await s.staged()).toBe(0);
  });

  it("wait for the first reconciliation of a scope: its baseline is the reconciliation's to give", async () => {
    const s = await setup(fleet());
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const search = s.palette.searchClusters.bind(s.palette);
    s.palette.searchClusters = async (query) => {
      await held;
      return search(query);
    };
    const first = s.poll();
    expect(await s.poll()).toMatchObject({ kind: "incremental", skipped: true });
    release();
    expect(await first).toMatchObject({ kind: "reconcile", ok: true });
    expect((await s.rows()).filter((r) => r.kind === "summary")).toHaveLength(1);
  });
});
