import { describe, expect, it } from "vitest";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import type { CardPayload, Hold } from "../../../src/model/notification.ts";
import { endSummary, splitHeld } from "../../../src/notify/oncall/held-news.ts";

const NOW = Date.UTC(2026, 10, 23, 12);

const snap = (uid: string, state = "Running", health = "Healthy"): ClusterSnap => ({
  uid,
  name: `n-${uid}`,
  project: "p1",
  state,
  health,
  tags: [],
});

function card(
  uid: string,
  kinds: CardPayload["kinds"],
  now: [string, string],
  before?: [string, string],
  alerts: CardPayload["alerts"] = [],
): CardPayload {
  return {
    cluster: snap(uid, now[0], now[1]),
    previous: before ? { state: before[0], health: before[1] } : undefined,
    kinds,
    lines: [`${uid} changed`],
    worse: kinds.includes("health-lost"),
    alerts,
    at: new Date(NOW).toISOString(),
  };
}

function hold(kind: Hold["kind"], channel: string, uid: string, untilMs: number): Hold {
  return {
    channel,
    clusterUid: uid,
    kind,
    clusterName: `n-${uid}`,
    projectUid: "p1",
    userId: "U1",
    reason: kind === "mute" ? "maintenance" : undefined,
    startedAt: NOW - 60_000,
    untilMs,
  };
}

describe("holding news back", () => {
  const news = () =>
    new Map([
      ["C1", [card("a", ["state"], ["Upgrading", "Healthy"], ["Running", "Healthy"])]],
      [
        "C2",
        [
          card("a", ["state"], ["Upgrading", "Healthy"], ["Running", "Healthy"]),
          card("b", ["health-lost"], ["Running", "UnHealthy"], ["Running", "Healthy"]),
        ],
      ],
    ]);

  it("keeps the news of a snoozed cluster in that channel only; everything else is posted", () => {
    const split = splitHeld(news(), [hold("snooze", "C2", "a", NOW + 3_600_000)], NOW);
    expect(split.kept).toEqual([
      { channel: "C2", payload: expect.objectContaining({ lines: ["a changed"] }) },
    ]);
    expect(
      [...split.posted.entries()].map(([ch, cards]) => [ch, cards.map((c) => c.cluster.uid)]),
    ).toEqual([
      ["C1", ["a"]],
      ["C2", ["b"]],
    ]);
  });

  it("keeps alerts as well as cluster changes, for mutes as for snoozes", () => {
    const alertOnly = card("b", [], ["Running", "UnHealthy"], undefined, [
      { status: "raised", alert: "ClusterHealth", cluster: snap("b"), reason: "disk" },
    ]);
    const split = splitHeld(
      new Map([["C1", [alertOnly]]]),
      [hold("mute", "C1", "b", NOW + 1)],
      NOW,
    );
    expect(split.kept).toHaveLength(1);
    expect(split.posted.size).toBe(0);
  });

  it("does not hold with a snooze whose time has come", () => {
    const split = splitHeld(news(), [hold("snooze", "C1", "a", NOW)], NOW);
    expect(split.kept).toEqual([]);
    expect(split.posted.get("C1")).toHaveLength(1);
  });
});

describe("the line when a hold ends", () => {
  const kept = [
    card("a", ["state"], ["Upgrading", "Healthy"], ["Running", "Healthy"]),
    card(
      "a",
      ["health-lost"],
      ["Upgrading", "UnHealthy"],
      ["Upgrading", "Healthy"],
      [{ status: "raised", alert: "ClusterHealth", cluster: snap("a"), reason: "etcd" }],
    ),
    card(
      "a",
      ["state", "health-recovered"],
      ["Running", "Healthy"],
      ["Upgrading", "UnHealthy"],
      [{ status: "resolved", alert: "ClusterHealth", cluster: snap("a"), reason: "etcd" }],
    ),
  ];
  const at = new Date(NOW).toISOString();

  it("says what changed meanwhile and where the cluster stands now", () => {
    const summary = endSummary({
      ended: [hold("snooze", "C1", "a", NOW)],
      kept,
      current: snap("a", "Running", "Healthy"),
      at,
    });
    expect(summary?.lines).toEqual([
      "Snooze ended: 4 changes while snoozed (Running → Upgrading, health lost, Upgrading → Running, health recovered); now Running, Healthy",
    ]);
    expect(summary?.held).toEqual({
      ended: [{ kind: "snooze", userId: "U1" }],
      changes: ["Running → Upgrading", "health lost", "Upgrading → Running", "health recovered"],
      more: 0,
      now: { state: "Running", health: "Healthy" },
    });
    // the card shows the cluster as it is now, since before the hold, and no alert still open
    expect(summary?.cluster.state).toBe("Running");
    expect(summary?.previous).toEqual({ state: "Running", health: "Healthy" });
    expect(summary?.alerts).toEqual([]);
    expect(summary?.kinds).toEqual(["state", "health-lost", "health-recovered"]);
  });

  it("keeps an alert raised meanwhile and not resolved on the card", () => {
    const summary = endSummary({
      ended: [hold("mute", "C1", "a", NOW)],
      kept: kept.slice(0, 2),
      current: snap("a", "Upgrading", "UnHealthy"),
      at,
      endedBy: "U9",
    });
    expect(summary?.alerts.map((a) => `${a.alert}:${a.status}`)).toEqual(["ClusterHealth:raised"]);
    expect(summary?.held).toMatchObject({
      ended: [{ kind: "mute", userId: "U1", reason: "maintenance" }],
      endedBy: "U9",
      now: { state: "Upgrading", health: "UnHealthy" },
    });
    expect(summary?.lines[0]).toMatch(/^Mute ended: 2 changes while muted/);
  });

  it("falls back to the last kept news when the cluster is no longer remembered", () => {
    const summary = endSummary({ ended: [hold("snooze", "C1", "a", NOW)], kept, at });
    expect(summary?.held?.now).toEqual({ state: "Running", health: "Healthy" });
  });

  it("says nothing when nothing changed", () => {
    expect(endSummary({ ended: [hold("snooze", "C1", "a", NOW)], kept: [], at })).toBeUndefined();
  });

  it("names a long list's first changes and counts the rest", () => {
    const many = Array.from({ length: 12 }, (_, i) =>
      card("a", ["state"], [`S${i + 1}`, "Healthy"], [`S${i}`, "Healthy"]),
    );
    const summary = endSummary({ ended: [hold("snooze", "C1", "a", NOW)], kept: many, at });
    expect(summary?.held?.changes).toHaveLength(8);
    expect(summary?.held?.more).toBe(4);
    expect(summary?.lines[0]).toContain("12 changes while snoozed");
    expect(summary?.lines[0]).toContain("…and 4 more");
  });
});
