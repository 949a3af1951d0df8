import { describe, expect, it } from "vitest";
import { paletteReadiness } from "../../../src/app/palette-readiness.ts";
import { ManualClock } from "../../../src/clock.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { createPoller } from "../../../src/notify/poll/poll.ts";
import type { Scope } from "../../../src/palette/api.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { type PollCluster, pollPalette } from "../../support/fake-palette.ts";
import { collectingLogger } from "../../support/palette-client-helpers.ts";
import { openMemoryDb } from "../../support/store.ts";

/**
 * A project whose alert kinds Palette refuses (403) still has its cluster changes reported; its
 * alerts are said to be unavailable once (log and readiness), and come back silently.
 */
const BODY = "role spectro-viewer lacks alert.read on project p2";

function refusal() {
  return new PaletteError("forbidden", 403, "Forbidden", BODY, "ref-9", "GET /v1/projects/alerts");
}

async function setup(clusters: PollCluster[], projects: string[]) {
  const db = await openMemoryDb();
  const clock = new ManualClock();
  const palette = pollPalette(clusters);
  palette.alertComponents = [{ name: "ClusterHealth" }];
  const refused = new Set<string>();
  palette.failOn("listAlertComponents", (args: unknown[]) =>
    refused.has((args[0] as Scope).projectUid ?? "") ? refusal() : undefined,
  );
  const { logger, lines } = collectingLogger("info");
  const poller = createPoller({ palette, db, clock, logger, projects });
  const readiness = paletteReadiness(poller);
  const subs = new SubscriptionStore(db, clock);
  const rows = async () =>
    (await db.all("SELECT channel, kind, payload FROM notify_outbox ORDER BY id")) as Array<{
      channel: string;
      kind: string;
      payload: string;
    }>;
  const cards = async (channel: string) =>
    (await rows())
      .filter((r) => r.kind === "card" && r.channel === channel)
      .map((r) => JSON.parse(r.payload) as CardPayload);
  const raised = async () =>
    [...(await new SnapshotStore(db).raisedAlerts()).values()].map((a) => a.clusterUid).sort();
  const poll = async () => {
    clock.advance(30_000);
    const result = await poller.runCycle();
    expect(result.ok).toBe(true);
    return result;
  };
  const logged = (text: string) => lines.filter((line) => line.includes(text));
  return { palette, refused, poller, readiness, subs, rows, cards, raised, poll, lines, logged };
}

const fleet = (): PollCluster[] => [
  { uid: "a", project: "p1", state: "Running", health: "Healthy" },
  { uid: "c", project: "p2", state: "Running", health: "Healthy" },
  { uid: "d", project: "p2", state: "Running", health: "Healthy" },
];

describe("poller: alert kinds refused for a project", () => {
  it("still reports that project's clusters and their changes", async () => {
    const clusters = fleet();
    const s = await setup(clusters, ["p1", "p2"]);
    s.refused.add("p2");
    // alert kinds are read at reconciliations (kept between them): that is where a refusal shows
    s.poller.requestReconcile();
    await s.subs.add({ channel: "C1", kind: "clusters", createdBy: "U" });
    await s.poll();
    const [summary] = await s.rows();
    expect(JSON.parse(summary!.payload)).toMatchObject({ projects: ["p1", "p2"], total: 3 });
    clusters[1]!.state = "Upgrading";
    await s.poll();
    expect((await s.cards("C1")).map((c) => [c.cluster.uid, c.kinds])).toEqual([["c", ["state"]]]);
  });

  it("says once, in the log and in readiness, that the project's alerts are unavailable", async () => {
    const s = await setup(fleet(), ["p1", "p2"]);
    s.refused.add("p2");
    // alert kinds are read at reconciliations (kept between them): that is where a refusal shows
    s.poller.requestReconcile();
    for (let i = 0; i < 3; i++) await s.poll();
    const expected = "alerts unavailable for project p2: Palette refused (403)";
    expect(s.poller.metrics().alertsUnavailable).toEqual([expected]);
    const probe = s.readiness.poll();
    expect(probe).toEqual({ ok: false, reason: expected });
    expect(s.logged("alerts unavailable")).toHaveLength(1);
    // Palette's own words stay out of what readiness repeats
    expect(JSON.stringify(probe)).not.toContain("spectro-viewer");

    s.refused.clear();
    await s.poll();
    await s.poll();
    expect(s.poller.metrics().alertsUnavailable).toEqual([]);
    expect(s.readiness.poll()).toEqual({ ok: true });
    expect(s.logged("alerts available again")).toHaveLength(1);
    expect(s.logged("alerts unavailable")).toHaveLength(1);
  });

  it("raises nothing while refused; when alerts come back, says once what changed meanwhile", async () => {
    const clusters = fleet();
    const s = await setup(clusters, ["p1", "p2"]);
    await s.subs.add({ channel: "CA", kind: "alerts", createdBy: "U" });
    await s.poll();
    clusters[2]!.health = "UnHealthy"; // d: raised while alerts are readable
    await s.poll();
    expect(await s.raised()).toEqual(["d"]);

    s.refused.add("p2");
    // alert kinds are read at reconciliations (kept between them): that is where a refusal shows
    s.poller.requestReconcile();
    clusters[1]!.health = "UnHealthy"; // c is lost while refused: no alert
    clusters[2]!.health = "Healthy"; // d recovers while refused: no resolve either
    await s.poll();
    const heard = (await s.cards("CA")).length;
    expect(heard).toBe(1);

    s.refused.clear();
    await s.poll();
    // the alert channel heard nothing of c's loss nor d's recovery: now it does, once each
    const back = (await s.cards("CA")).slice(heard);
    expect(back.map((c) => [c.cluster.uid, c.alerts.map((a) => a.status)])).toEqual([
      ["c", ["raised"]],
      ["d", ["resolved"]],
    ]);
    expect(await s.raised()).toEqual(["c"]);
    await s.poll();
    expect(await s.cards("CA")).toHaveLength(heard + 2);
    clusters[1]!.health = "Healthy";
    await s.poll();
    const last = (await s.cards("CA")).at(-1)!;
    expect(last.cluster.uid).toBe("c");
    expect(last.alerts.map((a) => a.status)).toEqual(["resolved"]);
  });

  it("drops the alert of a cluster deleted while refused, without a word", async () => {
    const clusters = fleet();
    const s = await setup(clusters, ["p1", "p2"]);
    await s.subs.add({ channel: "CA", kind: "alerts", createdBy: "U" });
    await s.poll();
    clusters[2]!.health = "UnHealthy";
    await s.poll();
    expect(await s.raised()).toEqual(["d"]);
    s.refused.add("p2");
    // alert kinds are read at reconciliations (kept between them): that is where a refusal shows
    s.poller.requestReconcile();
    clusters.splice(2, 1);
    await s.poll();
    expect(await s.raised()).toEqual([]);
    s.refused.clear();
    await s.poll();
    expect((await s.cards("CA")).map((c) => c.alerts.map((a) => a.status))).toEqual([["raised"]]);
  });

  it("in tenant scope keeps polling instead of failing every cycle", async () => {
    const clusters = fleet();
    const s = await setup(clusters, []);
    s.refused.add("");
    await s.subs.add({ channel: "C1", kind: "clusters", project: "p2", createdBy: "U" });
    await s.poll();
    clusters[1]!.state = "Upgrading";
    await s.poll();
    expect((await s.cards("C1")).map((c) => c.cluster.uid)).toEqual(["c"]);
    expect(s.poller.metrics().alertsUnavailable).toEqual([
      "alerts unavailable for the tenant: Palette refused (403)",
    ]);
  });
});
