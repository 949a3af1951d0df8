import { describe, expect, it } from "vitest";
import { openSqlite } from "../../../src/store/sqlite.ts";
import { DigestStore } from "../../../src/store/digests.ts";
import { MIGRATIONS } from "../../../src/store/migrations/index.ts";
import { NotifyEventLog } from "../../../src/store/notify-events.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";

const schedule = {
  channel: "C1",
  cadence: "daily" as const,
  hour: 9,
  minute: 0,
  timeZone: "Europe/Berlin",
  setBy: "U1",
  setAt: "2026-03-01T10:00:00.000Z",
};

describe("DigestStore", () => {
  it("keeps one schedule per channel: set, replace, read, remove", async () => {
    const store = new DigestStore(await openSqlite(":memory:"));
    expect(store.get("C1")).toBeUndefined();
    expect(store.set(schedule)).toBeUndefined();
    expect(store.get("C1")).toEqual(schedule);
    const weekly = { ...schedule, cadence: "weekly" as const, weekday: 1, hour: 17, minute: 5 };
    expect(store.set(weekly)).toEqual(schedule);
    expect(store.get("C1")).toEqual(weekly);
    store.set({ ...schedule, channel: "C2" });
    expect(store.all().map((s) => s.channel)).toEqual(["C1", "C2"]);
    expect(store.remove("C1")).toEqual(weekly);
    expect(store.remove("C1")).toBeUndefined();
    expect(store.all().map((s) => s.channel)).toEqual(["C2"]);
  });

  it("claims a run once per (channel, occurrence); the last run is the latest occurrence", async () => {
    const store = new DigestStore(await openSqlite(":memory:"));
    const occurrence = "2026-03-10T08:00:00.000Z";
    expect(store.claimRun("C1", occurrence, "2026-03-10T08:00:01.000Z")).toBe(true);
    expect(store.claimRun("C1", occurrence, "2026-03-10T09:00:00.000Z")).toBe(false);
    expect(store.claimRun("C2", occurrence, "2026-03-10T08:00:01.000Z")).toBe(true);
    store.claimRun("C1", "2026-03-09T08:00:00.000Z", "2026-03-09T08:00:01.000Z");
    expect(store.lastRun("C1")).toEqual({
      occurrence,
      builtAt: "2026-03-10T08:00:01.000Z",
    });
    expect(store.lastRun("C3")).toBeUndefined();
    expect(store.pruneRuns("2026-03-10T00:00:00.000Z")).toBe(1);
    expect(store.lastRun("C1")?.occurrence).toBe(occurrence);
  });
});

describe("NotifyEventLog", () => {
  it("reads the events of a window, oldest first, and prunes old ones", async () => {
    const log = new NotifyEventLog(await openSqlite(":memory:"));
    const event = (at: string, uid: string) => ({
      at,
      clusterUid: uid,
      name: `n-${uid}`,
      project: "p1",
      tags: ["env:prod"],
      kind: "new" as const,
    });
    log.append([
      event("2026-03-01T00:00:00.000Z", "a"),
      {
        ...event("2026-03-05T00:00:00.000Z", "b"),
        kind: "alert-raised",
        detail: "ClusterHealth: x",
      },
      event("2026-03-09T00:00:00.000Z", "c"),
    ]);
    expect(
      log.between("2026-03-01T00:00:00.000Z", "2026-03-09T00:00:00.000Z").map((e) => e.clusterUid),
    ).toEqual(["b", "c"]);
    expect(log.between("2026-02-01T00:00:00.000Z", "2026-03-02T00:00:00.000Z")).toEqual([
      {
        at: "2026-03-01T00:00:00.000Z",
        clusterUid: "a",
        name: "n-a",
        project: "p1",
        tags: ["env:prod"],
        kind: "new",
      },
    ]);
    expect(log.prune("2026-03-05T00:00:00.000Z")).toBe(1);
    expect(log.between("2026-01-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z")).toHaveLength(2);
  });

  it("keeps since when each cluster has been unhealthy: a start never moves an earlier one", async () => {
    const log = new NotifyEventLog(await openSqlite(":memory:"));
    log.applyUnhealthy({
      start: [
        { clusterUid: "a", since: "2026-03-01T00:00:00.000Z", exact: true },
        { clusterUid: "b", since: "2026-03-01T00:00:00.000Z", exact: false },
      ],
      end: [],
    });
    log.applyUnhealthy({
      start: [{ clusterUid: "a", since: "2026-03-02T00:00:00.000Z", exact: true }],
      end: ["b"],
    });
    expect(log.unhealthySince()).toEqual(
      new Map([["a", { since: "2026-03-01T00:00:00.000Z", exact: true }]]),
    );
  });

  it("migration 46 starts the clusters already unhealthy as 'at least since now'", async () => {
    const db = await openSqlite(
      ":memory:",
      MIGRATIONS.filter((m) => m.id < 45),
    );
    new SnapshotStore(db).replace(
      "p1",
      new Map(),
      [
        { uid: "a", name: "a", project: "p1", state: "Running", health: "UnHealthy", tags: [] },
        { uid: "b", name: "b", project: "p1", state: "Running", health: "Healthy", tags: [] },
        { uid: "c", name: "c", project: "p1", state: "Running", health: "Unknown", tags: [] },
      ],
      "2026-01-01T00:00:00.000Z",
    );
    migrate(db, MIGRATIONS);
    const since = new NotifyEventLog(db).unhealthySince();
    expect([...since.keys()]).toEqual(["a"]);
    expect(since.get("a")?.exact).toBe(false);
    expect(Number.isNaN(Date.parse(since.get("a")!.since))).toBe(false);
  });
});
