import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { runEdgeCycle } from "../../src/edge/cycle.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { EdgeHostStore } from "../../src/store/edge-hosts.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { BACKENDS, closeOpened } from "../support/backends.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";

/**
 * The edge poll's read-judge-record step of one project (issue 39, item 1 and the rules of item
 * 2) through the real client against the simulator, on both stores: the incremental read's cost
 * in a steady fleet, a site outage told once per host after the grace and grouped by site, the
 * recovery with how long the site was dark, a host deleted from Palette ending its notice, and a
 * Palette 429 storm in the middle of a read losing and duplicating nothing.
 */

const MINUTE = 60_000;
const GRACE = 2 * MINUTE;

describe.each(BACKENDS)("on $name", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (backend) => {
  let sim: RunningSimulator;
  let palette: PaletteClient;
  let db: SqlDb;
  let project: string;
  const clock = new ManualClock(Date.UTC(2026, 0, 10, 2, 0));

  beforeEach(async () => {
    sim = await startSimulator({
      clusters: 44,
      projects: 2,
      seed: 21,
      clock,
      edgeHosts: 400,
      edgeFlapping: 0,
    });
    palette = apiKeyClient(sim, { retries: 2 });
    db = await backend.open();
    project = sim.control.projects()[0]!;
  });

  afterEach(async () => {
    await palette.close();
    await sim.close();
  });

  afterAll(closeOpened);

  const cycle = (reconcile = false) =>
    runEdgeCycle({
      palette,
      db,
      scope: project,
      now: clock.now(),
      siteTag: "site",
      graceMs: GRACE,
      reconcile,
    });

  const unhealthyInProject = () =>
    sim.control.edge.fleet.edgeHosts
      .filter((host) => host.projectUid === project)
      .filter((host) => sim.control.edge.view(host).health === "unhealthy").length;

  it("learns the fleet silently, then a steady cycle costs 2 requests plus a page per 50 unhealthy hosts", async () => {
    const first = await cycle();
    expect(first.baseline).toBe(true);
    expect(first.news).toEqual([]);
    const hosts = sim.control.edge.fleet.edgeHosts.filter((host) => host.projectUid === project);
    expect(first.requests).toBe(Math.ceil(hosts.length / 50));
    expect(await new EdgeHostStore(db).count(project)).toBe(hosts.length);

    clock.advance(MINUTE);
    const steady = await cycle();
    expect(steady.baseline).toBe(false);
    expect(steady.news).toEqual([]);
    const unhealthyPages = Math.max(1, Math.ceil(unhealthyInProject() / 50));
    expect(steady.requests).toBe(unhealthyPages + 1);
  });

  it("a 40-host site outage: nothing within the grace, one site group past it, recovery with how long", async () => {
    await cycle();
    sim.control.edge.addSite("store-0142", project, 40);
    clock.advance(MINUTE);
    const joined = await cycle();
    expect(joined.news).toEqual([]);

    clock.advance(MINUTE);
    sim.control.edge.setSiteHealth("store-0142", "unhealthy");
    clock.advance(MINUTE);
    const within = await cycle();
    expect(within.news).toEqual([]);

    clock.advance(GRACE);
    const past = await cycle();
    expect(past.grouped.sites).toHaveLength(1);
    expect(past.grouped.sites[0]).toMatchObject({ site: "store-0142", direction: "dark" });
    expect(past.grouped.sites[0]!.news).toHaveLength(40);
    expect(past.grouped.single).toEqual([]);

    clock.advance(MINUTE);
    const again = await cycle();
    expect(again.news).toEqual([]);

    clock.advance(33 * MINUTE);
    sim.control.edge.setSiteHealth("store-0142", "healthy");
    clock.advance(MINUTE);
    const back = await cycle();
    expect(back.grouped.sites).toHaveLength(1);
    expect(back.grouped.sites[0]!.direction).toBe("back");
    // dark from the bot's first sight of it (a minute after the outage) to the read that found
    // it back: "healthy again after 37 min"
    for (const item of back.grouped.sites[0]!.news) {
      expect(item).toMatchObject({ kind: "recovered", was: "unhealthy", darkMs: 37 * MINUTE });
    }
    const records = await new EdgeHostStore(db).get(
      sim.control.edge.siteHosts("store-0142").map((h) => h.uid),
    );
    for (const record of records.values()) {
      expect(record.told).toBe("");
      expect(record.lastSeenHealthy).toBe(clock.now());
    }
  });

  it("a host deleted from Palette while told dark ends its notice at the next cycle", async () => {
    await cycle();
    const [added] = sim.control.edge.addSite("store-0500", project, 1);
    await cycle(true);
    sim.control.edge.setHealth(added!.uid, "unhealthy");
    clock.advance(MINUTE);
    await cycle();
    clock.advance(GRACE);
    expect((await cycle()).news.map((item) => item.kind)).toEqual(["unhealthy"]);
    expect(sim.control.edge.deleteHost(added!.uid)).toBe(true);
    clock.advance(MINUTE);
    const after = await cycle();
    expect(after.news).toEqual([
      expect.objectContaining({
        kind: "gone",
        was: "unhealthy",
        host: expect.objectContaining({ uid: added!.uid }),
      }),
    ]);
    expect((await new EdgeHostStore(db).get([added!.uid])).size).toBe(0);
  });

  it("a 429 storm in the middle of a read loses nothing and tells nothing twice", async () => {
    await cycle();
    sim.control.edge.addSite("store-0600", project, 5);
    await cycle(true);
    sim.control.edge.setSiteHealth("store-0600", "unhealthy");
    clock.advance(MINUTE);
    await cycle();
    clock.advance(GRACE);
    // the sorted read is refused past the client's retries: the cycle fails as a whole
    sim.control.addFault({
      pathPrefix: "/v1/dashboard/edgehosts/search",
      kind: "status",
      status: 429,
      retryAfterSec: 0,
      times: 10,
    });
    await expect(cycle()).rejects.toThrow();
    const store = new EdgeHostStore(db);
    const untold = await store.get(sim.control.edge.siteHosts("store-0600").map((h) => h.uid));
    expect([...untold.values()].map((record) => record.told)).toEqual(Array(5).fill(""));
    sim.control.clearFaults();
    const told = await cycle();
    expect(told.news.map((item) => item.kind)).toEqual(Array(5).fill("unhealthy"));
    expect((await cycle()).news).toEqual([]);
  });
});
