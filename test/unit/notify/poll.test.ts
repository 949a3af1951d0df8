import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import { createPoller } from "../../../src/notify/poll/poll.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { callLog, type PollCluster, pollPalette } from "../../support/fake-palette.ts";
import { openMemoryDb } from "../../support/store.ts";

/**
 * The shared FakePalette over the test's own array, read at each call so a test changes clusters
 * between cycles; `control` makes projects refuse or hold searches open, set at any time.
 */
function fakePalette(clusters: PollCluster[], alertKinds = ["ClusterHealth"]) {
  const control = {
    failProject: undefined as string | undefined,
    /** every project refuses */
    failAll: false,
    failKind: "server" as "server" | "forbidden",
  };
  const api = pollPalette(clusters);
  api.alertComponents = alertKinds.map((name) => ({ name }));
  api.failOn("searchClusters", (args: unknown[]) => {
    const { projectUid } = args[0] as { projectUid?: string };
    if (!control.failAll && projectUid !== control.failProject) return undefined;
    const status = control.failKind === "server" ? 503 : 403;
    const message = control.failKind === "server" ? "down" : "no";
    return new PaletteError(
      control.failKind,
      status,
      undefined,
      message,
      undefined,
      "POST /v1/dashboard",
    );
  });
  return { api, control, calls: () => callLog(api) };
}

async function setup(clusters: PollCluster[], alertKinds?: string[]) {
  const db = await openMemoryDb();
  const clock = new ManualClock();
  const palette = fakePalette(clusters, alertKinds);
  const poller = createPoller({
    palette: palette.api,
    db,
    clock,
    logger: silentLogger,
    projects: ["p1", "p2"],
  });
  const subs = new SubscriptionStore(db, clock);
  const outbox = async () =>
    (await db.all("SELECT channel, kind, payload FROM notify_outbox ORDER BY id")) as Array<{
      channel: string;
      kind: string;
      payload: string;
    }>;
  return { db, clock, palette, poller, subs, outbox };
}

const fleet = (): PollCluster[] => [
  { uid: "a", project: "p1", state: "Running", health: "Healthy" },
  { uid: "b", project: "p1", state: "Running", health: "Healthy" },
  { uid: "c", project: "p2", state: "Running", health: "UnHealthy" },
];

describe("poller", () => {
  it("announces the first poll as ONE summary per subscribed channel", async () => {
    const s = await setup(fleet());
    await s.subs.add({ channel: "C1", kind: "all", createdBy: "U" });
    await s.subs.add({ channel: "C1", kind: "alerts", project: "p2", createdBy: "U" });
    await s.subs.add({ channel: "C2", kind: "clusters", project: "p2", createdBy: "U" });
    await s.poller.runCycle();
    const rows = await s.outbox();
    expect(rows.map((r) => `${r.channel}:${r.kind}`)).toEqual(["C1:summary", "C2:summary"]);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({ total: 3, projects: ["p1", "p2"] });
    expect(JSON.parse(rows[1]!.payload)).toMatchObject({ total: 1 });
    await s.poller.runCycle();
    expect(await s.outbox()).toHaveLength(2);
  });

  it("never overlaps cycles: a slow Palette delays, never stacks", async () => {
    const s = await setup(fleet());
    let open!: () => void;
    s.palette.api.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const first = s.poller.runCycle();
    const second = await s.poller.runCycle();
    expect(second.skipped).toBe(true);
    open();
    expect((await first).ok).toBe(true);
    expect(s.palette.calls().filter((c) => c.startsWith("search"))).toHaveLength(2);
    expect(s.poller.metrics().skippedCycles).toBe(1);
  });

  it("commits nothing when a cycle fails half-way", async () => {
    const clusters = fleet();
    const s = await setup(clusters);
    await s.subs.add({ channel: "C1", kind: "all", createdBy: "U" });
    await s.poller.runCycle();
    clusters[0]!.state = "Upgrading";
    clusters[1]!.health = "UnHealthy";
    s.palette.control.failProject = "p2";
    const failed = await s.poller.runCycle();
    expect(failed.ok).toBe(false);
    expect(s.poller.metrics()).toMatchObject({
      lastCycleOk: false,
      lastError: "Palette server error (HTTP 503, POST /v1/dashboard)",
    });
    // Palette's own words ("down") stay in the log, not in what readiness repeats
    expect(s.poller.metrics().lastError).not.toContain("down");
    expect(await s.outbox()).toHaveLength(1);
    expect(await s.db.get("SELECT state FROM notify_snapshots WHERE cluster_uid = 'a'")).toEqual({
      state: "Running",
    });
    s.palette.control.failProject = undefined;
    await s.poller.runCycle();
    expect((await s.outbox()).map((r) => r.kind)).toEqual(["summary", "card", "card"]);
    // events were read only for the cluster whose health was just lost
    expect(s.palette.calls().filter((c) => c.startsWith("events"))).toEqual(["events b p1"]);
  });

  it("skips a project the bot may not see, and goes on with the others", async () => {
    const clusters = fleet();
    const s = await setup(clusters);
    await s.subs.add({ channel: "C1", kind: "clusters", createdBy: "U" });
    await s.poller.runCycle();
    s.palette.control.failProject = "p2";
    s.palette.control.failKind = "forbidden";
    clusters[0]!.state = "Upgrading";
    const result = await s.poller.runCycle();
    expect(result.ok).toBe(true);
    expect((await s.outbox()).map((r) => r.kind)).toEqual(["summary", "card"]);
    expect(
      await s.db.get("SELECT COUNT(*) AS n FROM notify_snapshots WHERE project = 'p2'"),
    ).toEqual({ n: 1 });
  });

  it("fails the cycle when every project refuses the bot, so readiness can say so", async () => {
    const clusters = fleet();
    const s = await setup(clusters);
    await s.subs.add({ channel: "C1", kind: "clusters", createdBy: "U" });
    await s.poller.runCycle();
    s.palette.control.failAll = true;
    s.palette.control.failKind = "forbidden";
    clusters[0]!.state = "Upgrading";
    const result = await s.poller.runCycle();
    expect(result.ok).toBe(false);
    expect(s.poller.metrics().lastCycleOk).toBe(false);
    expect((await s.outbox()).map((r) => r.kind)).toEqual(["summary"]);
  });

  it("reports a flapping cluster once, then quiet, then settled", async () => {
    const clusters = fleet();
    const s = await setup(clusters);
    await s.subs.add({ channel: "C1", kind: "clusters", createdBy: "U" });
    await s.poller.runCycle();
    for (let i = 0; i < 8; i++) {
      clusters[0]!.state = i % 2 === 0 ? "Error" : "Running";
      s.clock.advance(30_000);
      await s.poller.runCycle();
    }
    const kinds = async () =>
      (await s.outbox())
        .filter((r) => r.kind === "card")
        .map((r) => (JSON.parse(r.payload) as { kinds: string[] }).kinds.join());
    expect(await kinds()).toEqual(["state", "state", "state", "flapping"]);
    s.clock.advance(11 * 60_000);
    await s.poller.runCycle();
    expect(await kinds()).toEqual(["state", "state", "state", "flapping", "settled"]);
  });

  it("raises no alert kind the project does not support", async () => {
    const clusters = fleet();
    const s = await setup(clusters, []);
    await s.subs.add({ channel: "C1", kind: "alerts", createdBy: "U" });
    await s.poller.runCycle();
    clusters[0]!.health = "UnHealthy";
    await s.poller.runCycle();
    expect((await s.outbox()).map((r) => r.kind)).toEqual(["summary"]);
    expect(s.palette.calls().filter((c) => c.startsWith("events"))).toEqual([]);
  });

  it("exposes the last snapshot and counters", async () => {
    const s = await setup(fleet());
    await s.poller.runCycle();
    expect((await s.poller.lastSnapshot()).clusters.map((c) => c.uid).sort()).toEqual([
      "a",
      "b",
      "c",
    ]);
    expect((await s.poller.lastSnapshot()).at).toBeDefined();
    expect(s.poller.metrics()).toMatchObject({
      cycles: 1,
      clustersSeen: 3,
      failedCycles: 0,
      lastCycleOk: true,
    });
    expect(s.poller.metrics().lastError).toBeUndefined();
  });
});
