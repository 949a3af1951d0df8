import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { generateFleet } from "../../../src/simulator/fleet.ts";
import { clusterCondition, DEFAULT_LIFECYCLE } from "../../../src/simulator/lifecycle.ts";
import { clusterObject } from "../../../src/simulator/render.ts";

const NOW = Date.UTC(2026, 0, 1);

describe("soft-deleted clusters in a seeded fleet", () => {
  const fleet = generateFleet({ clusters: 60, projects: 3, seed: 4, now: NOW, softDeleted: 4 });
  const condition = (uid: string) =>
    clusterCondition(fleet.byUid.get(uid)!, NOW, DEFAULT_LIFECYCLE);
  const deleted = fleet.clusters.filter((c) => condition(c.uid).state === "Deleted");

  it("adds them besides the live clusters, which stay as without them", () => {
    expect(fleet.clusters).toHaveLength(64);
    expect(deleted).toHaveLength(4);
    const without = generateFleet({ clusters: 60, projects: 3, seed: 4, now: NOW });
    expect(fleet.clusters.slice(0, 60).map((c) => c.uid)).toEqual(
      without.clusters.map((c) => c.uid),
    );
    expect(without.clusters.every((c) => condition(c.uid).state !== "Deleted")).toBe(true);
  });

  it("keeps the record as Palette does: state Deleted, deletionTimestamp set", () => {
    for (const cluster of deleted) {
      const object = clusterObject(fleet, cluster, condition(cluster.uid), NOW);
      expect(object.status.state).toBe("Deleted");
      expect(Date.parse(object.metadata.deletionTimestamp ?? "")).toBeLessThan(NOW);
    }
  });

  it("has a deleted twin with the name of a live, Running and Healthy cluster", () => {
    const twin = deleted[0]!;
    const live = fleet.clusters.find(
      (c) => c.uid !== twin.uid && c.name === twin.name && c.projectUid === twin.projectUid,
    );
    expect(live).toBeDefined();
    expect(condition(live!.uid)).toMatchObject({ state: "Running", health: "Healthy" });
    const names = new Set(fleet.clusters.slice(0, 60).map((c) => `${c.projectUid}/${c.name}`));
    expect(deleted.slice(1).every((c) => !names.has(`${c.projectUid}/${c.name}`))).toBe(true);
  });

  it("stays Deleted whatever the clock says", () => {
    const clock = new ManualClock(NOW);
    clock.advance(30 * 24 * 60 * 60 * 1000);
    for (const cluster of deleted) {
      expect(clusterCondition(cluster, clock.now(), DEFAULT_LIFECYCLE).state).toBe("Deleted");
    }
  });
});

describe("--unhealthy", () => {
  it("seeds that fraction of clusters other than Running and Healthy", () => {
    for (const unhealthy of [0, 0.3, 1]) {
      const fleet = generateFleet({ clusters: 4000, projects: 3, seed: 2, now: NOW, unhealthy });
      const off = fleet.clusters.filter((c) => {
        const now = clusterCondition(c, NOW, DEFAULT_LIFECYCLE);
        return now.state !== "Running" || now.health !== "Healthy";
      }).length;
      expect(off / 4000).toBeCloseTo(unhealthy, 1);
    }
  });
});
