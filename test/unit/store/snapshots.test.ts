import { afterEach, describe, expect, it } from "vitest";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { ReconcileStaging } from "../../../src/store/staging.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

const snap = (uid: string, over: Partial<ClusterSnap> = {}): ClusterSnap => ({
  uid,
  name: `c-${uid}`,
  project: "p1",
  state: "Running",
  health: "Healthy",
  tags: ["env:dev"],
  ...over,
});

afterEach(closeOpened);

describe.each(BACKENDS)("on $name", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (backend) => {
  async function storeWith(clusters: ClusterSnap[], scope = "p1") {
    const db = await backend.open();
    const store = new SnapshotStore(db);
    await store.replace(scope, new Map(), clusters, "2026-01-01T00:00:00.000Z");
    return { db, store };
  }

  describe("SnapshotStore", () => {
    it("reads the whole fleet sharing what repeats: one frozen tag list per distinct set", async () => {
      const { store } = await storeWith([
        snap("a"),
        snap("b"),
        snap("c", { tags: ["team:core"] }),
        snap("d", { tags: [] }),
      ]);
      const [a, b, c, d] = await store.all();
      expect([a, b, c, d].map((x) => x?.tags)).toEqual([
        ["env:dev"],
        ["env:dev"],
        ["team:core"],
        [],
      ]);
      expect(a!.tags).toBe(b!.tags);
      expect(Object.isFrozen(a!.tags)).toBe(true);
      expect(() => a!.tags.push("x")).toThrow(TypeError);
      expect(await store.inScopes(["p1"])).toEqual(await store.all());
    });

    it("visits every cluster of every scope once, a batch at a time, in the order all() gives", async () => {
      const { db, store } = await storeWith(
        Array.from({ length: 7 }, (_, i) => snap(`a${i}`)),
        "p1",
      );
      await new SnapshotStore(db).replace(
        "p2",
        new Map(),
        Array.from({ length: 5 }, (_, i) => snap(`b${i}`, { project: "p2" })),
        "2026-01-01T00:00:00.000Z",
      );
      const visited: string[] = [];
      await store.forEach((cluster) => {
        visited.push(cluster.uid);
      }, 3);
      expect(visited).toEqual((await store.all()).map((cluster) => cluster.uid));
      expect(new Set(visited).size).toBe(12);
    });

    it("finds the clusters an incremental poll expects: those not Running and Healthy", async () => {
      const { store } = await storeWith([
        snap("a"),
        snap("b", { health: "UnHealthy" }),
        snap("c", { state: "Provisioning", health: "" }),
        snap("d", { health: "healthy" }),
      ]);
      expect([...(await store.unsteady("p1")).keys()]).toEqual(["b", "c", "d"]);
      expect((await store.unhealthy("p1")).map((c) => c.uid)).toEqual(["b"]);
      expect([...(await store.byUids("p1", ["d", "a", "zz"])).keys()].sort()).toEqual(["a", "d"]);
      expect(await store.count(["p1", "p2"])).toBe(4);
    });
  });

  it("finds a cluster by UID alone through an index (the key leads with the project)", async () => {
    const { db, store } = await storeWith([snap("a"), snap("b")]);
    await store.replace(
      "p2",
      new Map(),
      [snap("c", { project: "p2" })],
      "2026-01-01T00:00:00.000Z",
    );
    expect((await store.byUid("c"))?.project).toBe("p2");
    const query =
      "SELECT * FROM notify_snapshots WHERE cluster_uid = ? ORDER BY updated_at DESC LIMIT 1";
    const plan =
      backend.name === "sqlite"
        ? await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`, ["c"])
        : // a tiny table is scanned anyway unless the planner is told not to
          await db.transaction(async (tx) => {
            await tx.run("SET LOCAL enable_seqscan = off");
            return tx.all<Record<string, string>>(`EXPLAIN ${query}`, ["c"]);
          });
    expect(JSON.stringify(plan)).toContain("notify_snapshots_uid");
  });

  describe("ReconcileStaging", () => {
    it("moves only changed rows into the snapshot, in listing order, and clears itself", async () => {
      const { db, store } = await storeWith([snap("a"), snap("b"), snap("gone")]);
      const staging = new ReconcileStaging(db);
      await staging.add("p1", [
        { cluster: snap("new-2"), changed: true },
        { cluster: snap("a", { state: "Upgrading" }), changed: true },
        { cluster: snap("b"), changed: false },
        { cluster: snap("new-1"), changed: true },
      ]);
      expect(await staging.listed("p1", ["a", "gone", "new-1"])).toEqual(new Set(["a", "new-1"]));
      expect((await staging.unlisted("p1")).map((c) => c.uid)).toEqual(["gone"]);
      await staging.apply("p1", ["gone"], "2026-01-01T00:01:00.000Z");
      expect((await store.all()).map((c) => `${c.uid}:${c.state}`)).toEqual([
        "a:Upgrading",
        "b:Running",
        "new-2:Running",
        "new-1:Running",
      ]);
      const untouched = (await db.get(
        "SELECT updated_at FROM notify_snapshots WHERE cluster_uid = 'b'",
      )) as { updated_at: string };
      expect(untouched.updated_at).toBe("2026-01-01T00:00:00.000Z");
      expect(await db.get("SELECT COUNT(*) AS n FROM notify_reconcile_staging")).toEqual({
        n: 0,
      });
    });
  });

  describe("listing order, kept by an explicit column (no rowid)", () => {
    it("keeps the order clusters were first stored across updates, and gives their positions", async () => {
      const { store } = await storeWith([snap("z"), snap("m"), snap("a")]);
      const previous = await store.load("p1");
      await store.replace(
        "p1",
        previous,
        [
          snap("a", { health: "UnHealthy" }),
          snap("q"),
          snap("z", { state: "Deleting" }),
          snap("m"),
        ],
        "2026-01-01T00:01:00.000Z",
      );
      expect((await store.all()).map((c) => c.uid)).toEqual(["z", "m", "a", "q"]);
      expect([...(await store.load("p1")).keys()]).toEqual(["z", "m", "a", "q"]);
      expect([...(await store.unsteady("p1")).keys()]).toEqual(["z", "a"]);
      const positions = await store.positions("p1", ["q", "a", "z", "m", "nope"]);
      expect([...positions.keys()].sort((x, y) => positions.get(x)! - positions.get(y)!)).toEqual([
        "z",
        "m",
        "a",
        "q",
      ]);
      expect(positions.has("nope")).toBe(false);
    });

    it("pages through staging in listing order, a batch at a time, and applies in that order", async () => {
      const { db, store } = await storeWith([snap("k")]);
      const staging = new ReconcileStaging(db);
      const uids = ["y", "b", "x", "k", "c", "w", "a"];
      await staging.add(
        "p1",
        uids
          .slice(0, 4)
          .map((uid) => ({ cluster: snap(uid, { health: "UnHealthy" }), changed: true })),
      );
      await staging.add(
        "p1",
        uids
          .slice(4)
          .map((uid) => ({ cluster: snap(uid, { health: "UnHealthy" }), changed: true })),
      );
      // listed again (a page boundary): it keeps its first place
      await staging.add("p1", [{ cluster: snap("b", { health: "UnHealthy" }), changed: true }]);
      const seen: string[] = [];
      await staging.forEach("p1", (c) => seen.push(c.uid), 2);
      expect(seen).toEqual(uids);
      expect((await staging.unhealthy("p1")).map((c) => c.uid)).toEqual(uids);
      await staging.apply("p1", [], "2026-01-01T00:01:00.000Z");
      expect((await store.all()).map((c) => c.uid)).toEqual(["k", "y", "b", "x", "c", "w", "a"]);
    });
  });
});
