import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
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

async function setup(channels: Array<{ channel: string; text: string }>, pollProjects?: string[]) {
  const clock = new ManualClock(Date.UTC(2026, 0, 10, 2, 0));
  h = await startNotifyHarness({
    clock,
    clusters: 24,
    projects: 2,
    seed: 21,
    edgeHosts: 120,
    edgeFlapping: 0,
    edge: { graceMs: GRACE },
    ...(pollProjects ? { pollProjects } : {}),
  });
  // the bot's Slack edge on the same store and the same fake Slack: subscribing is a signed request
  bot = await startBot({
    db: h.db,
    palette: h.palette,
    clock,
    fake: h.fake,
    projects: pollProjects ?? h.sim.control.projects(),
  });
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
});
