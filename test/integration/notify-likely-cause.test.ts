import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";

/**
 * The likely-cause line of a health-loss notification (issue 27): the real poller and sender,
 * the real client, the simulator's audit log and events, one clock for all of them.
 */

const opened: NotifyHarness[] = [];
afterEach(async () => {
  for (const h of opened.splice(0)) await h.close();
});

async function start(): Promise<NotifyHarness> {
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
  const h = await startNotifyHarness({
    clock,
    clusters: 40,
    projects: 2,
    seed: 11,
    unhealthy: 0,
    softDeleted: 0,
    likelyCauses: true,
  });
  opened.push(h);
  await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
  await h.cycle();
  return h;
}

const healthy = (h: NotifyHarness) =>
  h.sim.control.clusters().filter((c) => c.state === "Running" && c.health === "Healthy");

const texts = (h: NotifyHarness, from = 0) =>
  h
    .posts("C1")
    .slice(from)
    .map((post) => JSON.stringify(post));

const callsTo = (h: NotifyHarness, prefix: string) =>
  h.sim.control.requests().filter((request) => request.path.startsWith(prefix));

describe("the likely cause in a health-loss notification", () => {
  it("names the write by another Palette user in the hour before; with no write, the warning event; two reads a cluster", async () => {
    const h = await start();
    const [changed, quiet] = healthy(h);
    h.clock.advance(5 * 60_000);
    h.sim.control.addAudit({
      clusterUid: changed!.uid,
      actionType: "update",
      actionMsg: "Cluster profile 'web-base' updated to 1.4.0 <!here>",
      email: "editor@example.com",
    });
    h.clock.advance(5 * 60_000);
    h.sim.control.setHealth(changed!.uid, "UnHealthy", "kubelet stopped posting node status");
    let before = h.posts("C1").length;
    h.sim.control.clearRequests();
    await h.cycle();
    let posted = texts(h, before).join("\n");
    expect(posted).toContain(changed!.name);
    expect(posted).toContain(
      "Likely cause: update by Eddie Editor at 12:05 UTC — Cluster profile 'web-base' updated to 1.4.0 &lt;!here&gt;",
    );
    expect(posted).not.toContain("<!here>");
    // its audit, narrowed to the cluster and the hour: one call
    const [audit] = callsTo(h, "/v1/audits");
    expect(callsTo(h, "/v1/audits")).toHaveLength(1);
    expect(audit!.status).toBe(200);

    h.clock.advance(10 * 60_000);
    h.sim.control.setHealth(quiet!.uid, "UnHealthy", "etcd lost quorum");
    before = h.posts("C1").length;
    h.sim.control.clearRequests();
    await h.cycle();
    posted = texts(h, before).join("\n");
    expect(posted).toContain(quiet!.name);
    const lost = new Date(h.clock.now() - 30_000).toISOString().slice(11, 16);
    expect(posted).toContain(
      `Likely cause: no change recorded before it; the warning event ClusterUnhealthy at ${lost} UTC began it — etcd lost quorum`,
    );
    expect(callsTo(h, "/v1/audits")).toHaveLength(1);
  });

  it("a storm's roll-up reads nothing per cluster and says so", async () => {
    const h = await start();
    const many = healthy(h).slice(0, 12);
    expect(many).toHaveLength(12);
    h.clock.advance(60_000);
    for (const cluster of many) h.sim.control.setHealth(cluster.uid, "UnHealthy", "zone outage");
    const before = h.posts("C1").length;
    h.sim.control.clearRequests();
    await h.cycle();
    const posted = texts(h, before);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toContain("12 clusters changed");
    expect(posted[0]).toContain("likely causes are not read for a roll-up");
    expect(callsTo(h, "/v1/audits")).toEqual([]);
  });
});
