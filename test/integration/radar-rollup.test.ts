import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.ts";
import { DEFAULT_RISK_SETTINGS } from "../../src/model/risk.ts";
import { createRiskNotifier } from "../../src/radar/notices.ts";
import { createRadar, type Radar } from "../../src/radar/sweep.ts";
import { Secret } from "../../src/secret.ts";
import { createSlackPoster } from "../../src/slack/notify-poster.ts";
import { blockTextLength } from "../../src/views/limits.ts";
import { BACKENDS } from "../support/backends.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";

/**
 * Issue 31 item 3: many risk notices alike roll up as a storm does. A new version of a profile
 * used by 40 clusters is one message per `risks` channel, naming the profile version and the
 * count, edited in place as clusters leave it; a few alike stay single notices. Through the
 * simulator, the real client and store, and the strict fake Slack.
 */

const DAY = 86_400_000;
let h: NotifyHarness | undefined;
let radar: Radar | undefined;
afterEach(async () => {
  await radar?.stop();
  radar = undefined;
  await h?.close();
  h = undefined;
});

const textOf = (body: Record<string, unknown>) => JSON.stringify(body.blocks ?? body.text);

const CASES = BACKENDS.flatMap((backend) =>
  [
    { scope: "tenant scope", tenant: true },
    { scope: "PALETTE_PROJECTS set", tenant: false },
  ].map((scope) => ({ ...scope, backend, name: backend.name })),
);

describe.each(CASES)("on $name at $scope", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (c) => {
  const start = async (): Promise<NotifyHarness> => {
    const harness = await startNotifyHarness({
      clusters: 48,
      openDb: await c.backend.database(),
      ...(c.tenant ? { pollProjects: [] } : {}),
    });
    radar = createRadar({
      palette: harness.palette,
      db: harness.db,
      clock: harness.clock,
      logger: silentLogger,
      projects: c.tenant ? [] : harness.sim.control.projects(),
      callsPerMinute: 600,
      settings: DEFAULT_RISK_SETTINGS,
      sleep: async (ms) => harness.clock.advance(ms),
      notifier: createRiskNotifier({
        db: harness.db,
        slack: createSlackPoster({ token: new Secret("xoxb-test"), apiUrl: harness.fake.apiUrl }),
        clock: harness.clock,
        logger: silentLogger,
        sleep: async (ms) => harness.clock.advance(ms),
      }),
    });
    return harness;
  };

  it("a new version of a profile 40 clusters use is one message per risks channel, edited as clusters leave it", async () => {
    h = await start();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.subs.add({ channel: "CS", kind: "risks", createdBy: "U1" });
    await h.cycle();
    const clusters = h.sim.control.clusters();
    expect(clusters).toHaveLength(48);
    for (const cluster of clusters) {
      h.sim.control.setCertificateExpiry(cluster.uid, h.clock.now() + 200 * DAY);
      h.sim.control.setProfileUpdates(cluster.uid, []);
    }
    const onProfile = clusters.slice(0, 40);
    for (const cluster of onProfile) {
      h.sim.control.setProfileUpdates(cluster.uid, [
        { uid: "p-edge", name: "edge-<base>", version: "2.1.0" },
      ]);
    }
    // two clusters with a certificate near expiry: a few alike stay single notices
    const expiring = clusters.slice(44, 46);
    for (const cluster of expiring) {
      h.sim.control.setCertificateExpiry(cluster.uid, h.clock.now() + 20 * DAY);
    }
    await radar!.sweep(clusters.length);
    for (const channel of ["CR", "CS"]) {
      const posts = h.posts(channel);
      // one roll-up for the profile version and two single certificate notices, not 42
      expect(posts).toHaveLength(3);
      const rollUps = posts.filter((p) => textOf(p).includes("2.1.0"));
      expect(rollUps).toHaveLength(1);
      const rollUp = rollUps[0]!;
      expect(textOf(rollUp)).toContain("edge-&lt;base&gt; 2.1.0");
      expect(textOf(rollUp)).toContain("40 clusters");
      expect(String(rollUp.text)).toContain("40 clusters");
      expect(String(rollUp.text)).not.toContain("<base>");
      expect((rollUp.blocks as unknown[]).length).toBeLessThanOrEqual(50);
      expect(blockTextLength(rollUp.blocks)).toBeLessThan(11_000);
      for (const cluster of expiring) {
        expect(posts.filter((p) => textOf(p).includes(cluster.name))).toHaveLength(1);
      }
    }
    // nothing new on a second sweep: no edit, no post
    h.clock.advance(60_000);
    await radar!.sweep(clusters.length);
    expect(h.posts("CR")).toHaveLength(3);
    expect(h.updates("CR")).toHaveLength(0);

    // five clusters upgrade: the roll-up is edited in place, 35 still behind, 5 no longer
    for (const cluster of onProfile.slice(0, 5)) h.sim.control.setProfileUpdates(cluster.uid, []);
    h.clock.advance(60_000);
    await radar!.sweep(clusters.length);
    for (const channel of ["CR", "CS"]) {
      expect(h.posts(channel)).toHaveLength(3);
      const edits = h.updates(channel);
      expect(edits.length).toBeGreaterThan(0);
      const last = edits.at(-1)!;
      expect(textOf(last)).toContain("35 clusters");
      expect(textOf(last)).toContain("5 no longer");
      const posted = h.fake
        .callsTo("chat.postMessage")
        .filter((call) => call.body.channel === channel && textOf(call.body).includes("2.1.0"));
      expect(posted).toHaveLength(1);
    }

    // every cluster upgrades: the roll-up says so and nothing more is posted
    for (const cluster of onProfile) h.sim.control.setProfileUpdates(cluster.uid, []);
    h.clock.advance(60_000);
    await radar!.sweep(clusters.length);
    for (const channel of ["CR", "CS"]) {
      expect(h.posts(channel)).toHaveLength(3);
      expect(textOf(h.updates(channel).at(-1)!)).toContain("no longer holds");
    }
  });
  it("a reconciliation's many pending repaves are one message, refused once by a 429 and posted after Retry-After; a newcomer joins it", async () => {
    h = await start();
    await h.subs.add({ channel: "CR", kind: "risks", createdBy: "U1" });
    await h.cycle();
    const clusters = h.sim.control.clusters();
    for (const cluster of clusters) {
      h.sim.control.setCertificateExpiry(cluster.uid, h.clock.now() + 200 * DAY);
      h.sim.control.setProfileUpdates(cluster.uid, []);
    }
    const pending = clusters.slice(0, 12);
    for (const cluster of pending) h.sim.control.setRepavePending(cluster.uid, ["pack changed"]);
    await radar!.readRepaves();
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
    // a day later all twelve cross REPAVE_WARN_HOURS at the same reconciliation
    h.clock.advance(25 * 3_600_000);
    await radar!.readRepaves();
    expect(h.posts("CR")).toHaveLength(1); // the refused roll-up
    h.clock.advance(31_000);
    await radar!.readRepaves();
    expect(h.posts("CR")).toHaveLength(2);
    expect(textOf(h.posts("CR")[1]!)).toContain("Repave waiting for approval");
    expect(textOf(h.posts("CR")[1]!)).toContain("12 clusters");
    // one more crosses the line later: it joins the roll-up (an edit), nothing new is posted
    const late = clusters[20]!;
    h.sim.control.setRepavePending(late.uid, ["pack changed"]);
    await radar!.readRepaves();
    h.clock.advance(25 * 3_600_000);
    await radar!.readRepaves();
    expect(h.posts("CR")).toHaveLength(2);
    expect(textOf(h.updates("CR").at(-1)!)).toContain("13 clusters");
    expect(textOf(h.updates("CR").at(-1)!)).toContain(late.name);
  });
});
