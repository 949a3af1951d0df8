import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { runEdgeCycle } from "../../src/edge/cycle.ts";
import { silentLogger } from "../../src/log.ts";
import { DEFAULT_EDGE_RISK_SETTINGS } from "../../src/model/edge-risk.ts";
import { DEFAULT_RISK_SETTINGS } from "../../src/model/risk.ts";
import { createEdgeRiskNotifier } from "../../src/radar/edge-notices.ts";
import { createRadar, type Radar } from "../../src/radar/sweep.ts";
import { Secret } from "../../src/secret.ts";
import { createSlackPoster } from "../../src/slack/notify-poster.ts";
import { RadarStore } from "../../src/store/radar.ts";
import { BACKENDS } from "../support/backends.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";

/**
 * The radar's edge risks told in `risks` channels (issue 39, item 5), through the simulator's
 * edge fleet (its /__sim/edge control routes), the real client, the store and the fake Slack:
 * one notice per risk per channel, project-narrowed as cluster notices are, nothing more while a
 * risk holds, "no longer holds" when it ends, and a Palette 500 on the tokens ending no token
 * notice.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let h: NotifyHarness | undefined;
let radar: Radar | undefined;
afterEach(async () => {
  await radar?.stop();
  radar = undefined;
  await h?.close();
  h = undefined;
});

const textOf = (body: Record<string, unknown>) => JSON.stringify(body.blocks ?? body.text);

function startRadar(harness: NotifyHarness, projects: string[]): Radar {
  const slack = createSlackPoster({ token: new Secret("xoxb-test"), apiUrl: harness.fake.apiUrl });
  const sleep = async (ms: number) => harness.clock.advance(ms);
  return createRadar({
    palette: harness.palette,
    db: harness.db,
    clock: harness.clock,
    logger: silentLogger,
    projects,
    callsPerMinute: 600,
    settings: DEFAULT_RISK_SETTINGS,
    sleep,
    edge: {
      palette: harness.palette,
      settings: DEFAULT_EDGE_RISK_SETTINGS,
      notifier: createEdgeRiskNotifier({
        db: harness.db,
        slack,
        clock: harness.clock,
        logger: silentLogger,
        sleep,
      }),
    },
  });
}

async function control(harness: NotifyHarness, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${harness.sim.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBeLessThan(300);
}

describe.each(BACKENDS)("on $name", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (backend) => {
  it("each edge risk is one notice per risks channel, told once, ended when it ends; a 500 on the tokens ends none", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 10, 2, 0));
    h = await startNotifyHarness({
      openDb: await backend.database(),
      clock,
      edgeHosts: 80,
      edgeFlapping: 0,
    });
    const projects = h.sim.control.projects();
    const [, second] = projects;
    // no shell open but the one the test opens
    for (const host of h.sim.control.edge.fleet.edgeHosts)
      h.sim.control.edge.setShell(host.uid, "Deleted");
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.subs.add({ channel: "CP", kind: "risks", project: second!, createdBy: "U1" });
    await h.subs.add({ channel: "CE", kind: "edge", createdBy: "U1" });
    for (const scope of projects) {
      await runEdgeCycle({
        palette: h.palette,
        db: h.db,
        scope,
        now: clock.now(),
        siteTag: "site",
        graceMs: 2 * 60_000,
        reconcile: true,
      });
    }
    // a token of the second project expiring in 3 days, and a remote shell open 10 hours there
    await control(h, "/__sim/edge/tokens", {
      name: "store-0142-token",
      expiry: clock.now() + 3 * DAY,
      defaultProjectUid: second,
    });
    const shellHost = h.sim.control.edge.fleet.edgeHosts.find(
      (host) => host.projectUid === second && host.inUseClusterUid,
    )!;
    await control(h, `/__sim/edge/hosts/${shellHost.uid}`, {
      shell: { state: "Created", at: clock.now() - 10 * HOUR },
    });

    radar = startRadar(h, projects);
    await radar.readEdge();
    const found = radar.stats().lastEdgeRead!;
    expect(found.unread).toBe(0);
    // the seeded ones (a first-project token in 9 days, an inactive default) and the two above
    expect(found.risks).toBeGreaterThanOrEqual(4);
    const all = h.posts("CR").map(textOf);
    expect(all).toHaveLength(found.risks);
    expect(all.filter((text) => text.includes("store-0142-token"))).toHaveLength(1);
    expect(all.filter((text) => text.includes("expires in 3 days"))).toHaveLength(1);
    expect(all.filter((text) => text.includes(shellHost.name))).toHaveLength(1);
    expect(all.filter((text) => text.includes("remote shell open for 10 hours"))).toHaveLength(1);
    expect(all.some((text) => text.includes("retired-factory"))).toBe(true);
    // project:-narrowed: the second project's risks only
    const narrowed = h.posts("CP").map(textOf);
    expect(narrowed.some((text) => text.includes("store-0142-token"))).toBe(true);
    expect(narrowed.some((text) => text.includes(shellHost.name))).toBe(true);
    expect(narrowed.some((text) => text.includes("retired-factory"))).toBe(false);
    expect(narrowed.every((text) => text.includes(second!))).toBe(true);
    // an `edge` channel is not a `risks` channel; and the cluster radar's store is untouched
    expect(h.posts("CE")).toHaveLength(0);
    expect(await new RadarStore(h.db).notices("")).toEqual([]);

    // read again a minute on: nothing new, nothing edited
    clock.advance(60_000);
    await radar.readEdge();
    expect(h.posts("CR")).toHaveLength(found.risks);
    expect(h.posts("CP")).toHaveLength(narrowed.length);
    expect(h.updates("CR")).toHaveLength(0);

    // Palette answers 500 on the tokens, and the shell is closed: the shell's notice ends in
    // both channels; the token notices are kept, not ended
    h.sim.control.addFault({ pathPrefix: "/v1/edgehosts/tokens", kind: "status", status: 500 });
    await control(h, `/__sim/edge/hosts/${shellHost.uid}`, { shell: { state: "Deleted" } });
    clock.advance(60_000);
    await radar.readEdge();
    expect(radar.stats().lastEdgeRead!.unread).toBeGreaterThan(0);
    for (const channel of ["CR", "CP"]) {
      const edits = h.updates(channel).map(textOf);
      expect(edits).toHaveLength(1);
      expect(edits[0]).toContain(shellHost.name);
      expect(edits[0]).toContain("no longer holds");
    }
    expect(h.posts("CR")).toHaveLength(found.risks);

    // Palette answers again and the token is renewed: its notice ends, once, in each channel
    h.sim.control.clearFaults();
    const token = h.sim.control.edge.tokens.find((t) => t.name === "store-0142-token")!;
    token.expiry = clock.now() + 200 * DAY;
    clock.advance(60_000);
    await radar.readEdge();
    await radar.readEdge();
    for (const channel of ["CR", "CP"]) {
      const edits = h.updates(channel).map(textOf);
      expect(edits).toHaveLength(2);
      expect(edits[1]).toContain("store-0142-token");
      expect(edits[1]).toContain("no longer holds");
    }
    expect(h.posts("CR")).toHaveLength(found.risks);
    expect(h.posts("CP")).toHaveLength(narrowed.length);
  });

  it("a 429 on an edge notice loses and duplicates nothing: posted at the next read, once", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 10, 2, 0));
    h = await startNotifyHarness({
      openDb: await backend.database(),
      clock,
      edgeHosts: 40,
      edgeFlapping: 0,
    });
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    let limited = false;
    h.fake.on("chat.postMessage", (call) => {
      if (limited || call.body.channel !== "CR") return undefined;
      limited = true;
      return {
        status: 429,
        headers: { "Retry-After": "30" },
        body: { ok: false, error: "ratelimited" },
      };
    });
    radar = startRadar(h, h.sim.control.projects());
    await radar.readEdge();
    const risks = radar.stats().lastEdgeRead!.risks;
    expect(risks).toBeGreaterThanOrEqual(2);
    // every risk tried; the first refused
    expect(h.posts("CR")).toHaveLength(risks);
    const refused = textOf(h.posts("CR")[0]!);
    clock.advance(31_000);
    await radar.readEdge();
    const texts = h.posts("CR").map(textOf);
    expect(texts).toHaveLength(risks + 1);
    expect(texts.filter((text) => text === refused)).toHaveLength(2);
    expect(new Set(texts).size).toBe(risks);
    clock.advance(60_000);
    await radar.readEdge();
    expect(h.posts("CR")).toHaveLength(risks + 1);
    expect(h.updates("CR")).toHaveLength(0);
  });
});
