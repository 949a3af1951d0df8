import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DigestStore } from "../../../src/store/digests.ts";
import { MIGRATIONS } from "../../../src/store/migrations/index.ts";
import { NotifyEventLog } from "../../../src/store/notify-events.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

const schedule = {
  channel: "C1",
  cadence: "daily" as const,
  hour: 9,
  minute: 0,
  timeZone: "Europe/Berlin",
  setBy: "U1",
  setAt: "2026-03-01T10:00:00.000Z",
};

afterEach(closeOpened);

describe.each(BACKENDS)("on $name", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (backend) => {
  describe("DigestStore", () => {
    it("keeps one schedule per channel: set, replace, read, remove", async () => {
      const store = new DigestStore(await backend.open());
      expect(await store.get("C1")).toBeUndefined();
      expect(await store.set(schedule)).toBeUndefined();
      expect(await store.get("C1")).toEqual(schedule);
      const weekly = { ...schedule, cadence: "weekly" as const, weekday: 1, hour: 17, minute: 5 };
      expect(await store.set(weekly)).toEqual(schedule);
      expect(await store.get("C1")).toEqual(weekly);
      await store.set({ ...schedule, channel: "C2" });
      expect((await store.all()).map((s) => s.channel)).toEqual(["C1", "C2"]);
      expect(await store.remove("C1")).toEqual(weekly);
      expect(await store.remove("C1")).toBeUndefined();
      expect((await store.all()).map((s) => s.channel)).toEqual(["C2"]);
    });

    it("claims a run once per (channel, occurrence); the last run is the latest occurrence", async () => {
      const store = new DigestStore(await backend.open());
      const occurrence = "2026-03-10T08:00:00.000Z";
      expect(await store.claimRun("C1", occurrence, "2026-03-10T08:00:01.000Z")).toBe(true);
      expect(await store.claimRun("C1", occurrence, "2026-03-10T09:00:00.000Z")).toBe(false);
      expect(await store.claimRun("C2", occurrence, "2026-03-10T08:00:01.000Z")).toBe(true);
      await store.claimRun("C1", "2026-03-09T08:00:00.000Z", "2026-03-09T08:00:01.000Z");
      expect(await store.lastRun("C1")).toEqual({
        occurrence,
        builtAt: "2026-03-10T08:00:01.000Z",
      });
      expect(await store.lastRun("C3")).toBeUndefined();
      expect(await store.pruneRuns("2026-03-10T00:00:00.000Z")).toBe(1);
      expect((await store.lastRun("C1"))?.occurrence).toBe(occurrence);
    });
  });

  describe("NotifyEventLog", () => {
    it("reads the events of a window, oldest first, and prunes old ones", async () => {
      const log = new NotifyEventLog(await backend.open());
      const event = (at: string, uid: string) => ({
        at,
        clusterUid: uid,
        name: `n-${uid}`,
        project: "p1",
        tags: ["env:prod"],
        kind: "new" as const,
      });
      await log.append([
        event("2026-03-01T00:00:00.000Z", "a"),
        {
          ...event("2026-03-05T00:00:00.000Z", "b"),
          kind: "alert-raised",
          detail: "ClusterHealth: x",
        },
        event("2026-03-09T00:00:00.000Z", "c"),
      ]);
      expect(
        (await log.between("2026-03-01T00:00:00.000Z", "2026-03-09T00:00:00.000Z")).map(
          (e) => e.clusterUid,
        ),
      ).toEqual(["b", "c"]);
      expect(await log.between("2026-02-01T00:00:00.000Z", "2026-03-02T00:00:00.000Z")).toEqual([
        {
          at: "2026-03-01T00:00:00.000Z",
          clusterUid: "a",
          name: "n-a",
          project: "p1",
          tags: ["env:prod"],
          kind: "new",
        },
      ]);
      expect(await log.prune("2026-03-05T00:00:00.000Z")).toBe(1);
      expect(
        await log.between("2026-01-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z"),
      ).toHaveLength(2);
    });

    it("keeps since when each cluster has been unhealthy: a start never moves an earlier one", async () => {
      const log = new NotifyEventLog(await backend.open());
      await log.applyUnhealthy({
        start: [
          { clusterUid: "a", since: "2026-03-01T00:00:00.000Z", exact: true },
          { clusterUid: "b", since: "2026-03-01T00:00:00.000Z", exact: false },
        ],
        end: [],
      });
      await log.applyUnhealthy({
        start: [{ clusterUid: "a", since: "2026-03-02T00:00:00.000Z", exact: true }],
        end: ["b"],
      });
      expect(await log.unhealthySince()).toEqual(
        new Map([["a", { since: "2026-03-01T00:00:00.000Z", exact: true }]]),
      );
    });
  });
});

describe("the SQLite migrations of existing rows", () => {
  it("migration 46 starts the clusters already unhealthy as 'at least since now'", async () => {
    // a file, so the same store can be opened again with every migration
    const dir = mkdtempSync(join(tmpdir(), "digests-test-"));
    const file = join(dir, "state.db");
    const before = await openSqlite(
      file,
      MIGRATIONS.filter((m) => m.id < 45),
    );
    // rows as that schema holds them (today's SnapshotStore writes columns added later)
    for (const [uid, health] of [
      ["a", "UnHealthy"],
      ["b", "Healthy"],
      ["c", "Unknown"],
    ]) {
      await before.run(
        `INSERT INTO notify_snapshots (project, cluster_uid, project_uid, name, state, health, tags, updated_at)
         VALUES ('p1', ?, 'p1', ?, 'Running', ?, '[]', '2026-01-01T00:00:00.000Z')`,
        [uid!, uid!, health!],
      );
    }
    await before.close();
    const db = await openSqlite(file, MIGRATIONS);
    const since = await new NotifyEventLog(db).unhealthySince();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    expect([...since.keys()]).toEqual(["a"]);
    expect(since.get("a")?.exact).toBe(false);
    expect(Number.isNaN(Date.parse(since.get("a")!.since))).toBe(false);
  });

  it("migration 47 keeps the listing order rows already had (their rowid)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "listing-order-test-"));
    const file = join(dir, "state.db");
    const before = await openSqlite(
      file,
      MIGRATIONS.filter((m) => m.id < 47),
    );
    for (const uid of ["z", "m", "a"]) {
      await before.run(
        `INSERT INTO notify_snapshots (project, cluster_uid, project_uid, name, state, health, tags, updated_at)
         VALUES ('p1', ?, 'p1', ?, 'Running', 'Healthy', '[]', '2026-01-01T00:00:00.000Z')`,
        [uid, uid],
      );
    }
    await before.close();
    const db = await openSqlite(file, MIGRATIONS);
    const snapshots = new SnapshotStore(db);
    await snapshots.replace(
      "p1",
      await snapshots.load("p1"),
      [
        { uid: "z", name: "z", project: "p1", state: "Running", health: "Healthy", tags: [] },
        { uid: "b", name: "b", project: "p1", state: "Running", health: "Healthy", tags: [] },
        { uid: "m", name: "m", project: "p1", state: "Running", health: "Healthy", tags: [] },
        { uid: "a", name: "a", project: "p1", state: "Running", health: "Healthy", tags: [] },
      ],
      "2026-01-01T00:01:00.000Z",
    );
    const order = (await snapshots.all()).map((c) => c.uid);
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    expect(order).toEqual(["z", "m", "a", "b"]);
  });
});
