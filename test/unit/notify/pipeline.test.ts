import { describe, expect, it } from "vitest";
import { alertKey, CLUSTER_HEALTH } from "../../../src/model/alert.ts";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import type { FlapHistory } from "../../../src/model/flap-history.ts";
import type { Subscription } from "../../../src/model/subscription.ts";
import { matchesFilter } from "../../../src/model/subscription.ts";
import {
  clustersNeedingReason,
  evaluateAlerts,
  reasonFrom,
} from "../../../src/notify/alerts/alerts.ts";
import { DIGEST_THRESHOLD, foldChannel } from "../../../src/notify/digest/digest.ts";
import { describeChange, diffClusters, snapOf } from "../../../src/notify/poll/diff.ts";
import { applyFlapping } from "../../../src/notify/poll/flapping.ts";
import { cardPayload, routeNews } from "../../../src/notify/poll/route.ts";
import { tagsOf } from "../../../src/palette/tags.ts";

const snap = (uid: string, over: Partial<ClusterSnap> = {}): ClusterSnap => ({
  uid,
  name: `c-${uid}`,
  project: "p1",
  state: "Running",
  health: "Healthy",
  tags: [],
  ...over,
});
const mapOf = (...snaps: ClusterSnap[]) => new Map(snaps.map((s) => [s.uid, s]));
const sub = (id: number, channel: string, over: Partial<Subscription> = {}): Subscription => ({
  id,
  channel,
  kind: "all",
  createdBy: "U1",
  createdAt: "t",
  ...over,
});

describe("diffClusters", () => {
  it("reports state changes, health lost/recovered, new and gone clusters", () => {
    const previous = mapOf(snap("a"), snap("b"), snap("c", { health: "UnHealthy" }), snap("d"));
    const { changes, next } = diffClusters(
      previous,
      [
        snap("a", { state: "Deleting" }),
        snap("b", { health: "UnHealthy" }),
        snap("c", { health: "Healthy" }),
        snap("e", { state: "Pending", health: "" }),
      ],
      new Map([["d", "deleted"]]),
    );
    const byUid = new Map(changes.map((c) => [c.cluster.uid, c]));
    expect(byUid.get("a")?.kinds).toEqual(["state"]);
    expect(byUid.get("b")?.kinds).toEqual(["health-lost"]);
    expect(byUid.get("b")?.worse).toBe(true);
    expect(byUid.get("c")?.kinds).toEqual(["health-recovered"]);
    expect(byUid.get("e")?.kinds).toEqual(["new"]);
    expect(byUid.get("d")?.kinds).toEqual(["deleted"]);
    expect(byUid.get("d")?.cluster.state).toBe("Deleted");
    expect(next.map((c) => c.uid)).toEqual(["a", "b", "c", "e"]);
  });

  it("keeps a cluster missing from the listing unless a look-up found it deleted", () => {
    const previous = mapOf(snap("a"), snap("b"), snap("c"), snap("d"));
    const { changes, next } = diffClusters(
      previous,
      [snap("a")],
      new Map([
        ["b", "present"],
        ["c", "unknown"],
        ["d", "deleted"],
      ] as const),
    );
    expect(changes.map((c) => [c.cluster.uid, c.kinds])).toEqual([["d", ["deleted"]]]);
    expect(next).toEqual([snap("a"), snap("b"), snap("c")]);
    // not looked up at all: not gone either
    expect(diffClusters(previous, []).changes).toEqual([]);
  });

  it("treats a missing health as 'not said', never as lost", () => {
    const { changes, next } = diffClusters(mapOf(snap("a")), [snap("a", { health: "" })]);
    expect(changes).toEqual([]);
    expect(next[0]?.health).toBe("Healthy");
  });

  it("counts a cluster with no health yet first reporting a bad one as health lost", () => {
    const previous = mapOf(
      snap("a", { state: "Provisioning", health: "" }),
      snap("b", { state: "Provisioning", health: "Unknown" }),
    );
    const { changes } = diffClusters(previous, [
      snap("a", { state: "Running", health: "UnHealthy" }),
      snap("b", { state: "Provisioning", health: "UnHealthy" }),
    ]);
    const byUid = new Map(changes.map((c) => [c.cluster.uid, c]));
    expect(byUid.get("a")).toMatchObject({ kinds: ["state", "health-lost"], worse: true });
    expect(byUid.get("b")).toMatchObject({ kinds: ["health-lost"], worse: true });
    expect(describeChange(byUid.get("a")!)).toContain("Health lost: ? → UnHealthy");
  });

  it("reports recovery only from a known bad health; a cluster coming up Healthy is no health news", () => {
    const previous = mapOf(
      snap("fresh", { state: "Provisioning", health: "" }),
      snap("quiet", { state: "Running", health: "" }),
      snap("unknown", { state: "Provisioning", health: "Unknown" }),
      snap("sick", { health: "UnHealthy" }),
      snap("waking", { state: "Pending", health: "" }),
    );
    const { changes } = diffClusters(previous, [
      snap("fresh", { state: "Running", health: "Healthy" }),
      snap("quiet", { state: "Running", health: "Healthy" }),
      snap("unknown", { state: "Running", health: "Healthy" }),
      snap("sick", { health: "Healthy" }),
      snap("waking", { state: "Pending", health: "Unknown" }),
    ]);
    const byUid = new Map(changes.map((c) => [c.cluster.uid, c]));
    expect(byUid.get("fresh")).toMatchObject({ kinds: ["state"], worse: false });
    expect(describeChange(byUid.get("fresh")!)).toEqual(["State Provisioning → Running"]);
    expect(byUid.has("quiet")).toBe(false);
    expect(byUid.has("waking")).toBe(false);
    expect(byUid.get("unknown")).toMatchObject({ kinds: ["state", "health"], worse: false });
    expect(byUid.get("sick")).toMatchObject({ kinds: ["health-recovered"], worse: false });
  });

  it("flags a cluster that appears already unhealthy as worse", () => {
    const { changes } = diffClusters(mapOf(snap("a")), [
      snap("a"),
      snap("bad", { health: "UnHealthy" }),
      snap("coming", { state: "Provisioning", health: "Unknown" }),
    ]);
    const byUid = new Map(changes.map((c) => [c.cluster.uid, c]));
    expect(byUid.get("bad")).toMatchObject({ kinds: ["new"], worse: true });
    expect(describeChange(byUid.get("bad")!)).toEqual([
      "New cluster c-bad: Running, health UnHealthy",
    ]);
    expect(byUid.get("coming")).toMatchObject({ kinds: ["new"], worse: false });
  });

  it("reads tags and snapshots from search results", () => {
    expect(tagsOf({ env: "prod", dev: "spectro__tag", x: "" })).toEqual(["dev", "env:prod", "x"]);
    expect(snapOf({ metadata: { name: "n" } }, "p")).toBeUndefined();
    expect(
      snapOf(
        {
          metadata: { uid: "u", name: "n" },
          status: { state: "Running", health: { state: "Healthy" } },
        },
        "p",
      ),
    ).toMatchObject({ uid: "u", name: "n", state: "Running", health: "Healthy", project: "p" });
  });
});

describe("applyFlapping", () => {
  const change = (uid: string, state: string) => ({
    cluster: snap(uid, { state }),
    kinds: ["state" as const],
    worse: false,
  });

  it("reports more than 3 changes in 10 minutes once, then stays quiet until stable", () => {
    let histories: ReadonlyMap<string, FlapHistory> = new Map();
    const reported: string[][] = [];
    const t0 = 1_000_000;
    for (let i = 0; i < 6; i++) {
      const state = i % 2 === 0 ? "Error" : "Running";
      const r = applyFlapping(
        [change("a", state)],
        histories,
        mapOf(snap("a", { state })),
        t0 + i * 60_000,
      );
      histories = r.histories;
      reported.push(r.changes.flatMap((c) => c.kinds));
    }
    expect(reported).toEqual([["state"], ["state"], ["state"], ["flapping"], [], []]);
    // still within the window of the last transition: quiet
    let r = applyFlapping([], histories, mapOf(snap("a")), t0 + 5 * 60_000 + 9 * 60_000);
    expect(r.changes).toEqual([]);
    // a whole window without a transition: one "settled"
    r = applyFlapping([], r.histories, mapOf(snap("a")), t0 + 5 * 60_000 + 11 * 60_000);
    expect(r.changes.map((c) => c.kinds)).toEqual([["settled"]]);
    expect(r.histories.size).toBe(0);
  });

  it("does not count a slow cluster as flapping", () => {
    let histories: ReadonlyMap<string, FlapHistory> = new Map();
    for (let i = 0; i < 8; i++) {
      const r = applyFlapping([change("a", `S${i}`)], histories, new Map(), i * 4 * 60_000);
      histories = r.histories;
      expect(r.changes[0]?.kinds).toEqual(["state"]);
    }
  });
});

describe("alerts", () => {
  const lost = {
    cluster: snap("a", { health: "UnHealthy" }),
    kinds: ["health-lost" as const],
    worse: true,
  };
  const supported = new Set([CLUSTER_HEALTH]);

  it("raises ClusterHealth with a reason when health leaves Healthy, resolves on return", () => {
    const raisedResult = evaluateAlerts({
      changes: [lost],
      raised: new Map(),
      supported,
      reasons: new Map([["a", "NodeNotReady: node-1"]]),
      now: "t",
    });
    expect(raisedResult.events).toEqual([
      {
        status: "raised",
        alert: CLUSTER_HEALTH,
        cluster: lost.cluster,
        reason: "NodeNotReady: node-1",
      },
    ]);
    const raised = new Map(raisedResult.raise.map((r) => [alertKey(r.clusterUid, r.kind), r]));
    const back = { cluster: snap("a"), kinds: ["health-recovered" as const], worse: false };
    const resolved = evaluateAlerts({
      changes: [back],
      raised,
      supported,
      reasons: new Map(),
      now: "t",
    });
    expect(resolved.events.map((e) => e.status)).toEqual(["resolved"]);
    expect(resolved.resolve).toEqual([{ clusterUid: "a", kind: CLUSTER_HEALTH }]);
  });

  it("raises ClusterHealth for a cluster lost from no health, and for one that appears unhealthy", () => {
    const fromNothing = {
      cluster: snap("a", { health: "UnHealthy" }),
      previous: { state: "Provisioning", health: "" },
      kinds: ["state" as const, "health-lost" as const],
      worse: true,
    };
    const appeared = {
      cluster: snap("b", { health: "UnHealthy" }),
      kinds: ["new" as const],
      worse: true,
    };
    const coming = {
      cluster: snap("c", { state: "Provisioning", health: "Unknown" }),
      kinds: ["new" as const],
      worse: false,
    };
    const changes = [fromNothing, appeared, coming];
    expect(clustersNeedingReason(changes, new Map(), supported)).toEqual(["a", "b"]);
    const r = evaluateAlerts({
      changes,
      raised: new Map(),
      supported,
      reasons: new Map([["b", "NodeNotReady: node-2"]]),
      now: "t",
    });
    expect(r.raise.map((x) => x.clusterUid)).toEqual(["a", "b"]);
    expect(r.events.map((e) => [e.cluster.uid, e.status, e.reason])).toEqual([
      ["a", "raised", "health is UnHealthy"],
      ["b", "raised", "NodeNotReady: node-2"],
    ]);
  });

  it("raises nothing the project does not support", () => {
    const r = evaluateAlerts({
      changes: [lost],
      raised: new Map(),
      supported: new Set(),
      reasons: new Map(),
      now: "t",
    });
    expect(r.events).toEqual([]);
  });

  it("builds the reason from conditions and Warning events only", () => {
    expect(
      reasonFrom(
        "UnHealthy",
        ["Ready: 1 node down"],
        [
          { reason: "Scaled", message: "ok", severity: "Normal" },
          { reason: "BackOff", message: "pod crash", severity: "Warning" },
        ],
      ),
    ).toBe("Ready: 1 node down; BackOff: pod crash");
    expect(reasonFrom("Unknown", [], [])).toBe("health is Unknown");
  });
});

describe("routeNews", () => {
  it("gives each channel only what its filters match, once per cluster", () => {
    const prod = snap("a", { tags: ["env:prod"], project: "p1" });
    const dev = snap("b", { tags: ["dev"], project: "p2" });
    const subs = [
      sub(1, "C1", { tag: "env" }),
      sub(2, "C1", { kind: "clusters", project: "p1" }),
      sub(3, "C2", { kind: "alerts", project: "p2" }),
      sub(4, "C3", { pausedReason: "Slack: is_archived" }),
    ];
    const changes = [
      { cluster: prod, kinds: ["state" as const], worse: false },
      { cluster: dev, kinds: ["health-lost" as const], worse: true },
    ];
    const alerts = [
      { status: "raised" as const, alert: CLUSTER_HEALTH, cluster: dev, reason: "x" },
    ];
    const { byChannel } = routeNews({ subscriptions: subs, changes, alerts });
    expect([...byChannel.keys()].sort()).toEqual(["C1", "C2"]);
    expect(byChannel.get("C1")?.map((n) => n.cluster.uid)).toEqual(["a"]);
    const c2 = byChannel.get("C2")!;
    expect(c2.map((n) => n.cluster.uid)).toEqual(["b"]);
    expect(c2[0]?.change).toBeUndefined();
    expect(cardPayload(c2[0]!, "t")).toMatchObject({
      worse: true,
      lines: ["ClusterHealth alert raised: x"],
    });
  });

  it("matches plain tags and key:value tags", () => {
    const c = snap("a", { tags: ["dev", "team:core"] });
    expect(matchesFilter(sub(1, "C", { tag: "dev" }), c)).toBe(true);
    expect(matchesFilter(sub(1, "C", { tag: "team" }), c)).toBe(true);
    expect(matchesFilter(sub(1, "C", { tag: "team:core" }), c)).toBe(true);
    expect(matchesFilter(sub(1, "C", { tag: "team:edge" }), c)).toBe(false);
    expect(matchesFilter(sub(1, "C", { project: "p9" }), c)).toBe(false);
  });
});

describe("foldChannel", () => {
  it("folds more than the threshold into one digest", () => {
    const cards = Array.from({ length: DIGEST_THRESHOLD + 1 }, (_, i) =>
      cardPayload(
        {
          channel: "C",
          cluster: snap(`u${i}`),
          change: { cluster: snap(`u${i}`), kinds: ["state"], worse: false },
          alerts: [],
        },
        "t",
      ),
    );
    const rows = foldChannel("C", cards, "t");
    expect(rows.map((r) => r.kind)).toEqual(["digest"]);
    expect(
      foldChannel("C", cards.slice(0, DIGEST_THRESHOLD), "t").every((r) => r.kind === "card"),
    ).toBe(true);
  });
});

describe("reasonFrom", () => {
  it("does not repeat an event that says what a condition already says", () => {
    expect(
      reasonFrom(
        "UnHealthy",
        ["HealthCheck: node-2 NotReady"],
        [{ reason: "ClusterUnhealthy", message: "node-2 NotReady", severity: "Warning" }],
      ),
    ).toBe("HealthCheck: node-2 NotReady");
  });
});
