import { afterEach, describe, expect, it } from "vitest";
import { paletteReadiness } from "../../src/app/palette-readiness.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";

/**
 * Deletions and refused alert kinds against the simulator, through the real Palette client: a
 * deleted cluster leaves the listing (every search asks isDeleted = false) and is confirmed by
 * GET by UID, which still reads it as Deleted.
 */
let h: NotifyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const textOf = (body: Record<string, unknown>) => JSON.stringify(body.blocks ?? body.text);

const runningIn = (harness: NotifyHarness, project: string) =>
  harness.sim.control
    .clusters(project)
    .filter((c) => c.state === "Running" && c.health === "Healthy");

describe("notifications: scope and refusals", () => {
  it("in tenant scope, tells a channel subscribed to project X that X's cluster was deleted", async () => {
    h = await startNotifyHarness({ pollProjects: [] });
    const [p1, p2] = h.sim.control.projects();
    await h.subs.add({ channel: "C1", kind: "clusters", project: p1, createdBy: "U1" });
    await h.subs.add({ channel: "C2", kind: "clusters", project: p2, createdBy: "U1" });
    await h.cycle();
    expect(h.posts("C1")).toHaveLength(1);
    const target = runningIn(h, p1!)[0]!;
    h.sim.control.setState(target.uid, "Deleted");
    // straight to Deleted, never Deleting: only a reconciliation's full listing misses it
    h.poller.requestReconcile();
    await h.cycle();
    const posts = h.posts("C1");
    expect(posts).toHaveLength(2);
    expect(textOf(posts[1]!)).toContain("is gone (Deleted)");
    expect(textOf(posts[1]!)).toContain(target.uid);
    expect(h.posts("C2")).toHaveLength(1);
    // confirmed by UID in the cluster's own project, and said once
    const lookups = h.sim.control
      .requests()
      .filter((r) => r.path.startsWith("/v1/spectroclusters/"));
    expect(lookups.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/spectroclusters/${target.uid}`,
    ]);
    await h.cycle();
    expect(h.posts("C1")).toHaveLength(2);
  });

  it("keeps reporting cluster changes while Palette refuses the alert kinds, and readiness says so", async () => {
    h = await startNotifyHarness();
    const [p1, p2] = h.sim.control.projects();
    h.sim.control.addFault({ pathPrefix: "/v1/projects/alerts", kind: "status", status: 403 });
    await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
    await h.cycle();
    const readiness = paletteReadiness(h.poller);
    const probe = readiness.poll();
    expect(probe).toEqual({
      ok: false,
      reason: `alerts unavailable for project ${p1}: Palette refused (403); alerts unavailable for project ${p2}: Palette refused (403)`,
    });
    expect(JSON.stringify(probe)).not.toContain("injected fault");
    expect(textOf(h.posts("C1")[0]!)).toContain("Watching");

    const target = runningIn(h, p2!)[0]!;
    h.sim.control.setState(target.uid, "Upgrading");
    await h.cycle();
    expect(h.posts("C1")).toHaveLength(2);
    expect(textOf(h.posts("C1")[1]!)).toContain("Upgrading");
    expect(h.poller.metrics().lastCycleOk).toBe(true);

    h.sim.control.clearFaults();
    await h.cycle();
    expect(readiness.poll()).toEqual({ ok: true });
  });
});
