import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaletteClient } from "../../src/palette/client.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { readFixtureJson } from "../support/fixtures.ts";
import { apiKeyClient, uniqueRunningCluster } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * SLACK_TEAM_ID and pasted Palette links: a link_shared event's envelope names the workspace the
 * app is installed in (the home one) even when a Slack Connect guest pasted the link in a shared
 * channel, and its event names no team. Whose link it is comes from the sharing user's team, and
 * only the home workspace's members get an unfurl.
 */

const HOME = "T123ABC456"; // the fixture's team_id
const MEMBER = "UHOME0001";
const GUEST = "UGUEST001";
const CONSOLE = "https://console.example.com/";

let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
let h: BotHarness;
let web: FleetCluster;
let url: string;
let sequence = 0;

/** users.info as Slack answers it: a guest of a shared channel carries their own team's id */
function answerUsersInfo() {
  fake.on("users.info", (call) => ({
    body: {
      ok: true,
      user: { id: call.body.user, team_id: call.body.user === GUEST ? "T999OTHER" : HOME },
    },
  }));
}

/** the fake forgets its scripted answers at reset: script users.info again */
function resetSlack() {
  fake.reset();
  answerUsersInfo();
}

type Envelope = { event: Record<string, unknown>; event_id: string } & Record<string, unknown>;

function delivery(event: Record<string, unknown>): Envelope {
  const base = readFixtureJson<{ payload: Envelope }>(
    "slack",
    "events",
    "link_shared.json",
  ).payload;
  return {
    ...base,
    event_id: `EvTEAM${++sequence}`,
    event: {
      ...base.event,
      channel: "CSHARED1",
      message_ts: `1700000${String(++sequence).padStart(3, "0")}.000100`,
      links: [{ domain: "console.example.com", url }],
      ...event,
    },
  };
}

async function share(event: Record<string, unknown>): Promise<string> {
  const from = h.conversations.length;
  const sent = await h.post(JSON.stringify(delivery(event)), {
    "content-type": "application/json",
  });
  expect(sent.status).toBe(200);
  const [settled] = (await h.settled(from + 1)).slice(from);
  return settled!.outcome;
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 20, seed: 12 });
  const [watched] = sim.control.projects() as [string];
  palette = apiKeyClient(sim, { retries: 1 });
  fake = await startFakeSlack();
  h = await startBot({ palette, fake, projects: [watched], homeTeamId: HOME });
  web = uniqueRunningCluster(sim, watched);
  url = `${CONSOLE}projects/${watched}/clusters/${web.uid}/overview`;
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

describe("link_shared under SLACK_TEAM_ID", () => {
  it("a guest from another workspace pastes a cluster link: nothing is unfurled, Palette is not asked", async () => {
    resetSlack();
    sim.control.clearRequests();
    expect(await share({ user: GUEST })).not.toBe("answered");
    expect(fake.callsTo("chat.unfurl")).toEqual([]);
    expect(sim.control.requests()).toEqual([]);
  });

  it("an event that names the guest's team is not unfurled either", async () => {
    resetSlack();
    const foreign = delivery({ user: GUEST, user_team: "T999OTHER", source_team: "T999OTHER" });
    const sent = await h.post(JSON.stringify(foreign), { "content-type": "application/json" });
    expect(sent.status).toBe(200);
    // a home member's link after it, unfurled: the bot has dealt with the events before it, and
    // the one unfurl is the member's (the foreign event is dropped before any outcome is kept)
    expect(await share({ user: MEMBER })).toBe("answered");
    const unfurls = fake.callsTo("chat.unfurl");
    expect(unfurls).toHaveLength(1);
    expect(unfurls[0]!.body.ts).not.toBe(foreign.event.message_ts);
  });

  it("a member of the home workspace pastes the same link: unfurled", async () => {
    resetSlack();
    expect(await share({ user: MEMBER })).toBe("answered");
    const [unfurl] = fake.callsTo("chat.unfurl");
    expect(JSON.stringify(unfurl!.body)).toContain(web.name);
  });

  it("when Slack cannot say whose the link is, nothing is unfurled", async () => {
    fake.reset();
    fake.on("users.info", () => ({ body: { ok: false, error: "user_not_found" } }));
    expect(await share({ user: "UUNKNOWN1" })).not.toBe("answered");
    expect(fake.callsTo("chat.unfurl")).toEqual([]);
  });
});
