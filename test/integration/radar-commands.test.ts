import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { homeSources } from "../../src/app/home-sources.ts";
import { silentLogger } from "../../src/log.ts";
import { DEFAULT_RISK_SETTINGS } from "../../src/model/risk.ts";
import { createRadar, type Radar } from "../../src/radar/sweep.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";
import { type BotHarness, SIGNING_SECRET, startBot } from "../support/slack-harness.ts";
import { loadPayload, postSigned } from "../support/slack-request.ts";

/**
 * The radar seen from Slack (issue 28), through signed slash commands against the bot's HTTP
 * edge, the simulator and the store the radar filled: `/palette risks` grouped by kind, worst
 * first; a pending repave from the fleet list on the notification card and on `/palette cluster`
 * without a read per card.
 */

const DAY = 86_400_000;
let h: NotifyHarness | undefined;
let bot: BotHarness | undefined;
let radar: Radar | undefined;
afterEach(async () => {
  await radar?.stop();
  await bot?.close();
  await h?.close();
  radar = undefined;
  bot = undefined;
  h = undefined;
});

/** PALETTE_PROJECTS empty (tenant scope, the default) or every simulated project */
let tenant = true;
const projectsOf = (harness: NotifyHarness): string[] =>
  tenant ? [] : harness.sim.control.projects();

async function setUp(): Promise<{ h: NotifyHarness; bot: BotHarness; radar: Radar }> {
  h = await startNotifyHarness(tenant ? { pollProjects: [] } : {});
  await h.subs.add({ channel: "CC", kind: "all", createdBy: "U1" });
  await h.cycle();
  for (const cluster of h.sim.control.clusters()) {
    h.sim.control.setCertificateExpiry(cluster.uid, h.clock.now() + 200 * DAY);
    h.sim.control.setProfileUpdates(cluster.uid, []);
  }
  const harness = h;
  radar = createRadar({
    palette: h.palette,
    db: h.db,
    clock: h.clock,
    logger: silentLogger,
    projects: projectsOf(h),
    callsPerMinute: 600,
    settings: DEFAULT_RISK_SETTINGS,
    sleep: async (ms) => harness.clock.advance(ms),
  });
  bot = await startBot({
    db: h.db,
    palette: h.palette,
    clock: h.clock,
    projects: projectsOf(h),
    home: {
      ...homeSources({
        poller: h.poller,
        palette: h.palette,
        db: h.db,
        projects: projectsOf(h),
        clock: h.clock,
      }),
      policy: allowAll,
      consoleUrl: "https://console.example.com/",
      clock: h.clock,
      logger: silentLogger,
    },
  });
  return { h, bot, radar };
}

const blockText = (call: { body: Record<string, unknown> }) => JSON.stringify(call.body.blocks);

describe.each([
  { scope: "tenant scope", atTenant: true },
  { scope: "PALETTE_PROJECTS set", atTenant: false },
])("the radar from Slack at $scope", ({ atTenant }) => {
  beforeEach(() => {
    tenant = atTenant;
  });

  it("/palette risks project:<p> lists that project's risks and no other's", async () => {
    const { h, bot, radar } = await setUp();
    const [p1, p2] = h.sim.control.projects();
    const inP1 = h.sim.control.clusters(p1)[0]!;
    const inP2 = h.sim.control.clusters(p2)[0]!;
    h.sim.control.setCertificateExpiry(inP1.uid, h.clock.now() + 5 * DAY);
    h.sim.control.setCertificateExpiry(inP2.uid, h.clock.now() + 6 * DAY);
    await radar.sweep(h.sim.control.clusters().length);
    const { responseId } = await bot.command(`risks project:${p1}`);
    const [answer] = await bot.responses(responseId);
    const text = blockText(answer!);
    expect(text).toContain(inP1.name);
    expect(text).not.toContain(inP2.name);
  });

  it("a deleted cluster's risk leaves /palette risks and the digest once the poll sees it gone", async () => {
    const { h, bot, radar } = await setUp();
    const [doomed, kept] = h.sim.control.clusters().filter((c) => c.state === "Running");
    h.sim.control.setCertificateExpiry(doomed!.uid, h.clock.now() + 5 * DAY);
    h.sim.control.setCertificateExpiry(kept!.uid, h.clock.now() + 6 * DAY);
    await radar.sweep(h.sim.control.clusters().length);
    const before = await bot.command("risks");
    expect(blockText((await bot.responses(before.responseId))[0]!)).toContain(doomed!.name);
    h.sim.control.setState(doomed!.uid, "Deleted");
    h.poller.requestReconcile();
    await h.cycle();
    await radar.readRepaves();
    const after = await bot.command("risks");
    const text = blockText((await bot.responses(after.responseId))[0]!);
    expect(text).toContain(kept!.name);
    expect(text).not.toContain(doomed!.name);
    const channel = "C0RISKS";
    await h.subs.add({ channel, kind: "risks", createdBy: "U1" });
    const digest = await bot.command("digest now", { channelId: channel });
    const digestText = blockText((await bot.responses(digest.responseId))[0]!);
    expect(digestText).toContain(kept!.name);
    expect(digestText).not.toContain(doomed!.name);
  });

  it("/palette risks lists what the radar holds, grouped by kind, worst first, with last-read times", async () => {
    const { h, bot, radar } = await setUp();
    const [soon, sooner, backedUp, newer] = h.sim.control.clusters();
    h.sim.control.setCertificateExpiry(soon!.uid, h.clock.now() + 20 * DAY);
    h.sim.control.setCertificateExpiry(sooner!.uid, h.clock.now() + 5 * DAY);
    h.sim.control.setBackupLocation(backedUp!.uid, "s3");
    h.sim.control.setBackupRuns(backedUp!.uid, "0 3 * * *", [
      { name: "b1", state: "Failed", at: h.clock.now() - 3_600_000 },
    ]);
    h.sim.control.setProfileUpdates(newer!.uid, [{ uid: "p2", name: "base", version: "2.0.0" }]);
    await radar.sweep(h.sim.control.clusters().length);

    const { status, responseId } = await bot.command("risks");
    expect(status).toBe(200);
    const [answer] = await bot.responses(responseId);
    const text = blockText(answer!);
    const order = [
      "Certificates expiring* (2)",
      sooner!.name,
      soon!.name,
      "Backups failing or late* (1)",
      backedUp!.name,
      "Newer profile versions* (1)",
      newer!.name,
    ].map((needle) => text.indexOf(needle));
    expect(
      order.every((index) => index >= 0),
      text,
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain(":red_circle:");
    expect(text).toContain("read 2026-");
    expect(String(answer!.body.text)).toContain("On the radar");

    // a tag no cluster has: nothing, said so
    const none = await bot.command("risks tag:nothing-has-this");
    const [empty] = await bot.responses(none.responseId);
    expect(blockText(empty!)).toContain("Nothing on the radar");
    // bad input gets a usage answer, not a crash
    const bad = await bot.command("risks everything");
    const [usage] = await bot.responses(bad.responseId);
    expect(blockText(usage!)).toContain("risks [project:&lt;uid&gt;] [tag:&lt;t&gt;]");
  });

  it("the channel digest has a Risks section (counts, the worst first) and the App Home the counts", async () => {
    const { h, bot, radar } = await setUp();
    const [soon, sooner] = h.sim.control.clusters();
    h.sim.control.setCertificateExpiry(soon!.uid, h.clock.now() + 20 * DAY);
    h.sim.control.setCertificateExpiry(sooner!.uid, h.clock.now() + 3 * DAY);
    await radar.sweep(h.sim.control.clusters().length);
    const channel = "C0RISKS";
    await h.subs.add({ channel, kind: "risks", createdBy: "U1" });
    const { responseId } = await bot.command("digest now", { channelId: channel });
    const [digest] = await bot.responses(responseId);
    const text = blockText(digest!);
    expect(text).toContain("Risks — 2 certificates (2)");
    expect(text.indexOf(sooner!.name)).toBeGreaterThan(-1);
    expect(text.indexOf(sooner!.name)).toBeLessThan(text.indexOf(soon!.name));

    const { payload } = loadPayload<{ payload: { event: Record<string, unknown> } }>(
      "event_callback.app_home_opened.json",
    );
    const opened = await postSigned(
      bot.url,
      SIGNING_SECRET,
      JSON.stringify({ ...payload, event: { ...payload.event, tab: "home" } }),
      {
        contentType: "application/json",
      },
    );
    expect(opened.status).toBe(200);
    const [home] = await bot.fake.waitFor("views.publish");
    const view = JSON.stringify(home!.body.view);
    expect(view).toContain("On the radar");
    expect(view).toContain(":red_circle: 1 critical");
    expect(view).toContain(":large_orange_circle: 1 warning ");
  });

  it("a pending repave in the fleet list puts Approve repave on the card and on /palette cluster, with no read per card", async () => {
    const { h, bot, radar } = await setUp();
    const target = h.sim.control
      .clusters()
      .find((c) => c.state === "Running" && c.health === "Healthy")!;
    h.sim.control.setRepavePending(target.uid, ["pack values changed"]);
    h.sim.control.clearRequests();
    await radar.readRepaves();
    const listReads = h.sim.control
      .requests()
      .filter((r) => r.path === "/v1/dashboard/spectroclusters/repaveStatus");
    // one paged list per watched project (the tenant's one), not one read per cluster
    expect(listReads).toHaveLength(Math.max(1, projectsOf(h).length));

    h.sim.control.clearRequests();
    h.sim.control.setState(target.uid, "Upgrading");
    await h.cycle();
    const card = h.fake
      .callsTo("chat.postMessage")
      .filter((c) => c.body.channel === "CC")
      .at(-1)!;
    expect(blockText(card)).toContain(target.name);
    expect(blockText(card)).toContain("Repave pending");
    expect(blockText(card)).toContain("Approve repave");
    expect(blockText(card)).toContain(`repave approve ${target.uid}`);

    const { responseId } = await bot.command(`cluster ${target.name}`);
    const [answer] = await bot.responses(responseId);
    expect(blockText(answer!)).toContain("Approve repave");
    expect(blockText(answer!)).toContain("Palette holds a repave");
    const perCluster = h.sim.control
      .requests()
      .filter(
        (r) => r.path.includes("/repave/status") || r.path === `/v1/spectroclusters/${target.uid}`,
      );
    expect(perCluster).toEqual([]);

    // a cluster with nothing pending shows no such button
    const other = h.sim.control.clusters().find((c) => c.uid !== target.uid)!;
    const plain = await bot.command(`cluster ${other.name}`);
    const [plainAnswer] = await bot.responses(plain.responseId);
    expect(blockText(plainAnswer!)).not.toContain("Approve repave");
  });
});
