import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { createChurn } from "../../../src/simulator/churn.ts";
import { generateFleet } from "../../../src/simulator/fleet.ts";
import { clusterCondition, DEFAULT_LIFECYCLE } from "../../../src/simulator/lifecycle.ts";

function world(perMinute: number, targetUnhealthy?: number) {
  const clock = new ManualClock();
  const fleet = generateFleet({ clusters: 400, projects: 2, seed: 8, now: clock.now() });
  const churn = createChurn(fleet, clock, DEFAULT_LIFECYCLE, {
    perMinute,
    ...(targetUnhealthy !== undefined ? { targetUnhealthy } : {}),
  });
  const picture = () =>
    fleet.clusters.map((c) => clusterCondition(c, clock.now(), DEFAULT_LIFECYCLE));
  return { clock, fleet, churn, picture };
}

describe("churn", () => {
  it("applies the changes due on the simulator's clock, none without time passing", () => {
    const { clock, churn, picture } = world(60);
    const before = JSON.stringify(picture());
    expect(churn.catchUp()).toBe(0);
    clock.advance(999);
    expect(churn.catchUp()).toBe(0);
    expect(JSON.stringify(picture())).toBe(before);
    clock.advance(1);
    expect(churn.catchUp()).toBe(1);
    clock.advance(59_000);
    expect(churn.catchUp()).toBe(59);
    expect(churn.applied()).toBe(60);
    expect(JSON.stringify(picture())).not.toBe(before);
  });

  it("changes health and state, each with an event", () => {
    const { clock, fleet, churn } = world(600);
    const eventsBefore = fleet.clusters.reduce((sum, c) => sum + c.events.length, 0);
    clock.advance(60_000);
    expect(churn.catchUp()).toBe(600);
    const eventsAfter = fleet.clusters.reduce((sum, c) => sum + c.events.length, 0);
    expect(eventsAfter - eventsBefore).toBeGreaterThanOrEqual(550);
    const reasons = new Set(fleet.clusters.flatMap((c) => c.events.map((e) => e.reason)));
    expect(reasons).toContain("ClusterUnhealthy");
    expect(reasons).toContain("ClusterHealthy");
    expect(reasons).toContain("ClusterUpdating");
  });

  it("finishes updates by themselves and settles near the target unhealthy share", () => {
    const { clock, churn, picture } = world(600, 0.2);
    for (let minute = 0; minute < 10; minute++) {
      clock.advance(60_000);
      churn.catchUp();
    }
    const now = picture();
    const updating = now.filter((c) => c.state === "Updating").length;
    expect(updating).toBeGreaterThan(0);
    expect(updating).toBeLessThan(100);
    const running = now.filter((c) => c.state === "Running");
    const unhealthy = running.filter((c) => c.health !== "Healthy").length / running.length;
    expect(unhealthy).toBeGreaterThan(0.1);
    expect(unhealthy).toBeLessThan(0.3);
  });

  it("skips, rather than queues, changes beyond one batch after a long jump", () => {
    const { clock, churn } = world(60_000);
    clock.advance(60 * 60_000);
    expect(churn.catchUp()).toBe(10_000);
    clock.advance(1);
    expect(churn.catchUp()).toBe(1);
  });
});
