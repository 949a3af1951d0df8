import { describe, expect, it } from "vitest";
import {
  type CommittedMove,
  committedMoves,
  scoreCommitted,
} from "../../../bench/chaos/score-committed.ts";
import { change, said } from "../../support/chaos-score-fixtures.ts";

/**
 * The chaos run scored against what the bot committed (notify_events), not against which poll
 * windows overlapped a change (issue 37, item 8).
 */

const channels = new Map([["C1", "p1"]]);
const initial = { state: "Running", health: "Healthy" };
const moved = (
  at: number,
  cluster: string,
  field: "state" | "health",
  to: string,
): CommittedMove => ({
  at,
  cluster,
  project: "p1",
  field,
  to,
});

describe("committed moves read from notify_events rows", () => {
  it("keeps state and health moves with the value moved to, drops the other facts", () => {
    const rows = [
      {
        at: "2026-11-28T10:00:00.000Z",
        name: "a",
        project_uid: "p1",
        kind: "state",
        detail: "Running → Upgrading",
      },
      {
        at: "2026-11-28T10:00:01.000Z",
        name: "b",
        project_uid: "p1",
        kind: "health-lost",
        detail: "Healthy → UnHealthy",
      },
      {
        at: "2026-11-28T10:00:02.000Z",
        name: "b",
        project_uid: "p1",
        kind: "health-recovered",
        detail: "UnHealthy → Healthy",
      },
      {
        at: "2026-11-28T10:00:03.000Z",
        name: "c",
        project_uid: "p1",
        kind: "new",
        detail: "Running",
      },
      {
        at: "2026-11-28T10:00:04.000Z",
        name: "c",
        project_uid: "p1",
        kind: "alert-raised",
        detail: "x: y",
      },
    ];
    expect(committedMoves(rows)).toEqual([
      moved(Date.parse("2026-11-28T10:00:00.000Z"), "a", "state", "Upgrading"),
      moved(Date.parse("2026-11-28T10:00:01.000Z"), "b", "health", "UnHealthy"),
      moved(Date.parse("2026-11-28T10:00:02.000Z"), "b", "health", "Healthy"),
    ]);
  });
});

describe("scoring against what the bot committed", () => {
  it("a return no committed poll saw as a change is not owed, though a poll window overlapped the state before it", () => {
    // a went Upgrading at 1 s and back at 4 s; the poll reading 2–5 s straddles the return, read
    // a as Running (the bot committed nothing for a), and the old score owed the return: lost 1
    const score = scoreCommitted({
      changes: [change(1_000, "a", "state", "Upgrading"), change(4_000, "a", "state", "Running")],
      committed: [],
      channels,
      initial,
      polls: [
        [2_000, 5_000],
        [10_000, 12_000],
      ],
      delivered: [],
    });
    expect(score).toMatchObject({
      expected: 0,
      lost: 0,
      unobservable: 2,
      unchangedForBot: 1,
      missed: 0,
    });
  });

  it("a committed move missing from a subscribed channel is lost, whatever the poll windows", () => {
    const score = scoreCommitted({
      changes: [
        change(1_000, "a", "state", "Upgrading"),
        change(1_000, "b", "health", "UnHealthy"),
      ],
      committed: [moved(900, "a", "state", "Upgrading"), moved(900, "b", "health", "UnHealthy")],
      channels: new Map([
        ["C1", "p1"],
        ["C2", "p1"],
      ]),
      initial,
      // the read began before the changes and ended after: it saw them
      polls: [[900, 1_200]],
      delivered: [
        said(2_000, "*a*: State Running → Upgrading"),
        said(2_000, "*b*: Health lost: Healthy → UnHealthy"),
        said(2_100, "*a*: State Running → Upgrading", "C2"),
      ],
    });
    expect(score).toMatchObject({
      committed: 2,
      expected: 4,
      announced: 3,
      lost: 1,
      duplicated: 0,
    });
    expect(score.lostExamples).toEqual(["C2 b health → UnHealthy"]);
    expect(score.delayMs.max).toBe(1_100);
  });

  it("a committed move shown twice, and a message tied to no committed move, are duplicates", () => {
    const score = scoreCommitted({
      changes: [
        change(1_000, "a", "state", "Upgrading"),
        change(1_000, "b", "health", "UnHealthy"),
      ],
      // b's move was never committed: a message announcing it belongs to no row
      committed: [moved(1_100, "a", "state", "Upgrading")],
      channels,
      initial,
      polls: [[1_100, 1_200]],
      delivered: [
        said(2_000, "*a*: State Running → Upgrading"),
        said(2_500, "*a*: State Running → Upgrading"),
        said(2_600, "*b*: Health lost: Healthy → UnHealthy"),
        said(2_700, "*a*: State Running → Exploded"),
      ],
    });
    expect(score).toMatchObject({ lost: 0, duplicated: 2, untied: 1, falseAnnouncements: 1 });
  });

  it("a change a committed poll read inside its life, with no committed move, is missed", () => {
    const score = scoreCommitted({
      changes: [change(1_000, "a", "state", "Upgrading"), change(9_000, "a", "state", "Running")],
      committed: [],
      channels,
      initial,
      polls: [
        [3_000, 4_000],
        [12_000, 13_000],
      ],
      delivered: [],
    });
    // Upgrading was read at 3–4 s and not committed; the return is then no news to the bot
    expect(score).toMatchObject({ unobservable: 2, unchangedForBot: 1, missed: 1, lost: 0 });
    expect(score.missedExamples).toEqual(["a state → Upgrading"]);
  });

  it("measures the time no committed poll was reading, from the first change on", () => {
    const score = scoreCommitted({
      changes: [change(1_000, "a", "state", "Upgrading"), change(2_000, "a", "state", "Running")],
      committed: [],
      channels,
      initial,
      // a leader down from 1.5 s to 6 s: its change of 1–2 s is unobservable, and explained
      polls: [
        [500, 1_500],
        [6_000, 6_500],
        [7_000, 7_500],
      ],
      delivered: [],
      now: 8_000,
    });
    // stretches: 1.5–6 s, 6.5–7 s, 7.5–8 s
    expect(score.uncommittedMs).toEqual({ total: 5_500, longest: 4_500 });
    expect(score).toMatchObject({ unobservable: 2, unchangedForBot: 1, missed: 0 });
  });

  it("a move is carried by the driver's change made while its poll read, after the read began", () => {
    const score = scoreCommitted({
      changes: [change(1_050, "a", "state", "Upgrading")],
      committed: [moved(1_000, "a", "state", "Upgrading")],
      channels,
      initial,
      polls: [[1_000, 1_200]],
      delivered: [said(1_500, "*a*: State Running → Upgrading")],
    });
    expect(score).toMatchObject({ unobservable: 0, committedUnmade: 0, lost: 0, duplicated: 0 });
  });
});
