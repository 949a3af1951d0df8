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
 * `why <edge host>` end to end (issue 39, item 4): signed Slack requests into the bot, the real
 * Palette client, the simulator's edge fleet (a host's events, Palette's audit of the host, its
 * cluster's events) behind it, and the bot's own record of the host's health written by the
 * edge poll's cycle into the bot's store. The fake Slack's users.info says the reader is in
 * America/New_York (12:00 UTC is 07:00 there on this day).
 */

const CHANNEL = "C111";
const ALICE = "W111";
const MINUTE = 60_000;
const SOLO = { uid: "solo", name: "Sol One-Project", email: "solo@example.com" };

afterEach(closeChangesHarnesses);

function start(options: { strict?: boolean; bothProjects?: boolean } = {}): Promise<Harness> {
  return startChangesHarness({
    simulator: { clusters: 24, projects: 2, seed: 27, edgeHosts: 60, edgeFlapping: 0 },
    access: {},
    ...(options.bothProjects ? { projects: (sim) => sim.control.projects() } : {}),
    bot: options.strict ? strictIdentity(9) : undefined,
  });
}

async function ask(h: Harness, text: string): Promise<string> {
  const answer = await h.bot.command(text, { userId: ALICE, channelId: CHANNEL });
  const [reply] = await h.bot.responses(answer.responseId, 1);
  return JSON.stringify(reply!.body);
}

async function addHostAudit(h: Harness, hostUid: string, body: object): Promise<void> {
  const response = await fetch(`${h.sim.url}/__sim/edge/hosts/${hostUid}/audits`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
}

describe("why <edge host>", () => {
  it("tells the host's story: the bot's 'unhealthy since', its last event, a write before it and its cluster's trouble", async () => {
    const h = await start();
    const { host, cluster } = siteHost(h, "store-0142");
    await cycle(h);
    h.clock.advance(5 * MINUTE);
    await addHostAudit(h, host.uid, {
      actionType: "update",
      actionMsg: "Edge host tags updated <!channel> & <script>",
      email: "editor@example.com",
    });
    h.clock.advance(4 * MINUTE);
    await cycle(h); // 12:09: last seen healthy
    h.clock.advance(MINUTE);
    h.sim.control.edge.setHealth(host.uid, "unhealthy", "heartbeat missed <!here>");
    h.clock.advance(MINUTE);
    await cycle(h); // 12:11: the bot's first read of it unhealthy
    h.clock.advance(MINUTE);
    h.sim.control.setHealth(cluster.uid, "UnHealthy", "edge node not ready");
    h.clock.advance(2 * MINUTE);
    h.sim.control.clearRequests();

    const text = await ask(h, `why ${host.name}`);
    const cause = /Likely cause:\*[^"]*/.exec(text)?.[0] ?? "";
    expect(cause).toContain("unhealthy since `2026-11-25 07:11`, the bot saw it");
    expect(cause).toContain("last seen healthy `2026-11-25 07:09`");
    expect(cause).toContain("last event *EdgeHostUnhealthy* at `2026-11-25 07:10`");
    expect(cause).toContain("editor@example.com");
    expect(cause).toContain("`2026-11-25 07:05`");
    expect(cause).toContain(`cluster \`${cluster.name}\` went *ClusterUnhealthy* at`);
    // the story: the host's event, Palette's audit of it, its cluster's event, the bot's record
    expect(text).toContain("Edge host tags updated");
    expect(text).toContain("edge node not ready");
    expect(text).toContain(`_event_ of \`${cluster.name}\``);
    expect(text).toContain("the bot first read it unhealthy");
    expect(text).toContain("the bot's last read of it healthy");
    // escaped everywhere
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).toContain("&lt;!here&gt;");
    expect(text).not.toContain("<!channel>");
    expect(text).not.toContain("<!here>");
    // the host's events in its project's scope, once; the audit of the host and of its cluster
    const events = calls(h, `/v1/events/components/edgehost/${host.uid}`);
    expect(events).toHaveLength(1);
    expect(events[0]!.status).toBe(200);
    expect(calls(h, "/v1/audits")).toHaveLength(2);
    expect(calls(h, `/v1/events/components/spectrocluster/${cluster.uid}`)).toHaveLength(1);
  });

  it("a Palette 500 on the host's events: the story shows what it has and says the events are missing", async () => {
    const h = await start();
    const { host } = siteHost(h, "store-0077");
    await cycle(h);
    h.clock.advance(MINUTE);
    h.sim.control.edge.setHealth(host.uid, "unhealthy");
    h.clock.advance(MINUTE);
    await cycle(h);
    await addHostAudit(h, host.uid, { actionType: "action", actionMsg: "pairing reset" });
    h.clock.advance(MINUTE);
    h.sim.control.addFault({
      pathPrefix: "/v1/events/components/edgehost/",
      kind: "status",
      status: 500,
    });

    const text = await ask(h, `why ${host.name}`);
    expect(text).toContain("Likely cause:* unhealthy since `2026-11-25 07:02`, the bot saw it");
    expect(text).toContain("pairing reset");
    expect(text).toContain("the bot first read it unhealthy");
    expect(text).toMatch(/the events could not be read: [^"]*Palette/);
    expect(text).not.toContain("EdgeHostUnhealthy");
  });

  it("a healthy host has nothing to explain; a host the bot never read says it has no record", async () => {
    const h = await start();
    const { host } = siteHost(h, "plant-berlin");
    expect(await ask(h, `why ${host.uid}`)).toContain("No current trouble");
    h.sim.control.edge.setHealth(host.uid, "unhealthy");
    h.clock.advance(MINUTE);
    const text = await ask(h, `why ${host.name}`);
    expect(text).toContain("the bot has no record of its health");
    expect(text).toContain("EdgeHostUnhealthy");
  });

  it("a name that is neither a cluster nor an edge host gets a clear line, and no host outside PALETTE_PROJECTS is read", async () => {
    const h = await start();
    const text = await ask(h, "why store-9999-h000");
    expect(text).toContain("No cluster or edge host named `store-9999-h000`");

    const other = h.sim.control.projects()[1]!;
    const { host } = siteHost(h, "store-0500", other);
    h.sim.control.clearRequests();
    const outside = await ask(h, `why ${host.name}`);
    expect(outside).toContain(`No cluster or edge host named \`${host.name}\``);
    expect(calls(h, "/v1/events/components/edgehost/")).toHaveLength(0);
    expect(await ask(h, `why ${host.name} project:${other}`)).not.toContain("Likely cause");
  });

  it("under IDENTITY=strict, reads as the person: a host in a project they have no role in is not theirs to read", async () => {
    const h = await start({ strict: true, bothProjects: true });
    const [mine, theirs] = h.sim.control.projects() as [string, string];
    const { host: own } = siteHost(h, "store-0600", mine);
    const { host: foreign } = siteHost(h, "store-0601", theirs);
    expect(await ask(h, `why ${own.name}`)).toContain("/palette login");
    await linkWithOwnKey(h, ALICE, SOLO);
    h.sim.control.edge.setHealth(own.uid, "unhealthy");
    h.clock.advance(MINUTE);
    h.sim.control.clearRequests();
    const text = await ask(h, `why ${own.name} project:${mine}`);
    expect(text).toContain("EdgeHostUnhealthy");
    const events = calls(h, `/v1/events/components/edgehost/${own.uid}`);
    expect(events.map((request) => request.caller)).toEqual([SOLO.email]);

    h.sim.control.clearRequests();
    const refused = await ask(h, `why ${foreign.uid} project:${theirs}`);
    expect(refused).toContain("Palette does not allow Sol One-Project");
    expect(refused).not.toContain("Likely cause");
    expect(calls(h, "/v1/events/components/edgehost/")).toHaveLength(0);
  });
});
