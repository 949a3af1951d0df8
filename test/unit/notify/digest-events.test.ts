import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import type { AlertEvent, ClusterChange } from "../../../src/model/notification.ts";
import { eventsOf, unhealthyMoves } from "../../../src/notify/digest/digest-events.ts";
import { createPoller } from "../../../src/notify/poll/poll.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import { NotifyEventLog } from "../../../src/store/notify-events.ts";
import { type PollCluster, pollPalette } from "../../support/fake-palette.ts";
import { openMemoryDb } from "../../support/store.ts";

const AT = "2026-03-10T08:00:00.000Z";
const snap = (uid: string, over: Partial<ClusterSnap> = {}): ClusterSnap => ({
  uid,
  name: `n-${uid}`,
  project: "p1",
  state: "Running",
  health: "Healthy",
  tags: ["env:prod"],
  ...over,
});

describe("eventsOf: a poll's changes and alerts as the digest's log", () => {
  it("writes one event per fact, with the cluster's name, project and tags", async () => {
    const changes: ClusterChange[] = [
      { cluster: snap("a", { state: "Provisioning", health: "" }), kinds: ["new"], worse: false },
      {
        cluster: snap("b", { state: "Upgrading", health: "UnHealthy" }),
        previous: { state: "Running", health: "Healthy" },
        kinds: ["state", "health-lost"],
        worse: true,
      },
      {
        cluster: snap("c", { state: "Deleted" }),
        previous: { state: "Deleting", health: "Healthy" },
        kinds: ["deleted"],
        worse: false,
      },
    ];
    const alerts: AlertEvent[] = [
      { status: "raised", alert: "ClusterHealth", cluster: snap("b"), reason: "x".repeat(2000) },
      { status: "resolved", alert: "ClusterHealth", cluster: snap("d"), reason: "back" },
    ];
    const events = eventsOf(changes, alerts, AT);
    expect(events.map((e) => `${e.clusterUid}:${e.kind}:${e.detail ?? ""}`.slice(0, 60))).toEqual([
      "a:new:Provisioning",
      "b:state:Running → Upgrading",
      "b:health-lost:Healthy → UnHealthy",
      "c:deleted:was Deleting",
      `b:alert-raised:ClusterHealth: ${"x".repeat(60 - "b:alert-raised:ClusterHealth: ".length)}`,
      "d:alert-resolved:ClusterHealth: back",
    ]);
    expect(events.every((e) => e.at === AT && e.project === "p1")).toBe(true);
    expect(events[0]).toMatchObject({ name: "n-a", tags: ["env:prod"] });
    // reasons are bounded: the log is read whole for a digest
    expect(events[4]!.detail!.length).toBeLessThanOrEqual(300);
  });

  it("leaves out flapping and settled: they are the pipeline's verdicts, not facts", async () => {
    expect(
      eventsOf(
        [
          { cluster: snap("a"), kinds: ["flapping"], worse: true },
          { cluster: snap("a"), kinds: ["settled"], worse: false },
        ],
        [],
        AT,
      ),
    ).toEqual([]);
  });
});

describe("unhealthyMoves: since when a cluster has been unhealthy", () => {
  it("starts on a known bad health, ends on Healthy or deletion, keeps through Unknown", async () => {
    const moves = unhealthyMoves(
      [
        {
          cluster: snap("a", { health: "UnHealthy" }),
          previous: { state: "Running", health: "Healthy" },
          kinds: ["health-lost"],
          worse: true,
        },
        {
          cluster: snap("b", { health: "Healthy" }),
          previous: { state: "Running", health: "UnHealthy" },
          kinds: ["health-recovered"],
          worse: false,
        },
        { cluster: snap("c", { state: "Deleted" }), kinds: ["deleted"], worse: false },
        {
          cluster: snap("d", { health: "Unknown" }),
          previous: { state: "Running", health: "UnHealthy" },
          kinds: ["health"],
          worse: false,
        },
      ],
      [snap("e", { health: "UnHealthy" })],
      AT,
    );
    expect(moves).toEqual({
      start: [
        { clusterUid: "a", since: AT, exact: true },
        { clusterUid: "e", since: AT, exact: false },
      ],
      end: ["b", "c"],
    });
  });
});

describe("the poll logs for the digest in its own transaction", () => {
  async function setup(clusters: PollCluster[]) {
    const db = await openMemoryDb();
    const clock = new ManualClock(Date.parse(AT));
    const palette = pollPalette(clusters);
    palette.alertComponents = [{ name: "ClusterHealth" }];
    const poller = createPoller({
      palette,
      db,
      clock,
      logger: silentLogger,
      projects: ["p1"],
    });
    return { db, clock, palette, poller, log: new NotifyEventLog(db) };
  }
  const all = (log: NotifyEventLog) =>
    log.between("1970-01-01T00:00:00.000Z", "2100-01-01T00:00:00.000Z");

  it("records what each cycle saw; a failed cycle records nothing; old events are pruned", async () => {
    const clusters: PollCluster[] = [
      { uid: "a", project: "p1", state: "Running", health: "Healthy" },
      { uid: "b", project: "p1", state: "Running", health: "UnHealthy" },
    ];
    const s = await setup(clusters);
    await s.poller.runCycle();
    // the first look is a baseline: no events, but b is unhealthy since at least now
    expect(await all(s.log)).toEqual([]);
    expect((await s.log.unhealthySince()).get("b")).toEqual({ since: AT, exact: false });

    s.clock.advance(60_000);
    clusters[0]!.health = "UnHealthy";
    clusters.push({ uid: "c", project: "p1", state: "Provisioning", health: "" });
    s.palette.failOn(
      "listAlertComponents",
      () =>
        new PaletteError("server", 503, undefined, "down", undefined, "GET /v1/projects/alerts"),
    );
    // alert kinds are read at a reconciliation: that is where this failure bites
    s.poller.requestReconcile();
    expect((await s.poller.runCycle()).ok).toBe(false);
    expect(await all(s.log)).toEqual([]);
    expect((await s.log.unhealthySince()).has("a")).toBe(false);

    s.palette.failOn("listAlertComponents", () => undefined);
    s.poller.requestReconcile();
    expect((await s.poller.runCycle()).ok).toBe(true);
    const kinds = (await all(s.log)).map((e) => `${e.clusterUid}:${e.kind}`);
    expect(kinds).toEqual(["a:health-lost", "c:new", "a:alert-raised"]);
    expect((await s.log.unhealthySince()).get("a")).toEqual({
      since: new Date(Date.parse(AT) + 60_000).toISOString(),
      exact: true,
    });

    // nine days on, a cycle prunes what is older than eight days
    s.clock.advance(9 * 24 * 3600_000);
    clusters[1]!.health = "Healthy";
    s.poller.requestReconcile();
    await s.poller.runCycle();
    expect((await all(s.log)).map((e) => `${e.clusterUid}:${e.kind}`)).toEqual([
      "b:health-recovered",
      "b:alert-resolved",
    ]);
    expect((await s.log.unhealthySince()).has("b")).toBe(false);
  });
});
