import { afterEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { DEFAULT_RISK_SETTINGS } from "../../src/model/risk.ts";
import { createRadar, type Radar } from "../../src/radar/sweep.ts";
import { Secret } from "../../src/secret.ts";
import {
  awsCluster,
  closeChangesHarnesses,
  identityByKey,
  startChangesHarness,
} from "../support/changes-harness.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * Who may read what the radar and `why` hold (issue 31, item 15): under IDENTITY=strict
 * `/palette risks` lists only the risks in projects the person has a role in (learned from
 * Palette with their own key, as the other strict reads); `why` is for the people on ALLOW_WHY
 * (default everyone); a channel card's likely-cause line names the actor's Palette name, not
 * their e-mail, unless WHY_SHOW_EMAIL=true. Signed Slack requests, the simulator behind them.
 */

const DAY = 86_400_000;
const SOLO = "WSOLO1";
let notify: NotifyHarness | undefined;
let bot: BotHarness | undefined;
let radar: Radar | undefined;
afterEach(async () => {
  await radar?.stop();
  await bot?.close();
  await notify?.close();
  radar = undefined;
  bot = undefined;
  notify = undefined;
  await closeChangesHarnesses();
});

describe("/palette risks under IDENTITY=strict", () => {
  it("lists only the risks in the person's projects", async () => {
    const h = await startNotifyHarness({});
    notify = h;
    await h.subs.add({ channel: "CC", kind: "all", createdBy: "U1" });
    await h.cycle();
    const [first, second] = h.sim.control.projects() as [string, string];
    for (const cluster of h.sim.control.clusters()) {
      // every cluster's certificates run out within 5 days: a critical risk each
      h.sim.control.setCertificateExpiry(cluster.uid, h.clock.now() + 5 * DAY);
      h.sim.control.setProfileUpdates(cluster.uid, []);
    }
    const harness = h;
    radar = createRadar({
      palette: h.palette,
      db: h.db,
      clock: h.clock,
      logger: silentLogger,
      projects: h.sim.control.projects(),
      callsPerMinute: 600,
      settings: DEFAULT_RISK_SETTINGS,
      sleep: async (ms) => harness.clock.advance(ms),
    });
    await radar.sweep(h.sim.control.clusters().length);
    bot = await startBot({
      db: h.db,
      palette: h.palette,
      clock: h.clock,
      projects: h.sim.control.projects(),
      policy: allowAll,
      identity: identityByKey("strict", 5, h.sim, h.clock),
    });
    await bot.bot.edge.commandDeps.identity!.store.put({
      slackUserId: SOLO,
      paletteUserUid: "solo",
      paletteUserName: "Sol One-Project",
      method: "key",
      apiKey: new Secret(h.sim.control.issueUserKey("solo@example.com")),
    });
    const mine = h.sim.control.clusters(first);
    const firstNames = new Set(mine.map((c) => c.name));
    const theirs = h.sim.control.clusters(second).filter((c) => !firstNames.has(c.name));
    expect(theirs.length).toBeGreaterThan(0);
    const { responseId } = await bot.command("risks", { userId: SOLO });
    const [answer] = await bot.responses(responseId, 1, 10_000);
    const text = JSON.stringify(answer!.body);
    expect(mine.some((c) => text.includes(c.name))).toBe(true);
    for (const cluster of theirs) expect(text).not.toContain(cluster.name);
    // an unlinked person is asked to log in, as for the other strict reads
    const other = await bot.command("risks", { userId: "WNOBODY" });
    const [refused] = await bot.responses(other.responseId, 1, 10_000);
    expect(JSON.stringify(refused!.body)).toContain("/palette login");
  }, 60_000);
});

describe("/palette why and ALLOW_WHY", () => {
  it("someone not on ALLOW_WHY is refused before Palette's audit is read; someone on it reads it", async () => {
    const h = await startChangesHarness({
      simulator: { clusters: 6, seed: 27 },
      access: { allowWhy: ["W111"] },
    });
    const cluster = awsCluster(h, "why-guarded");
    h.sim.control.addAudit({
      clusterUid: cluster.uid,
      actionType: "update",
      actionMsg: "profile updated",
      email: "editor@example.com",
    });
    h.sim.control.clearRequests();
    const refused = await h.bot.command("why why-guarded", { userId: "W222", channelId: "C1" });
    const [no] = await h.bot.responses(refused.responseId, 1, 10_000);
    expect(JSON.stringify(no!.body)).toContain("ALLOW_WHY");
    expect(h.sim.control.requests().filter((r) => r.path === "/v1/audits")).toEqual([]);
    const [row] = await h.bot.audit.recent(1);
    expect(row).toMatchObject({ userId: "W222", action: "read", outcome: "denied" });

    const allowed = await h.bot.command("why why-guarded", { userId: "W111", channelId: "C1" });
    const [yes] = await h.bot.responses(allowed.responseId, 1, 10_000);
    expect(JSON.stringify(yes!.body)).toContain("editor@example.com");
  }, 60_000);
});

describe("the likely-cause line on a channel card", () => {
  async function lineFor(showEmail: boolean): Promise<string> {
    const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
    const h = await startNotifyHarness({
      clock,
      clusters: 20,
      projects: 2,
      seed: 11,
      unhealthy: 0,
      softDeleted: 0,
      likelyCauses: true,
      ...(showEmail ? { causeEmails: true } : {}),
    });
    notify = h;
    await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
    await h.cycle();
    const changed = h.sim.control
      .clusters()
      .find((c) => c.state === "Running" && c.health === "Healthy")!;
    h.clock.advance(5 * 60_000);
    h.sim.control.addAudit({
      clusterUid: changed.uid,
      actionType: "update",
      actionMsg: "Cluster profile 'web-base' updated to 1.4.0",
      email: "editor@example.com",
    });
    h.clock.advance(5 * 60_000);
    h.sim.control.setHealth(changed.uid, "UnHealthy", "kubelet stopped posting node status");
    const before = h.posts("C1").length;
    await h.cycle();
    return h
      .posts("C1")
      .slice(before)
      .map((post) => JSON.stringify(post))
      .join("\n");
  }

  it("names the actor's Palette name, not their e-mail, by default", async () => {
    const posted = await lineFor(false);
    expect(posted).toContain("Likely cause: update by Eddie Editor at 12:05 UTC");
    expect(posted).not.toContain("editor@example.com");
  }, 60_000);

  it("names the e-mail with WHY_SHOW_EMAIL=true", async () => {
    const posted = await lineFor(true);
    expect(posted).toContain("Likely cause: update by editor@example.com at 12:05 UTC");
  }, 60_000);
});
