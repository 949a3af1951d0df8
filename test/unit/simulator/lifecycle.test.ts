import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { generateFleet } from "../../../src/simulator/fleet.ts";
import {
  clusterEvents,
  createAnimator,
  DEFAULT_LIFECYCLE,
} from "../../../src/simulator/lifecycle.ts";
import { SimState } from "../../../src/simulator/state.ts";

function setup() {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const fleet = generateFleet({ clusters: 12, projects: 2, seed: 1, now: clock.now() });
  const state = new SimState(fleet, clock, {
    pendingMs: 5_000,
    provisioningMs: 20_000,
    deletingMs: 10_000,
  });
  return { clock, fleet, state };
}

describe("lifecycle over a ManualClock", () => {
  it("a created cluster goes Pending → Provisioning → Running (Healthy)", () => {
    const { clock, state, fleet } = setup();
    const cluster = state.addCluster({
      name: "new-one",
      projectUid: fleet.projects[0]?.uid ?? "",
      provider: "aws",
      origin: "api",
    });
    expect(state.condition(cluster)).toEqual({ state: "Pending", health: "Unknown" });
    clock.advance(4_999);
    expect(state.condition(cluster).state).toBe("Pending");
    clock.advance(1);
    expect(state.condition(cluster).state).toBe("Provisioning");
    clock.advance(20_000);
    expect(state.condition(cluster)).toEqual({ state: "Running", health: "Healthy" });
    const reasons = clusterEvents(cluster, clock.now(), DEFAULT_LIFECYCLE).map((e) => e.reason);
    expect(reasons[0]).toBe("ClusterReady");
  });

  it("delete goes Deleting → Deleted", () => {
    const { clock, state, fleet } = setup();
    const cluster = fleet.clusters.find((c) => c.seedState === "Running");
    if (!cluster) throw new Error("fixture");
    state.deleteCluster(cluster);
    expect(state.condition(cluster).state).toBe("Deleting");
    clock.advance(10_000);
    expect(state.condition(cluster).state).toBe("Deleted");
    expect(state.nameTaken(cluster.projectUid, cluster.name)).toBe(false);
  });

  it("setState/setHealth override and leave an explaining event, newest first", () => {
    const { clock, state, fleet } = setup();
    const cluster = fleet.clusters.find(
      (c) => c.seedState === "Running" && c.seedHealth === "Healthy",
    );
    if (!cluster) throw new Error("fixture");
    clock.advance(1_000);
    state.setHealth(cluster.uid, "UnHealthy", "Node w-1 NotReady");
    expect(state.condition(cluster)).toEqual({
      state: "Running",
      health: "UnHealthy",
      reason: "Node w-1 NotReady",
    });
    clock.advance(1_000);
    state.setState(cluster.uid, "Failed");
    expect(state.view(cluster).state).toBe("Failed");
    const events = clusterEvents(cluster, clock.now(), DEFAULT_LIFECYCLE);
    expect(events[0]?.reason).toBe("ClusterFailed");
    expect(events[1]).toMatchObject({
      reason: "ClusterUnhealthy",
      message: "Node w-1 NotReady",
      severity: "Warning",
    });
    state.setHealth(cluster.uid, "Healthy");
    expect(state.condition(cluster).health).toBe("Healthy");
    expect(() => state.setHealth("nope", "Healthy")).toThrow(/no cluster/);
  });

  it("events added for the future are not visible before their time", () => {
    const { clock, state, fleet } = setup();
    const cluster = fleet.clusters[0];
    if (!cluster) throw new Error("fixture");
    state.addEvent(cluster.uid, { reason: "Custom", message: "hello" });
    const before = clusterEvents(cluster, clock.now() - 1, DEFAULT_LIFECYCLE).map((e) => e.reason);
    expect(before).not.toContain("Custom");
    expect(clusterEvents(cluster, clock.now(), DEFAULT_LIFECYCLE)[0]?.reason).toBe("Custom");
  });
});

describe("animator", () => {
  it("every tick changes a cluster and explains it with an event", () => {
    const { clock, fleet } = setup();
    const animator = createAnimator(fleet, clock, DEFAULT_LIFECYCLE);
    const eventsNow = () => fleet.clusters.reduce((n, c) => n + c.events.length, 0);
    const reasons = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const before = eventsNow();
      clock.advance(1_000);
      animator.tick();
      expect(eventsNow()).toBeGreaterThan(before);
      for (const c of fleet.clusters) for (const e of c.events) reasons.add(e.reason);
    }
    expect(reasons.has("ClusterUnhealthy")).toBe(true);
    expect(reasons.has("ClusterHealthy") || reasons.has("ClusterUpdating")).toBe(true);
  });
});
