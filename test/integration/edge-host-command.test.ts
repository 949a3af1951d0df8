import { afterEach, describe, expect, it } from "vitest";
import {
  closeChangesHarnesses,
  type ChangesHarness as Harness,
  linkWithOwnKey,
  startChangesHarness,
  strictIdentity,
} from "../support/changes-harness.ts";
import { requestsTo as calls, edgeCycle as cycle, siteHost } from "../support/edge-host-steps.ts";

/**
 * `/palette edge host <name|uid>` end to end (issue 39, item 3): signed Slack requests into the
 * bot, the real Palette client, the simulator's edge fleet behind it, and the bot's own record of
 * the host's health written by the edge poll's cycle.
 */

const CHANNEL = "C111";
const ALICE = "W111";
const MINUTE = 60_000;
const SOLO = { uid: "solo", name: "Sol One-Project", email: "solo@example.com" };

afterEach(closeChangesHarnesses);

function start(options: { strict?: boolean; bothProjects?: boolean } = {}): Promise<Harness> {
  return startChangesHarness({
    simulator: { clusters: 24, projects: 2, seed: 31, edgeHosts: 60, edgeFlapping: 0 },
    access: {},
    ...(options.bothProjects ? { projects: (sim) => sim.control.projects() } : {}),
    bot: options.strict ? strictIdentity(9) : undefined,
  });
}

async function ask(h: Harness, text: string, userId = ALICE): Promise<string> {
  const answer = await h.bot.command(text, { userId, channelId: CHANNEL });
  const [reply] = await h.bot.responses(answer.responseId, 1);
  return JSON.stringify(reply!.body);
}

describe("/palette edge host", () => {
  it("a dark host's card: dark since and last seen healthy from the bot's record, its site, cluster, escaped message, and a Why? button", async () => {
    const h = await start();
    const { host, cluster } = siteHost(h, "store-0142");
    await cycle(h); // 12:00 healthy
    h.clock.advance(9 * MINUTE);
    await cycle(h); // 12:09: last seen healthy
    h.clock.advance(MINUTE);
    h.sim.control.edge.setHealth(host.uid, "unhealthy", "heartbeat missed <!here>");
    h.clock.advance(MINUTE);
    await cycle(h); // 12:11: the bot's first read of it unhealthy
    h.clock.advance(3 * MINUTE);

    const text = await ask(h, `edge host ${host.name}`);
    const since = Date.parse("2026-11-25T12:11:00Z") / 1000;
    const seen = Date.parse("2026-11-25T12:09:00Z") / 1000;
    expect(text).toContain(`*Dark since* <!date^${since}^`);
    expect(text).toContain(`<!date^${seen}^`);
    expect(text).toContain("`store-0142`");
    expect(text).toContain(`\`${cluster.name}\``);
    expect(text).toContain("heartbeat missed &lt;!here&gt;");
    expect(text).not.toContain("<!here>");
    expect(text).toContain(`"value":"why ${host.uid} project:${h.project}"`);
    expect(text).toContain("dark since 2026-11-25 12:11 UTC");

    // the Why? button's command answers with the host's story
    const why = await ask(h, `why ${host.uid} project:${h.project}`);
    expect(why).toContain("Likely cause");
  });

  it("a Palette 500 gives a clear line; an unknown name says so", async () => {
    const h = await start();
    const { host } = siteHost(h, "store-0077");
    expect(await ask(h, "edge host store-9999-h000")).toContain(
      "No edge host named `store-9999-h000`",
    );
    h.sim.control.addFault({
      pathPrefix: "/v1/dashboard/edgehosts/search",
      kind: "status",
      status: 500,
    });
    const text = await ask(h, `edge host ${host.name}`);
    expect(text).toMatch(/could not be read: [^"]*Palette/);
  });

  it("no host outside PALETTE_PROJECTS is read", async () => {
    const h = await start();
    const other = h.sim.control.projects()[1]!;
    const { host } = siteHost(h, "store-0500", other);
    h.sim.control.clearRequests();
    expect(await ask(h, `edge host ${host.name}`)).toContain(`No edge host named \`${host.name}\``);
    expect(await ask(h, `edge host ${host.name} project:${other}`)).not.toContain("Dark since");
    expect(calls(h, `/v1/edgehosts/${host.uid}`)).toHaveLength(0);
  });

  it("under IDENTITY=strict, reads as the person: a host in a project they have no role in is refused", async () => {
    const h = await start({ strict: true, bothProjects: true });
    const [mine, theirs] = h.sim.control.projects() as [string, string];
    const { host: own } = siteHost(h, "store-0600", mine);
    const { host: foreign } = siteHost(h, "store-0601", theirs);
    expect(await ask(h, `edge host ${own.name}`)).toContain("/palette login");
    await linkWithOwnKey(h, ALICE, SOLO);
    h.sim.control.clearRequests();
    const text = await ask(h, `edge host ${own.name} project:${mine}`);
    expect(text).toContain(`"text":"🟢 ${own.name}"`);
    expect(calls(h, `/v1/edgehosts/${own.uid}`).map((request) => request.caller)).toEqual([
      SOLO.email,
    ]);

    h.sim.control.clearRequests();
    const refused = await ask(h, `edge host ${foreign.uid} project:${theirs}`);
    expect(refused).toContain("Palette does not allow Sol One-Project");
    expect(refused).not.toContain("Remote shell");
  });

  it("edge hosts: a site's 25 hosts a page of 20 with a More button, and its next page; filters asked of Palette", async () => {
    const h = await start();
    const hosts = h.sim.control.edge.addSite("store-big", h.project, 25);
    h.sim.control.edge.setHealth(hosts[3]!.uid, "unhealthy", "link down <!here>");
    h.sim.control.clearRequests();

    const first = await ask(h, "edge hosts tag:site:store-big");
    const names = (text: string) => hosts.filter((host) => text.includes(`\`${host.name}\``));
    expect(names(first)).toHaveLength(20);
    const more = `edge hosts tag:site:store-big project:${h.project} --page=2`;
    expect(first).toContain(`"value":"${more}"`);
    const second = await ask(h, more);
    expect(names(second)).toHaveLength(5);
    expect(second).not.toContain('"text":"More"');
    expect(new Set([...names(first), ...names(second)]).size).toBe(25);

    h.sim.control.clearRequests();
    const dark = await ask(h, "edge hosts unhealthy tag:site:store-big");
    expect(names(dark).map((host) => host.uid)).toEqual([hosts[3]!.uid]);
    expect(dark).toContain("🔴");
    const searches = calls(h, "/v1/dashboard/edgehosts/search");
    expect(searches).toHaveLength(1);
    expect(searches[0]!.status).toBe(200);

    expect(await ask(h, "edge hosts broken")).toContain("is not a filter of");
  });

  it("edge hosts: a Palette 500 gives a clear line", async () => {
    const h = await start();
    h.sim.control.addFault({
      pathPrefix: "/v1/dashboard/edgehosts/search",
      kind: "status",
      status: 500,
    });
    expect(await ask(h, "edge hosts unpaired")).toMatch(/could not be listed: [^"]*Palette/);
  });
});
