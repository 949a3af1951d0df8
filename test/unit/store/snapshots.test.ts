import { describe, expect, it } from "vitest";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import { openDb } from "../../../src/store/db.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { ReconcileStaging } from "../../../src/store/staging.ts";

const snap = (uid: string, over: Partial<ClusterSnap> = {}): ClusterSnap => ({
  uid,
  name: `c-${uid}`,
  project: "p1",
  state: "Running",
  health: "Healthy",
  tags: ["env:dev"],
  ...over,
});

function storeWith(clusters: ClusterSnap[], scope = "p1") {
  const db = openDb(":memory:");
  const store = new SnapshotStore(db);
  store.replace(scope, new Map(), clusters, "2026-01-01T00:00:00.000Z");
  return { db, store };
}

describe("SnapshotStore", () => {
  it("reads the whole fleet sharing what repeats: one frozen tag list per distinct set", () => {
    const { store } = storeWith([
      snap("a"),
      snap("b"),
      snap("c", { tags: ["team:core"] }),
      snap("d", { tags: [] }),
    ]);
    const [a, b, c, d] = store.all();
    expect([a, b, c, d].map((x) => x?.tags)).toEqual([["env:dev"], ["env:dev"], ["team:core"], []]);
    expect(a!.tags).toBe(b!.tags);
    expect(Object.isFrozen(a!.tags)).toBe(true);
    expect(() => a!.tags.push("x")).toThrow(TypeError);
    expect(store.inScopes(["p1"])).toEqual(store.all());
  });

  it("finds the clusters an incremental poll expects: those not Running and Healthy", () => {
    const { store } = storeWith([
      snap("a"),
      snap("b", { health: "UnHealthy" }),
      snap("c", { state: "Provisioning", health: "" }),
      snap("d", { health: "healthy" }),
    ]);
    expect([...store.unsteady("p1").keys()]).toEqual(["b", "c", "d"]);
    expect(store.unhealthy("p1").map((c) => c.uid)).toEqual(["b"]);
    expect([...store.byUids("p1", ["d", "a", "zz"]).keys()].sort()).toEqual(["a", "d"]);
    expect(store.count(["p1", "p2"])).toBe(4);
  });
});

describe("ReconcileStaging", () => {
  it("moves only changed rows into the snapshot, in listing order, and clears itself", () => {
    const { db, store } = storeWith([snap("a"), snap("b"), snap("gone")]);
    const staging = new ReconcileStaging(db);
    staging.add("p1", [
      { cluster: snap("new-2"), changed: true },
      { cluster: snap("a", { state: "Upgrading" }), changed: true },
      { cluster: snap("b"), changed: false },
      { cluster: snap("new-1"), changed: true },
    ]);
    expect(staging.listed("p1", ["a", "gone", "new-1"])).toEqual(new Set(["a", "new-1"]));
    expect(staging.unlisted("p1").map((c) => c.uid)).toEqual(["gone"]);
    staging.apply("p1", ["gone"], "2026-01-01T00:01:00.000Z");
    expect(store.all().map((c) => `${c.uid}:${c.state}`)).toEqual([
      "a:Upgrading",
      "b:Running",
      "new-2:Running",
      "new-1:Running",
    ]);
    const untouched = db
      .prepare("SELECT updated_at FROM notify_snapshots WHERE cluster_uid = 'b'")
      .get() as { updated_at: string };
    expect(untouched.updated_at).toBe("2026-01-01T00:00:00.000Z");
    expect(db.prepare("SELECT COUNT(*) AS n FROM notify_reconcile_staging").get()).toEqual({
      n: 0,
    });
  });
});
