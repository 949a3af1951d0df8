import { describe, expect, it } from "vitest";
import type { TimelineEntry } from "../../../src/model/why.ts";
import {
  CAUSE_WINDOW_MS,
  isTroubled,
  likelyCause,
  troubleStart,
} from "../../../src/why/likely-cause.ts";

const T = Date.UTC(2026, 10, 25, 12);
const min = 60_000;

const write = (at: number, what = "update", message = "changed"): TimelineEntry => ({
  at,
  source: "audit",
  who: { kind: "palette", name: "eddie@example.com" },
  what,
  message,
  write: true,
});
const event = (
  at: number,
  what: string,
  severity: TimelineEntry["severity"] = "warning",
): TimelineEntry => ({ at, source: "event", what, message: what, severity, write: false });
const unhealthy = { state: "Running", health: "UnHealthy" };

describe("likely cause", () => {
  it("names the latest write in the hour before the trouble began, not an earlier one", () => {
    const entries = [
      event(T, "ClusterUnhealthy"),
      write(T - 5 * min, "update", "profile updated"),
      write(T - 20 * min, "action", "scaled"),
    ];
    const cause = likelyCause(entries, unhealthy, T + min);
    expect(cause).toMatchObject({ kind: "write", troubleAt: T });
    expect(cause.kind === "write" && cause.entry.message).toBe("profile updated");
  });

  it("ignores writes after the trouble began and before the hour", () => {
    const entries = [
      write(T + 2 * min),
      event(T, "ClusterUnhealthy"),
      write(T - CAUSE_WINDOW_MS - 1),
    ];
    const cause = likelyCause(entries, unhealthy, T + 5 * min);
    expect(cause).toMatchObject({ kind: "event", entry: { what: "ClusterUnhealthy" } });
  });

  it("a write exactly an hour before still counts", () => {
    const cause = likelyCause(
      [event(T, "ClusterUnhealthy"), write(T - CAUSE_WINDOW_MS)],
      unhealthy,
      T,
    );
    expect(cause.kind).toBe("write");
  });

  it("reads and creates are not writes: a create or an activity is never the cause", () => {
    const entries: TimelineEntry[] = [
      event(T, "ClusterUnhealthy"),
      { ...write(T - min, "create"), write: false },
      { ...write(T - 2 * min, "activity"), write: false },
    ];
    expect(likelyCause(entries, unhealthy, T).kind).toBe("event");
  });

  it("the trouble begins at the first warning after the last recovery", () => {
    const entries = [
      event(T, "NodeNotReady"),
      event(T - 10 * min, "ClusterUnhealthy"),
      event(T - 30 * min, "ClusterHealthy", "normal"),
      event(T - 40 * min, "ClusterUnhealthy"),
    ];
    expect(troubleStart(entries)?.at).toBe(T - 10 * min);
    // a write just before the older, ended trouble is not this one's cause
    const cause = likelyCause([...entries, write(T - 45 * min)], unhealthy, T);
    expect(cause).toMatchObject({ kind: "write" });
    expect(cause.kind === "write" && cause.troubleAt).toBe(T - 10 * min);
    const later = likelyCause([...entries, write(T - 80 * min)], unhealthy, T);
    expect(later).toMatchObject({ kind: "event", entry: { at: T - 10 * min } });
  });

  it("no trouble now: nothing to explain, whatever happened", () => {
    expect(
      likelyCause(
        [event(T, "ClusterUnhealthy"), write(T - min)],
        { state: "Running", health: "Healthy" },
        T,
      ),
    ).toEqual({ kind: "no-trouble", state: "Running", health: "Healthy" });
    expect(isTroubled({ state: "Failed" })).toBe(true);
    expect(isTroubled({ state: "Provisioning", health: "Unknown" })).toBe(false);
  });

  it("troubled with no warning event: a write in the hour before now, else it says it cannot tell", () => {
    expect(likelyCause([write(T - 10 * min)], { state: "Failed" }, T)).toMatchObject({
      kind: "write",
      troubleAt: T,
    });
    expect(likelyCause([write(T - 2 * CAUSE_WINDOW_MS)], { state: "Failed" }, T)).toEqual({
      kind: "unknown",
      state: "Failed",
    });
  });

  it("a change sent through the bot is a write like Palette's own", () => {
    const bot: TimelineEntry = {
      at: T - 3 * min,
      source: "bot",
      who: { kind: "slack", userId: "U1" },
      what: "scale",
      message: "scale worker-pool 3 → 5",
      write: true,
    };
    const cause = likelyCause(
      [event(T, "ClusterUnhealthy"), write(T - 9 * min), bot],
      unhealthy,
      T,
    );
    expect(cause.kind === "write" && cause.entry.source).toBe("bot");
  });
});
