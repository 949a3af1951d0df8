import { describe, expect, it } from "vitest";
import { PROVIDERS } from "../../../src/palette/providers-list.ts";
import { generateFleet } from "../../../src/simulator/fleet.ts";
import { clusterCondition, DEFAULT_LIFECYCLE } from "../../../src/simulator/lifecycle.ts";

const NOW = Date.UTC(2026, 0, 1);
const shape = (seed: number) =>
  generateFleet({ clusters: 200, projects: 3, seed, now: NOW }).clusters.map((c) => ({
    uid: c.uid,
    name: c.name,
    projectUid: c.projectUid,
    provider: c.provider,
    labels: c.labels,
    pools: c.pools,
    seedState: c.seedState,
    seedHealth: c.seedHealth,
  }));

describe("generateFleet", () => {
  it("gives the same fleet for the same seed and a different one for another seed", () => {
    expect(shape(42)).toEqual(shape(42));
    expect(shape(43)).not.toEqual(shape(42));
  });

  it("spreads clusters over every provider and project, mostly Running and Healthy", () => {
    const fleet = generateFleet({ clusters: 220, projects: 4, seed: 3, now: NOW });
    expect(new Set(fleet.clusters.map((c) => c.provider))).toEqual(new Set(PROVIDERS));
    expect(new Set(fleet.clusters.map((c) => c.projectUid)).size).toBe(4);
    const conditions = fleet.clusters.map((c) => clusterCondition(c, NOW, DEFAULT_LIFECYCLE));
    const healthy = conditions.filter((c) => c.state === "Running" && c.health === "Healthy");
    const unhealthy = conditions.filter((c) => c.health === "UnHealthy");
    expect(healthy.length / conditions.length).toBeGreaterThan(0.75);
    expect(unhealthy.length).toBeGreaterThan(0);
    expect(unhealthy.every((c) => (c.reason ?? "").length > 0)).toBe(true);
  });

  it("keeps cluster names unique within a project and uids unique overall", () => {
    const fleet = generateFleet({ clusters: 3000, projects: 3, seed: 5, now: NOW });
    const keys = fleet.clusters.map((c) => `${c.projectUid}/${c.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(fleet.byUid.size).toBe(3000);
  });

  it("tags clusters with plain tags (spectro__tag) and key:value labels", () => {
    const fleet = generateFleet({ clusters: 50, projects: 2, seed: 9, now: NOW });
    for (const cluster of fleet.clusters) {
      const plain = Object.entries(cluster.labels).filter(([, v]) => v === "spectro__tag");
      expect(plain.length).toBeGreaterThan(0);
      expect(cluster.labels.team).toBeTruthy();
    }
  });

  // how long it takes is a benchmark's question (`npm run bench -- simulator`), not a test's
  it("generates a fleet of 10,000 clusters over every project it was asked for", () => {
    const fleet = generateFleet({ clusters: 10_000, projects: 5, seed: 1, now: NOW });
    expect(fleet.clusters).toHaveLength(10_000);
    expect(new Set(fleet.clusters.map((cluster) => cluster.projectUid)).size).toBe(5);
  });
});
