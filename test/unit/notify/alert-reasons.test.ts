import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.ts";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import { eventBudget, reasonsFor } from "../../../src/notify/alerts/alert-reasons.ts";
import type { ScopeRead } from "../../../src/notify/poll/scope-read.ts";
import type { PaletteEvent } from "../../../src/palette/schemas.ts";

/**
 * The reasons of a cycle's alerts (split out of the poll's closure, issue 26): event reads come out
 * of the cycle's budget and window, and the health conditions explain an alert whatever the events
 * do. The poll's own tests drive the same budget through a cycle (poll-health, notify-incremental).
 */

const snap = (uid: string): ClusterSnap => ({
  uid,
  name: uid,
  project: "p1",
  state: "Running",
  health: "UnHealthy",
  tags: [],
});

const warning = (message: string): PaletteEvent => ({
  reason: "BackOff",
  message,
  severity: "Warning",
});

/** listClusterEvents answering from `answer`, counting the calls. */
function eventsPalette(answer: (uid: string) => Promise<PaletteEvent[]>) {
  const calls: string[] = [];
  return {
    calls,
    listClusterEvents(uid: string) {
      calls.push(uid);
      return answer(uid);
    },
  };
}

const withAllowance = (callAllowance: number | undefined) => ({ callAllowance }) as ScopeRead;

describe("eventBudget", () => {
  it("gives an incremental cycle what its reads left of their allowance, at most the maximum", () => {
    expect(eventBudget([withAllowance(5), withAllowance(4)], 7, 10, 2_000).eventCalls).toBe(2);
    expect(eventBudget([withAllowance(5)], 9, 10, 2_000).eventCalls).toBe(0);
    expect(eventBudget([withAllowance(50)], 3, 10, 2_000).eventCalls).toBe(10);
  });

  it("gives a cycle with a full read (no allowance) the maximum, within the window", () => {
    const before = performance.now();
    const budget = eventBudget([withAllowance(3), withAllowance(undefined)], 400, 10, 2_000);
    expect(budget.eventCalls).toBe(10);
    expect(budget.until).toBeGreaterThanOrEqual(before + 2_000);
  });
});

describe("reasonsFor", () => {
  const conditions = new Map([
    ["a", ["Ready: kubelet down"]],
    ["b", ["Ready: disk full"]],
    ["c", ["Ready: no route"]],
  ]);
  const health = new Map(["a", "b", "c"].map((uid) => [uid, snap(uid)]));

  it("reads events for as many clusters as the budget holds, and spends it", async () => {
    const palette = eventsPalette(async (uid) => [warning(`pod crashed on ${uid}`)]);
    const budget = { eventCalls: 2, until: performance.now() + 2_000 };
    const { reasons, calls } = await reasonsFor(
      { palette, logger: silentLogger, eventsLimit: 10 },
      ["a", "b", "c", "unknown"],
      conditions,
      health,
      budget,
    );
    expect(calls).toBe(2);
    expect(budget.eventCalls).toBe(0);
    expect(palette.calls).toEqual(["a", "b"]);
    expect(reasons.get("a")).toBe("Ready: kubelet down; BackOff: pod crashed on a");
    // past the budget: the conditions alone; a UID the cycle does not hold: no reason
    expect(reasons.get("c")).toBe("Ready: no route");
    expect(reasons.has("unknown")).toBe(false);
  });

  it("gives the conditions when an event read fails or is still out when the window ends", async () => {
    const palette = eventsPalette((uid) =>
      uid === "a" ? Promise.reject(new Error("HTTP 500")) : new Promise<PaletteEvent[]>(() => {}),
    );
    const started = performance.now();
    const { reasons, calls } = await reasonsFor(
      { palette, logger: silentLogger, eventsLimit: 10 },
      ["a", "b"],
      conditions,
      health,
      { eventCalls: 10, until: performance.now() + 50 },
    );
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(calls).toBe(2);
    expect(reasons).toEqual(
      new Map([
        ["a", "Ready: kubelet down"],
        ["b", "Ready: disk full"],
      ]),
    );
  });

  it("reads nothing once the cycle's window has ended", async () => {
    const palette = eventsPalette(async () => [warning("late")]);
    const { reasons, calls } = await reasonsFor(
      { palette, logger: silentLogger, eventsLimit: 10 },
      ["a"],
      conditions,
      health,
      { eventCalls: 10, until: performance.now() - 1 },
    );
    expect(calls).toBe(0);
    expect(palette.calls).toEqual([]);
    expect(reasons.get("a")).toBe("Ready: kubelet down");
  });
});
