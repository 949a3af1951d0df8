import { describe, expect, it } from "vitest";
import { readNotification, scoreChaos } from "../../../bench/chaos/score.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { notificationCard, notificationThreadLine } from "../../../src/views/notification.ts";
import { change, said } from "../../support/chaos-score-fixtures.ts";

const channels = new Map([
  ["C1", "p1"],
  ["C2", "p2"],
]);

function payload(lines: string[], worse = false): CardPayload {
  return {
    cluster: {
      uid: "u1",
      name: "billing-prod",
      project: "p1",
      state: "Upgrading",
      health: "Healthy",
      tags: [],
    } as unknown as CardPayload["cluster"],
    kinds: ["state"],
    lines,
    worse,
    alerts: [],
    at: "2026-11-23T10:00:00Z",
  };
}

describe("reading a notification as a person does", () => {
  it("reads the bot's own card and thread line texts", () => {
    const card = notificationCard(payload(["State Running → Upgrading"])).text;
    const line = notificationThreadLine(payload(["Health lost: Healthy → UnHealthy"], true)).text;
    expect(readNotification(card)).toEqual([
      { cluster: "billing-prod", field: "state", to: "Upgrading" },
    ]);
    expect(readNotification(line)).toEqual([
      { cluster: "billing-prod", field: "health", to: "UnHealthy" },
    ]);
    expect(readNotification("Watching 80 clusters; 0 not healthy")).toBeUndefined();
    expect(readNotification("*x*: Cluster x is gone (Deleted)")?.[0]?.field).toBe("deleted");
  });
});

describe("scoring a chaos run", () => {
  const made = [
    change(0, "a", "state", "Upgrading"),
    change(10, "a", "state", "Running"),
    change(5, "b", "health", "UnHealthy"),
  ];

  it("everything once and in order: nothing lost, no duplicate, delays measured", () => {
    const score = scoreChaos({
      changes: made,
      channels,
      delivered: [
        said(100, "a: State Running → Upgrading"),
        said(105, "*b*: Health lost: Healthy → UnHealthy"),
        said(200, "*a*: State Upgrading → Running"),
      ],
    });
    expect(score).toMatchObject({
      expected: 3,
      announced: 3,
      lost: 0,
      duplicated: 0,
      falseAnnouncements: 0,
      outOfOrder: 0,
    });
    expect(score.delayMs.max).toBe(190);
  });

  it("counts what is lost, repeated, out of order and false", () => {
    const score = scoreChaos({
      changes: made,
      channels,
      delivered: [
        said(100, "*a*: State Upgrading → Running"),
        said(101, "a: State Running → Upgrading"),
        said(102, "*a*: State Upgrading → Running"),
        said(103, "*c*: Cluster c is gone (Deleted)"),
        said(104, "*b*: Health lost: Healthy → Warning"),
        said(105, "*b*: Health lost: Healthy → UnHealthy", "C2"),
      ],
    });
    expect(score).toMatchObject({
      lost: 1,
      duplicated: 1,
      outOfOrder: 1,
      falseAnnouncements: 3,
    });
    expect(score.lostExamples).toEqual(["C1 b health → UnHealthy"]);
  });
});

describe("a digest", () => {
  it("counts the changes it names, and only those", () => {
    const score = scoreChaos({
      changes: [change(0, "a", "state", "Upgrading"), change(1, "b", "health", "UnHealthy")],
      channels: new Map([["C1", "p1"]]),
      delivered: [
        {
          channel: "C1",
          at: 10,
          text: "12 clusters changed: 1 state changed, 1 health lost",
          sections: [
            "1 state changed, 1 health lost",
            "• a: State Running → Upgrading (now Upgrading/Healthy)\n_…and 1 more clusters_",
          ],
        },
      ],
    });
    expect(score).toMatchObject({ digests: 1, announced: 1, lost: 1 });
  });
});

describe("changes no poller could see", () => {
  it("are counted apart, not as lost, when no committed poll read Palette while they lasted", () => {
    const changes = [
      change(1_000, "a", "state", "Upgrading"),
      change(4_000, "a", "state", "Running"),
      change(20_000, "b", "health", "UnHealthy"),
    ];
    const score = scoreChaos({
      changes,
      channels: new Map([["C1", "p1"]]),
      // a poll read 2–5 s (it straddles a's Running at 4 s: it may have seen either), then 10–12 s
      polls: [
        [2_000, 5_000],
        [10_000, 12_000],
        [21_000, 22_000],
      ],
      delivered: [said(23_000, "*b*: Health lost: Healthy → UnHealthy")],
    });
    // a's Upgrading (1–4 s) was read by no poll entirely inside it; a's Running was (10–12 s)
    expect(score).toMatchObject({ unobservable: 1, expected: 2, lost: 1, announced: 1 });
    expect(score.lostExamples).toEqual(["C1 a state → Running"]);
  });

  it("count as announced, not as false news, when a poll saw them anyway", () => {
    const score = scoreChaos({
      changes: [change(1_000, "a", "state", "Upgrading"), change(4_000, "a", "state", "Running")],
      channels: new Map([["C1", "p1"]]),
      // the first poll straddles both states: Upgrading is not owed, but it was seen
      polls: [
        [2_000, 5_000],
        [5_000, 6_000],
      ],
      delivered: [
        said(7_000, "*a*: State Running → Upgrading"),
        said(8_000, "*a*: State Upgrading → Running"),
      ],
    });
    expect(score).toMatchObject({
      unobservable: 1,
      expected: 1,
      lost: 0,
      announced: 2,
      falseAnnouncements: 0,
    });
  });

  it("a return to what the bot last read, after a state no committed poll touched, is not owed", () => {
    // the run begins calm: every cluster Running and Healthy
    const initial = { state: "Running", health: "Healthy" };
    const changes = [
      change(1_000, "a", "state", "Upgrading"),
      change(9_000, "a", "state", "Running"),
      change(1_500, "b", "health", "UnHealthy"),
      change(9_500, "b", "health", "Healthy"),
    ];
    const score = scoreChaos({
      changes,
      channels: new Map([["C1", "p1"]]),
      initial,
      // the bot was down from 0.5 s to 9 s: its committed polls read before and after, none in
      // between, so it never saw a Upgrading nor b UnHealthy, and read Running/Healthy again
      polls: [
        [0, 400],
        [10_000, 11_000],
      ],
      delivered: [],
    });
    expect(score).toMatchObject({ unobservable: 2, unchangedForBot: 2, expected: 0, lost: 0 });
  });

  it("but is owed when a committed poll may have read the state in between", () => {
    const score = scoreChaos({
      changes: [change(1_000, "a", "state", "Upgrading"), change(4_000, "a", "state", "Running")],
      channels: new Map([["C1", "p1"]]),
      initial: { state: "Running", health: "Healthy" },
      // 2–5 s straddles Upgrading's end: the bot may have committed Upgrading
      polls: [
        [2_000, 5_000],
        [10_000, 12_000],
      ],
      delivered: [],
    });
    expect(score).toMatchObject({ unobservable: 1, unchangedForBot: 0, expected: 1, lost: 1 });
  });
});
