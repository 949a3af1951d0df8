import { describe, expect, it } from "vitest";
import type { NotifyEvent, UnhealthySince } from "../../../src/model/channel-digest.ts";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import type { Subscription } from "../../../src/model/subscription.ts";
import {
  buildChannelDigest,
  type ChannelDigestInput,
} from "../../../src/notify/digest/channel-digest.ts";

const TO = "2026-03-10T08:00:00.000Z";
const FROM = "2026-03-09T08:00:00.000Z";
const hoursBefore = (h: number) => new Date(Date.parse(TO) - h * 3600_000).toISOString();

const snap = (uid: string, over: Partial<ClusterSnap> = {}): ClusterSnap => ({
  uid,
  name: `n-${uid}`,
  project: "p1",
  state: "Running",
  health: "Healthy",
  tags: ["env:prod"],
  ...over,
});

const sub = (over: Partial<Subscription> = {}): Subscription => ({
  id: 1,
  channel: "C1",
  kind: "all",
  createdBy: "U1",
  createdAt: "2026-01-01T00:00:00.000Z",
  ...over,
});

const event = (uid: string, kind: NotifyEvent["kind"], over: Partial<NotifyEvent> = {}) => ({
  at: hoursBefore(1),
  clusterUid: uid,
  name: `n-${uid}`,
  project: "p1",
  tags: ["env:prod"],
  kind,
  ...over,
});

function input(over: Partial<ChannelDigestInput> = {}): ChannelDigestInput {
  return {
    channel: "C1",
    cadence: "daily",
    preview: false,
    timeZone: "Europe/Berlin",
    subscriptions: [sub()],
    clusters: [],
    events: [],
    unhealthySince: new Map(),
    flappingNow: new Set(),
    from: FROM,
    to: TO,
    ...over,
  };
}

describe("buildChannelDigest", () => {
  it("counts the covered clusters by state and health per project, most clusters first", () => {
    const digest = buildChannelDigest(
      input({
        clusters: [
          snap("a"),
          snap("b", { state: "Provisioning", health: "" }),
          snap("c", { health: "UnHealthy" }),
          snap("d", { project: "p2" }),
          snap("e", { project: "p2", health: "Unknown" }),
          snap("f", { project: "p2", state: "Failed", health: "UnHealthy" }),
          snap("g", { project: "p2" }),
        ],
      }),
    );
    expect(digest.total).toBe(7);
    expect(digest.projects).toEqual({
      total: 2,
      items: [
        {
          project: "p2",
          total: 4,
          byState: [
            ["Running", 3],
            ["Failed", 1],
          ],
          healthy: 2,
          unhealthy: 1,
          unknown: 1,
        },
        {
          project: "p1",
          total: 3,
          byState: [
            ["Running", 2],
            ["Provisioning", 1],
          ],
          healthy: 1,
          unhealthy: 1,
          unknown: 1,
        },
      ],
    });
    expect(digest).toMatchObject({
      channel: "C1",
      cadence: "daily",
      preview: false,
      timeZone: "Europe/Berlin",
      from: FROM,
      to: TO,
      subscriptions: 1,
    });
  });

  it("follows the channel's subscriptions: project and tag filters, kinds, paused ones ignored", () => {
    const digest = buildChannelDigest(
      input({
        subscriptions: [
          sub({ kind: "clusters", project: "p1", tag: "env:prod" }),
          sub({ id: 2, kind: "alerts", project: "p2" }),
          sub({ id: 3, kind: "all", pausedReason: "Slack: is_archived" }),
        ],
        clusters: [
          snap("a"),
          snap("b", { tags: ["env:dev"] }),
          snap("c", { project: "p2", tags: [] }),
          snap("d", { project: "p3" }),
        ],
        events: [
          event("a", "new"),
          event("b", "new", { tags: ["env:dev"] }),
          event("c", "new", { project: "p2", tags: [] }),
          event("a", "alert-raised", { detail: "ClusterHealth: x" }),
          event("c", "alert-raised", { project: "p2", tags: [], detail: "ClusterHealth: y" }),
          event("z", "deleted", { detail: "Deleting" }),
        ],
      }),
    );
    expect(digest.subscriptions).toBe(2);
    // the fleet overview covers what any subscription covers
    expect(digest.total).toBe(2);
    // launched and deleted come from the `clusters` subscription, alerts from the `alerts` one
    expect(digest.launched.items.map((e) => e.name)).toEqual(["n-a"]);
    expect(digest.deleted.items.map((e) => e.name)).toEqual(["n-z"]);
    expect(digest.alertsRaised.items).toEqual([
      { name: "n-c", project: "p2", at: hoursBefore(1), detail: "ClusterHealth: y" },
    ]);
  });

  it("lists clusters unhealthy for more than 24 h, longest first, with since when", () => {
    const since = new Map<string, UnhealthySince>([
      ["a", { since: hoursBefore(30), exact: true }],
      ["b", { since: hoursBefore(2), exact: true }],
      ["c", { since: hoursBefore(100), exact: false }],
      // healthy again: a stale row does not make it unhealthy
      ["d", { since: hoursBefore(50), exact: true }],
    ]);
    const digest = buildChannelDigest(
      input({
        clusters: [
          snap("a", { health: "UnHealthy" }),
          snap("b", { health: "UnHealthy" }),
          snap("c", { health: "UnHealthy" }),
          snap("d"),
          // unhealthy, but nobody knows since when: not claimed to be long
          snap("e", { health: "UnHealthy" }),
        ],
        unhealthySince: since,
      }),
    );
    expect(digest.longUnhealthy).toEqual({
      total: 2,
      items: [
        { name: "n-c", project: "p1", health: "UnHealthy", since: hoursBefore(100), exact: false },
        { name: "n-a", project: "p1", health: "UnHealthy", since: hoursBefore(30), exact: true },
      ],
    });
  });

  it("launched, deleted, alerts raised and resolved since the last digest, oldest first", () => {
    const digest = buildChannelDigest(
      input({
        events: [
          event("a", "new", { at: hoursBefore(5), detail: "Provisioning" }),
          event("b", "deleted", { at: hoursBefore(4), detail: "Deleting" }),
          event("a", "alert-raised", { at: hoursBefore(3), detail: "ClusterHealth: disk" }),
          event("a", "alert-resolved", { at: hoursBefore(2), detail: "ClusterHealth: ok" }),
          // launched twice in the window (deleted and re-created): listed once
          event("a", "new", { at: hoursBefore(1) }),
        ],
      }),
    );
    expect(digest.launched).toEqual({
      total: 1,
      items: [{ name: "n-a", project: "p1", at: hoursBefore(5), detail: "Provisioning" }],
    });
    expect(digest.deleted.items.map((e) => e.name)).toEqual(["n-b"]);
    expect(digest.alertsRaised.items.map((e) => e.detail)).toEqual(["ClusterHealth: disk"]);
    expect(digest.alertsResolved.items.map((e) => e.detail)).toEqual(["ClusterHealth: ok"]);
  });

  it("names the most flapping clusters: most state and health moves, at least 4", () => {
    const moves = (uid: string, n: number) =>
      Array.from({ length: n }, (_, i) =>
        event(uid, i % 2 === 0 ? "health-lost" : "health-recovered"),
      );
    const digest = buildChannelDigest(
      input({
        events: [...moves("a", 4), ...moves("b", 9), ...moves("c", 3), event("a", "alert-raised")],
        flappingNow: new Set(["b"]),
      }),
    );
    expect(digest.flapping).toEqual({
      total: 2,
      items: [
        { name: "n-b", project: "p1", transitions: 9, flappingNow: true },
        { name: "n-a", project: "p1", transitions: 4, flappingNow: false },
      ],
    });
  });

  it("lists active mutes only when whoever keeps them passes them in", () => {
    expect(buildChannelDigest(input()).mutes).toBeUndefined();
    const mutes = [{ cluster: "n-a", until: TO, by: "U1", reason: "maintenance" }];
    expect(buildChannelDigest(input({ mutes })).mutes).toEqual({ total: 1, items: mutes });
  });

  it("caps every list for a huge fleet and says how many there were", () => {
    const clusters: ClusterSnap[] = [];
    const since = new Map<string, UnhealthySince>();
    for (let i = 0; i < 50_000; i++) {
      const uid = `u${i}`;
      const unhealthy = i % 10 === 0;
      clusters.push(
        snap(uid, { project: `p${i % 300}`, health: unhealthy ? "UnHealthy" : "Healthy" }),
      );
      if (unhealthy) since.set(uid, { since: hoursBefore(48), exact: true });
    }
    const events = Array.from({ length: 800 }, (_, i) =>
      event(`u${i}`, i % 2 === 0 ? "new" : "alert-raised"),
    );
    const digest = buildChannelDigest(input({ clusters, unhealthySince: since, events }));
    expect(digest.total).toBe(50_000);
    expect(digest.projects.total).toBe(300);
    expect(digest.projects.items.length).toBeLessThanOrEqual(20);
    expect(digest.longUnhealthy.total).toBe(5_000);
    expect(digest.longUnhealthy.items.length).toBeLessThanOrEqual(10);
    expect(digest.launched.total).toBe(400);
    expect(digest.alertsRaised.total).toBe(400);
    expect(digest.launched.items.length).toBeLessThanOrEqual(10);
    // what waits in the outbox stays small whatever the fleet
    expect(JSON.stringify(digest).length).toBeLessThan(20_000);
  });
});
