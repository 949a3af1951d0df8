import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { createLogger } from "../../src/log.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * The edge fleet told in the channel (issue 39, item 2), end to end: a channel subscribes with a
 * signed `/palette subscribe edge`, the simulator's control routes (/__sim/edge) break and mend
 * hosts and sites, the real poller reads them through the real client, and the real sender posts
 * and edits through the outbox to the fake Slack.
 */

const MINUTE = 60_000;
const GRACE = 2 * MINUTE;

let h: NotifyHarness | undefined;
let bot: BotHarness | undefined;
afterEach(async () => {
  await bot?.bot.stop();
  await bot?.fake.close().catch(() => undefined);
  bot = undefined;
  await h?.close();
  h = undefined;
});

interface SimHost {
  uid: string;
  name: string;
  projectUid: string;
  site?: string;
  state: string;
  health: string;
}

async function control(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${h!.sim.url}/__sim/edge${path}`, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status).toBeLessThan(300);
  return response.status === 204 ? undefined : response.json();
}

const hosts = async (query = ""): Promise<SimHost[]> =>
  ((await control("GET", `/hosts${query}`)) as { hosts: SimHost[] }).hosts;

const textOf = (body: Record<string, unknown>) =>
  `${String(body.text)} ${JSON.stringify(body.blocks ?? [])}`;

const FLEET = { clusters: 24, projects: 2, seed: 21, edgeHosts: 120, edgeFlapping: 0 };

/** the seeded simulator's project UIDs, from a first look at the same fleet */
async function seededProjects(): Promise<string[]> {
  const look = await startSimulator(FLEET);
  try {
    return look.control.projects();
  } finally {
    await look.close();
  }
}

const edgeWarnings: string[] = [];

type Subscribing = Array<{ channel: string; text: string }>;

async function setup(
  subscribing: Subscribing | ((firstProject: string) => Subscribing),
  pollProjectsOf?: (projects: string[]) => string[],
) {
  const clock = new ManualClock(Date.UTC(2026, 0, 10, 2, 0));
  edgeWarnings.length = 0;
  // the edge watch's warnings, kept: a cycle that failed to read the hosts says so
  const logger = createLogger("warn", { write: (line: string) => edgeWarnings.push(line) });
  h = await startNotifyHarness({
    ...FLEET,
    clock,
    edge: { graceMs: GRACE, logger },
    // the simulator is seeded: its projects are known before it starts, from a first look
    ...(pollProjectsOf ? { pollProjects: pollProjectsOf(await seededProjects()) } : {}),
  });
  const pollProjects = pollProjectsOf?.(h.sim.control.projects());
  // the bot's Slack edge on the same store and the same fake Slack: subscribing is a signed request
  bot = await startBot({
    db: h.db,
    palette: h.palette,
    clock,
    fake: h.fake,
    projects: pollProjects ?? h.sim.control.projects(),
  });
  const channels =
    typeof subscribing === "function" ? subscribing(h.sim.control.projects()[0]!) : subscribing;
  for (const { channel, text } of channels) {
    const sent = await bot.command(text, { channelId: channel, userId: "U1" });
    expect(sent.status).toBe(200);
  }
  // the first cycle learns the fleet and tells nothing of the edge
  await h.cycle();
  return h;
}

/** a healthy host in use, by the simulator's control route */
async function healthyHost(projectUid?: string): Promise<SimHost> {
  const all = await hosts(projectUid ? `?projectUid=${projectUid}` : "");
  const host = all.find((one) => one.health === "healthy" && one.state === "in-use");
  expect(host).toBeDefined();
  return host!;
}

const edgePosts = (channel: string) =>
  h!
    .posts(channel)
    .filter((body) => textOf(body).includes("Edge host") || textOf(body).includes("Site "));

describe("edge hosts told in the channel", () => {
  it("a host dark for less than the grace posts nothing; past it posts once, and its recovery edits that message", async () => {
    await setup([{ channel: "C1", text: "subscribe edge" }]);
    expect(edgePosts("C1")).toEqual([]);

    const flaky = await healthyHost();
    await control("POST", `/hosts/${flaky.uid}`, { health: "unhealthy" });
    await h!.cycle();
    await h!.cycle(); // 30 s later: still inside the grace
    await control("POST", `/hosts/${flaky.uid}`, { health: "healthy" });
    await h!.cycle();
    expect(edgePosts("C1")).toEqual([]);

    const dark = (await hosts()).find(
      (one) => one.uid !== flaky.uid && one.health === "healthy" && one.state === "in-use",
    )!;
    await control("POST", `/hosts/${dark.uid}`, { health: "unhealthy" });
    for (let i = 0; i < 7; i++) await h!.cycle(); // 3.5 min: past the grace, and on
    const told = edgePosts("C1");
    expect(told).toHaveLength(1);
    expect(textOf(told[0]!)).toContain(`Edge host ${dark.name} is unhealthy`);

    h!.clock.advance(30 * MINUTE);
    await control("POST", `/hosts/${dark.uid}`, { health: "healthy" });
    await h!.cycle();
    await h!.cycle();
    expect(edgePosts("C1")).toHaveLength(1);
    const updates = h!.updates("C1");
    expect(updates).toHaveLength(1);
    expect(textOf(updates[0]!)).toMatch(/healthy again after 3\d min/);
    const posted = h!.fake.callsTo("chat.postMessage").filter((c) => c.body.channel === "C1");
    expect(posted).toHaveLength(1);
  });

  it("40 hosts of one site going dark at once: one message per subscribed channel, edited as they come back", async () => {
    await setup([
      { channel: "C1", text: "subscribe edge" },
      { channel: "C2", text: "subscribe all" },
    ]);
    const project = h!.sim.control.projects()[0]!;
    await control("POST", "/sites", { site: "store-9000", projectUid: project, hosts: 40 });
    await h!.cycle(); // the new site is learnt: healthy hosts are no news
    const before = { C1: h!.posts("C1").length, C2: h!.posts("C2").length };

    await control("POST", "/sites/store-9000/outage", { projectUid: project });
    for (let i = 0; i < 6; i++) await h!.cycle();
    for (const channel of ["C1", "C2"] as const) {
      const posted = h!.posts(channel).slice(before[channel]);
      expect(posted).toHaveLength(1);
      expect(textOf(posted[0]!)).toContain("Site store-9000: 40 edge hosts dark");
      // the first 40 named
      expect(textOf(posted[0]!)).toContain("store-9000-h039");
    }

    // ten come back: the same message edited, nothing new posted
    const site = await hosts(`?site=store-9000`);
    for (const host of site.slice(0, 10)) {
      await control("POST", `/hosts/${host.uid}`, { health: "healthy" });
    }
    await h!.cycle();
    await control("POST", "/sites/store-9000/recover", { projectUid: project });
    await h!.cycle();
    for (const channel of ["C1", "C2"] as const) {
      expect(h!.posts(channel).slice(before[channel])).toHaveLength(1);
      const updates = h!.updates(channel);
      expect(updates).toHaveLength(2);
      expect(textOf(updates[0]!)).toContain("30 edge hosts dark, 10 back");
      expect(textOf(updates[1]!)).toContain("all 40 edge hosts healthy again");
      expect(new Set(updates.map((update) => update.ts)).size).toBe(1);
    }
  });

  it("a host deleted from Palette ends its notice", async () => {
    await setup([{ channel: "C1", text: "subscribe edge" }]);
    const host = await healthyHost();
    await control("POST", `/hosts/${host.uid}`, { health: "unhealthy" });
    for (let i = 0; i < 6; i++) await h!.cycle();
    expect(edgePosts("C1")).toHaveLength(1);
    await control("DELETE", `/hosts/${host.uid}`);
    await h!.cycle();
    await h!.cycle();
    expect(edgePosts("C1")).toHaveLength(1);
    const updates = h!.updates("C1");
    expect(updates).toHaveLength(1);
    expect(textOf(updates[0]!)).toContain(`Edge host ${host.name} was deleted from Palette`);
  });

  it("a host told alone whose site then rolls up: the site's recovery closes its own notice too", async () => {
    await setup([{ channel: "C1", text: "subscribe edge" }]);
    const project = h!.sim.control.projects()[0]!;
    await control("POST", "/sites", { site: "store-7000", projectUid: project, hosts: 6 });
    await h!.cycle();
    const site = await hosts("?site=store-7000");
    const lone = site[0]!;
    await control("POST", `/hosts/${lone.uid}`, { health: "unhealthy" });
    for (let i = 0; i < 6; i++) await h!.cycle();
    const own = edgePosts("C1");
    expect(own).toHaveLength(1);
    expect(textOf(own[0]!)).toContain(`Edge host ${lone.name} is unhealthy`);
    // the rest of the site goes dark together: a roll-up; then the whole site recovers
    for (const host of site.slice(1)) {
      await control("POST", `/hosts/${host.uid}`, { health: "unhealthy" });
    }
    for (let i = 0; i < 6; i++) await h!.cycle();
    await control("POST", "/sites/store-7000/recover", { projectUid: project });
    for (let i = 0; i < 2; i++) await h!.cycle();
    // the lone host's own message is edited to say it is back
    const closedOwn = h!
      .updates("C1")
      .filter((update) => textOf(update).includes(`Edge host ${lone.name}`));
    expect(closedOwn).toHaveLength(1);
    expect(textOf(closedOwn[0]!)).toMatch(/healthy again/);
    // an hour later it goes dark again: a new message, not an edit of the old one
    const postsBefore = edgePosts("C1").length;
    const updatesBefore = h!.updates("C1").length;
    h!.clock.advance(60 * MINUTE);
    await control("POST", `/hosts/${lone.uid}`, { health: "unhealthy" });
    for (let i = 0; i < 6; i++) await h!.cycle();
    expect(edgePosts("C1")).toHaveLength(postsBefore + 1);
    expect(textOf(edgePosts("C1").at(-1)!)).toContain(`Edge host ${lone.name} is unhealthy`);
    expect(h!.updates("C1")).toHaveLength(updatesBefore);
  });

  it("a channel hears only its project: and tag:, and project: outside PALETTE_PROJECTS is refused", async () => {
    // the poll watches only the first project: the second is outside PALETTE_PROJECTS
    const narrowed = await setup(
      (watched) => [
        { channel: "C1", text: `subscribe edge project:${watched}` },
        { channel: "C2", text: "subscribe edge tag:site:store-9001" },
      ],
      (projects) => [projects[0]!],
    );
    const [watched, other] = narrowed.sim.control.projects();
    const refused = await bot!.command(`subscribe edge project:${other}`, {
      channelId: "C3",
      userId: "U1",
    });
    expect(refused.status).toBe(200);
    expect(await narrowed.subs.forChannel("C3")).toEqual([]);

    await control("POST", "/sites", { site: "store-9001", projectUid: watched, hosts: 3 });
    await h!.cycle();
    const elsewhere = await healthyHost(watched);
    await control("POST", "/sites/store-9001/outage", { projectUid: watched });
    await control("POST", `/hosts/${elsewhere.uid}`, { health: "unhealthy" });
    for (let i = 0; i < 6; i++) await h!.cycle();
    const c1 = edgePosts("C1").map(textOf);
    const c2 = edgePosts("C2").map(textOf);
    // C1 hears the site and the other host of its project; C2 only the site its tag names
    expect(c1).toHaveLength(2);
    expect(c2).toHaveLength(1);
    expect(c2[0]).toContain("Site store-9001: 3 edge hosts dark");
    expect(c1.join(" ")).toContain(`Edge host ${elsewhere.name} is unhealthy`);
    expect(c2[0]).not.toContain(elsewhere.name);
  });

  it("Slack's 429 and Palette's 429 in the middle lose and duplicate nothing", async () => {
    await setup([{ channel: "C1", text: "subscribe edge" }]);
    const project = h!.sim.control.projects()[0]!;
    await control("POST", "/sites", { site: "store-9002", projectUid: project, hosts: 5 });
    await h!.cycle();
    await control("POST", "/sites/store-9002/outage", { projectUid: project });
    const single = await healthyHost(h!.sim.control.projects()[1]);
    await control("POST", `/hosts/${single.uid}`, { health: "unhealthy" });
    // Palette answers 429 to the edge search for a while: those cycles record nothing
    h!.sim.control.addFault({
      pathPrefix: "/v1/dashboard/edgehosts/search",
      kind: "status",
      status: 429,
      retryAfterSec: 0,
      times: 6,
    });
    // and Slack rate-limits the first edge post
    let limited = 0;
    h!.fake.on("chat.postMessage", (call) => {
      if (limited > 0 || !JSON.stringify(call.body).includes("store-9002")) return undefined;
      limited += 1;
      return {
        status: 429,
        headers: { "retry-after": "3" },
        body: { ok: false, error: "ratelimited" },
      };
    });
    for (let i = 0; i < 10; i++) await h!.cycle();
    // Palette's 429s did fail edge cycles (the watch said so), and Slack's 429 was met once
    expect(edgeWarnings.join("")).toContain("edge hosts not read this cycle");
    expect(limited).toBe(1);
    expect(h!.sender.metrics().rateLimited).toBe(1);
    // what reached the channel: the calls Slack accepted (the 429'd one posted nothing)
    const told = edgePosts("C1").map(textOf);
    expect(told.filter((text) => text.includes("Site store-9002"))).toHaveLength(1 + limited);
    expect(told.filter((text) => text.includes(`Edge host ${single.name}`))).toHaveLength(1);
    expect(told).toHaveLength(2 + limited);
    expect(h!.updates("C1")).toEqual([]);
    // each notice's row sent once, none left waiting
    const rows = await h!.db.all<{ cluster_uid: string; sent: number }>(
      "SELECT cluster_uid, COUNT(sent_at) AS sent FROM notify_outbox WHERE channel = 'C1' GROUP BY cluster_uid",
    );
    expect(rows.map((row) => [row.cluster_uid.split(":")[0], Number(row.sent)]).sort()).toEqual([
      ["edge-host", 1],
      ["edge-site", 1],
    ]);
    expect(await h!.sender.outboxStats()).toMatchObject({ depth: 0, deadLetters: 0 });
  });
});
