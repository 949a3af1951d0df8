import { afterEach, describe, expect, it } from "vitest";
import type { CycleResult } from "../../src/notify/poll/poll.ts";
import type { FleetCluster } from "../../src/simulator/types.ts";
import { BACKENDS } from "../support/backends.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";

/**
 * The incremental poll against the simulator, through the real Palette client: between
 * reconciliations each cycle asks only for clusters that are not Running and Healthy and confirms
 * the ones that left that set; a reconciliation (the first cycle, then RECONCILE_SCHEDULE) lists
 * everything. 400 clusters in 2 projects: a full listing is 4 search pages per project, so a
 * steady cycle that lists everything cannot pass for an incremental one.
 */
let h: NotifyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const FLEET = { clusters: 400, projects: 2, seed: 11, unhealthy: 0.02 };

const textOf = (body: Record<string, unknown>) => JSON.stringify(body.blocks ?? body.text);

const steady = (harness: NotifyHarness): FleetCluster[] =>
  harness.sim.control.clusters().filter((c) => c.state === "Running" && c.health === "Healthy");

/** One cycle, its outbox delivered; the clock then moves on to the next tick. */
async function poll(harness: NotifyHarness): Promise<CycleResult> {
  const result = await harness.poller.runCycle();
  expect(result.ok).toBe(true);
  await harness.sender.drainAll(10_000);
  harness.clock.advance(30_000);
  return result;
}

/** The Palette requests one cycle makes. */
async function requestsOf(harness: NotifyHarness) {
  harness.sim.control.clearRequests();
  const result = await poll(harness);
  return { result, requests: harness.sim.control.requests() };
}

const mentioning = (harness: NotifyHarness, channel: string, text: string) =>
  harness.posts(channel).filter((post) => textOf(post).includes(text));

describe.each(BACKENDS)("on $name", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (backend) => {
  describe("incremental poll against the simulator", () => {
    it("announces a recovery between two incremental cycles once, found by its own look-up", async () => {
      h = await startNotifyHarness({ ...FLEET, openDb: await backend.database() });
      await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
      const baseline = await poll(h);
      const target = steady(h)[0]!;
      h.sim.control.setHealth(target.uid, "UnHealthy", "kubelet stopped posting status");
      const lost = await poll(h);
      expect(mentioning(h, "C1", "Health lost")).toHaveLength(1);

      h.sim.control.setHealth(target.uid, "Healthy");
      const { result, requests } = await requestsOf(h);
      const recovered = mentioning(h, "C1", "Health recovered");
      expect(recovered).toHaveLength(1);
      expect(textOf(recovered[0]!)).toContain("ClusterHealth alert resolved");
      // it left the not-steady set: the two searches per project, plus one name search that
      // confirmed it (no full listing, no GET)
      const searches = requests.filter((r) => r.path === "/v1/dashboard/spectroclusters/search");
      expect(searches).toHaveLength(2 * 2 + 1);
      expect(requests.filter((r) => r.path.startsWith("/v1/spectroclusters/"))).toEqual([]);
      expect([baseline.kind, lost.kind, result.kind]).toEqual([
        "reconcile",
        "incremental",
        "incremental",
      ]);

      for (let i = 0; i < 3; i++) await poll(h);
      expect(mentioning(h, "C1", "Health recovered")).toHaveLength(1);
      expect(mentioning(h, "C1", "alert resolved")).toHaveLength(1);
    });

    it("catches a deletion that skipped Deleting at the next reconciliation, once", async () => {
      h = await startNotifyHarness({ ...FLEET, openDb: await backend.database() });
      await h.subs.add({ channel: "C1", kind: "clusters", createdBy: "U1" });
      await poll(h);
      const target = steady(h)[0]!;
      h.sim.control.setState(target.uid, "Deleted");
      // it was Running and Healthy: the incremental query has nothing to say about it
      await poll(h);
      expect(mentioning(h, "C1", target.uid)).toEqual([]);

      h.poller.requestReconcile();
      h.sim.control.clearRequests();
      const reconciled = await poll(h);
      expect(reconciled.kind).toBe("reconcile");
      const gone = mentioning(h, "C1", target.uid);
      expect(gone).toHaveLength(1);
      expect(textOf(gone[0]!)).toContain("is gone (Deleted)");
      // absence is not deletion: a GET by UID confirmed it
      expect(
        h.sim.control
          .requests()
          .filter((r) => r.path.startsWith("/v1/spectroclusters/"))
          .map((r) => `${r.method} ${r.path}`),
      ).toEqual([`GET /v1/spectroclusters/${target.uid}`]);
      expect(h.poller.metrics()).toMatchObject({ reconcileCycles: 2, lastCycleKind: "reconcile" });

      await poll(h);
      h.poller.requestReconcile();
      await poll(h);
      expect(mentioning(h, "C1", target.uid)).toHaveLength(1);
    });

    it("finds a cluster imported already Running and Healthy at the next reconciliation, as new", async () => {
      h = await startNotifyHarness({ ...FLEET, openDb: await backend.database() });
      await h.subs.add({ channel: "C1", kind: "clusters", createdBy: "U1" });
      await poll(h);
      const [project] = h.sim.control.projects();
      const imported = h.sim.control.addCluster({
        name: "imported-edge-7",
        projectUid: project!,
        provider: "aws",
      });
      expect(imported).toMatchObject({ state: "Running", health: "Healthy" });
      await poll(h);
      expect(mentioning(h, "C1", "imported-edge-7")).toEqual([]);

      h.poller.requestReconcile();
      expect((await poll(h)).kind).toBe("reconcile");
      const news = mentioning(h, "C1", "imported-edge-7");
      expect(news).toHaveLength(1);
      expect(textOf(news[0]!)).toContain("New cluster imported-edge-7");

      await poll(h);
      h.poller.requestReconcile();
      await poll(h);
      expect(mentioning(h, "C1", "imported-edge-7")).toHaveLength(1);
    });

    it("makes at most 3 Palette calls per project in a steady incremental cycle", async () => {
      h = await startNotifyHarness({ ...FLEET, openDb: await backend.database() });
      await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
      const projects = h.sim.control.projects().length;
      const first = await requestsOf(h);
      expect(first.requests.length).toBeGreaterThan(4 * projects);

      const { result, requests } = await requestsOf(h);
      expect(requests.length).toBeLessThanOrEqual(3 * projects);
      expect([first.result.kind, result.kind]).toEqual(["reconcile", "incremental"]);
      expect(requests.every((r) => r.status === 200)).toBe(true);
      // the poller counts the same calls, and says which kind of cycle it ran
      expect(result.paletteCalls).toBe(requests.length);
      expect(h.poller.metrics()).toMatchObject({
        lastCycleKind: "incremental",
        lastCyclePaletteCalls: requests.length,
        incrementalCycles: 1,
        reconcileCycles: 1,
      });
      expect(h.posts("C1")).toHaveLength(1); // the baseline summary, nothing since
    });
  });
});
