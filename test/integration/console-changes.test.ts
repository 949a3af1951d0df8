import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { consoleTranscript } from "../support/console-session.ts";

/**
 * Day-2 at the console (as `npm run demo` runs it): the confirmation as a question, the card
 * printed and followed, a freeze refusing; the renderings docs/changes.md shows.
 */

let sim: RunningSimulator;
const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));

beforeAll(async () => {
  sim = await startSimulator({
    clusters: 10,
    seed: 5,
    clock,
    lifecycle: { provisioningMs: 4_000 },
  });
});
afterAll(async () => sim?.close());

function consoleRun(lines: string[], approvals?: string[]): Promise<string> {
  return consoleTranscript(sim, lines, {
    clock,
    ...(approvals ? { approvals: { verbs: approvals, ttlMs: 30 * 60_000 } } : {}),
  });
}

function addAws(name: string) {
  return sim.control.addCluster({
    name,
    projectUid: sim.control.projects()[0]!,
    provider: "aws",
    pools: [
      { name: "cp-pool", size: 1, isControlPlane: true, instanceType: "m5.large" },
      { name: "worker-pool", size: 3, isControlPlane: false, instanceType: "m5.xlarge" },
    ],
  });
}

describe("day-2 at the console", () => {
  it("scale: the confirmation, yes, one PUT, the card; a freeze then refuses the next change", async () => {
    addAws("console-scale");
    sim.control.clearRequests();
    const out = await consoleRun([
      "scale console-scale worker-pool 5",
      "yes",
      "freeze console-scale until 1h release train",
      "scale console-scale worker-pool 6",
    ]);
    expect(out).toContain("You are about to scale `worker-pool` of console-scale 3 → 5.");
    expect(out).toContain("Pool `worker-pool`: 3 → 5 nodes");
    expect(out).toContain("⏳ Scaling `worker-pool` of console-scale 3 → 5 … Palette accepted it");
    // then the cluster's story as `why` tells it: Palette's audit names the acting account, the
    // bot's record the requester
    expect(out).toContain("What changed and who did it (/palette why console-scale):");
    expect(out).toContain("Why: console-scale");
    expect(out).toContain("Machine pool 'worker-pool' of cluster 'console-scale' updated: size 5");
    expect(out).toContain("bot@example.com");
    expect(out).toContain("scale worker-pool 3 → 5");
    expect(out).toContain("Changes to console-scale are frozen by");
    expect(out).toContain("release train");
    const puts = sim.control.requests().filter((r) => r.method === "PUT");
    expect(puts).toHaveLength(1);
    // the follower's last round as the console closes: the new machines are still provisioning
    expect(out).toContain("3 of 5 Running");
  });

  it("a wrong answer changes nothing; delete asks for the name", async () => {
    const cluster = addAws("console-keep");
    sim.control.clearRequests();
    const out = await consoleRun([
      "delete console-keep",
      "console-kep",
      "scale console-keep worker-pool 4",
      "no",
    ]);
    expect(out).toContain("Type console-keep to confirm:");
    expect(out).toContain("Not the cluster's name: nothing changed.");
    expect(out).toContain("Cancelled: nothing changed.");
    expect(sim.control.requests().filter((r) => r.method !== "GET" && r.method !== "POST")).toEqual(
      [],
    );
    expect(sim.control.clusters().find((c) => c.uid === cluster.uid)?.state).toBe("Running");
  });

  it("with APPROVAL_REQUIRED the console prints the request card and sends nothing", async () => {
    addAws("console-approve");
    sim.control.clearRequests();
    const out = await consoleRun(["delete console-approve", "console-approve"], ["delete"]);
    expect(out).toContain("Change needs approval");
    expect(out).toContain("[Approve] [Reject]");
    expect(sim.control.requests().filter((r) => r.method === "DELETE")).toEqual([]);
  });
});
