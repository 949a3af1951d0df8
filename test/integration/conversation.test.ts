import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import { CardStore } from "../../src/store/cards.ts";
import { type FakeSlack, type RecordedCall, startFakeSlack } from "../support/fake-slack.ts";
import { readFixtureJson } from "../support/fixtures.ts";
import { apiKeyClient, uniqueRunningCluster } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * Talking to the bot where the conversation is: signed Events API deliveries built from the
 * example payloads of Slack's reference pages reach the real bot (HTTP mode), which asks the
 * Palette simulator and answers the fake Slack. Assertions read what Slack would have received.
 */

const KUBE_USER = "UKUBE9";
const CONSOLE = "https://console.example.com/";

let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
let h: BotHarness;
let watched: string;
let outside: string;
let web: FleetCluster;
let sequence = 0;

type Envelope = { event: Record<string, unknown>; event_id: string } & Record<string, unknown>;

function fixture(file: string): Envelope {
  return readFixtureJson<{ payload: Envelope }>("slack", "events", file).payload;
}

/** the fixture's envelope with a fresh event_id (unless given) and the event changed as told */
function delivery(file: string, event: Record<string, unknown>, eventId?: string): Envelope {
  const base = fixture(file);
  return {
    ...base,
    event_id: eventId ?? `Ev${++sequence}TEST`,
    event: { ...base.event, ...event },
  };
}

async function send(envelope: Envelope, headers: Record<string, string> = {}) {
  const sent = await h.post(JSON.stringify(envelope), {
    "content-type": "application/json",
    ...headers,
  });
  expect(sent.status).toBe(200);
  return sent;
}

/** a fresh message ts, so each test's thread is its own */
const nextTs = () => `1700000${String(++sequence).padStart(3, "0")}.000100`;

const postsIn = (channel: string) =>
  fake.callsTo("chat.postMessage").filter((call) => call.body.channel === channel);
const textOf = (call: RecordedCall) => JSON.stringify(call.body);

/**
 * The outcomes of the deliveries a test sends from now on: every test waits for its own, so none
 * is left running into the next one.
 */
function mark() {
  const from = h.conversations.length;
  return async (count: number) => (await h.settled(from + count)).slice(from, from + count);
}

/** chat.unfurl's `unfurls`, sent as a JSON string in a form or as an object in JSON */
function unfurlsOf(call: RecordedCall): Record<string, { blocks: unknown[] }> {
  const unfurls = call.body.unfurls;
  return (typeof unfurls === "string" ? JSON.parse(unfurls) : unfurls) as Record<
    string,
    { blocks: unknown[] }
  >;
}

async function answerIn(channel: string, count = 1): Promise<RecordedCall[]> {
  const deadline = Date.now() + 10_000;
  while (postsIn(channel).length < count) {
    if (Date.now() > deadline) throw new Error(`no ${count} post(s) in ${channel}`);
    await fake
      .waitFor("chat.postMessage", fake.callsTo("chat.postMessage").length + 1, 200)
      .catch(() => {});
  }
  return postsIn(channel);
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 40, seed: 11 });
  [watched, outside] = sim.control.projects() as [string, string];
  palette = apiKeyClient(sim, { retries: 1 });
  fake = await startFakeSlack();
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [KUBE_USER],
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock: systemClock,
    logger: silentLogger,
  });
  h = await startBot({ palette, policy, fake, projects: [watched] });
  web = uniqueRunningCluster(sim, watched);
  expect(web).toBeDefined();
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

afterEach(() => {
  sim.control.clearFaults();
  fake.reset();
  sim.control.clearRequests();
});

describe("@Palette in a channel", () => {
  it("reacts at once, then answers in a new thread under the mention, for the channel to see", async () => {
    const own = mark();
    const ts = nextTs();
    const sent = await send(
      delivery("app_mention.json", {
        text: `<@UBOT> cluster ${web.name}`,
        ts,
        channel: "CMENTION1",
      }),
    );
    expect(sent.ms).toBeLessThan(3_000);
    const [answer] = await answerIn("CMENTION1");
    expect(answer!.body.thread_ts).toBe(ts);
    expect(textOf(answer!)).toContain(web.name);
    const [seen] = fake.callsTo("reactions.add");
    expect(seen!.body).toMatchObject({ channel: "CMENTION1", timestamp: ts, name: "eyes" });
    // the reaction went out before the answer
    expect(seen!.at).toBeLessThanOrEqual(answer!.at);
    expect(await own(1)).toEqual([{ event: "app_mention", outcome: "answered" }]);
  });

  it("answers `@Palette edge host <name>` with the host's card, through the same verb table", async () => {
    const own = mark();
    const [host] = sim.control.edge.addSite("store-mention", watched, 1);
    const ts = nextTs();
    await send(
      delivery("app_mention.json", {
        text: `<@UBOT> edge host ${host!.name}`,
        ts,
        channel: "CEDGE1",
      }),
    );
    const [answer] = await answerIn("CEDGE1");
    expect(answer!.body.thread_ts).toBe(ts);
    expect(textOf(answer!)).toContain(`"value":"why ${host!.uid} project:${watched}"`);
    expect(textOf(answer!)).toContain("*Remote shell*");
    expect(await own(1)).toEqual([{ event: "app_mention", outcome: "answered" }]);
  });

  it("acks in HTTP mode within Slack's 3 s while Palette takes 4 s to answer", async () => {
    const own = mark();
    sim.control.addFault({ pathPrefix: "/v1/", kind: "latency", latencyMs: 4_000 });
    const ts = nextTs();
    const sent = await send(
      delivery("app_mention.json", { text: `<@UBOT> cluster ${web.name}`, ts, channel: "CSLOW1" }),
    );
    expect(sent.ms).toBeLessThan(3_000);
    // acked, and seen: the reaction does not wait for Palette; the answer does
    await fake.waitFor("reactions.add", 1, 3_000);
    expect(postsIn("CSLOW1")).toEqual([]);
    const [answer] = await answerIn("CSLOW1");
    expect(textOf(answer!)).toContain(web.name);
    expect(await own(1)).toEqual([{ event: "app_mention", outcome: "answered" }]);
  }, 20_000);

  it("in a card's thread, answers about the card's cluster without a name", async () => {
    const own = mark();
    const cardTs = nextTs();
    await new CardStore(h.db).put(
      {
        channel: "CCARDS1",
        clusterUid: web.uid,
        ts: cardTs,
        payload: {
          cluster: {
            uid: web.uid,
            name: web.name,
            project: watched,
            state: web.state,
            health: web.health,
            tags: [],
          },
          kinds: ["state"],
          lines: [],
          worse: false,
          alerts: [],
          at: "2026-11-24T10:00:00Z",
        },
      },
      "2026-11-24T10:00:00Z",
    );
    await send(
      delivery("app_mention.json", {
        text: "<@UBOT> nodes",
        ts: nextTs(),
        thread_ts: cardTs,
        channel: "CCARDS1",
      }),
    );
    const [answer] = await answerIn("CCARDS1");
    expect(answer!.body.thread_ts).toBe(cardTs);
    expect(textOf(answer!)).toContain(web.name);
    expect(textOf(answer!)).not.toContain("Which cluster");
    expect(await own(1)).toEqual([{ event: "app_mention", outcome: "answered" }]);
  });

  it("answers a redelivery (X-Slack-Retry-Num: 1, same event_id) once", async () => {
    const own = mark();
    const envelope = delivery("app_mention.json", {
      text: "<@UBOT> alerts",
      ts: nextTs(),
      channel: "CRETRY1",
    });
    await send(envelope);
    await send(envelope, { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" });
    await answerIn("CRETRY1");
    // the retry is dropped on arrival: acked, never handed to the listener
    expect(await own(1)).toEqual([{ event: "app_mention", outcome: "answered" }]);
    expect(postsIn("CRETRY1")).toHaveLength(1);
    expect(fake.callsTo("reactions.add")).toHaveLength(1);
  });

  it("gives the short help once per thread to a mention it cannot parse", async () => {
    const own = mark();
    const thread = nextTs();
    const mention = (text: string) =>
      delivery("app_mention.json", { text, ts: nextTs(), thread_ts: thread, channel: "CHELP1" });
    await send(mention(fixture("app_mention.json").event.text as string));
    const [help] = await answerIn("CHELP1");
    expect(help!.body.thread_ts).toBe(thread);
    expect(textOf(help!)).toContain("did not catch a command");
    await send(mention("<@UBOT> what about the weekend?"));
    await send(mention("<@UBOT> alerts"));
    const outcomes = (await own(3)).map((o) => o.outcome);
    expect(outcomes.sort()).toEqual(["answered", "answered", "ignored"]);
    const posts = postsIn("CHELP1");
    expect(posts).toHaveLength(2);
    expect(posts.filter((post) => textOf(post).includes("did not catch"))).toHaveLength(1);
    expect(fake.callsTo("reactions.add")).toHaveLength(3);
  });

  it("never answers a bot, itself, or an edit", async () => {
    const own = mark();
    await send(
      delivery("app_mention.json", {
        text: "<@UBOT> alerts",
        ts: nextTs(),
        channel: "CLOOP1",
        bot_id: "B0OTHER",
      }),
    );
    await send(delivery("message.im.json", { text: "alerts", user: "UBOT", channel: "DLOOP1" }));
    await send(delivery("message_changed.json", { channel: "DLOOP1", channel_type: "im" }));
    const outcomes = await own(3);
    expect(outcomes.map((o) => o.outcome)).toEqual(["ignored", "ignored", "ignored"]);
    expect(fake.callsTo("chat.postMessage")).toHaveLength(0);
    expect(fake.callsTo("reactions.add")).toHaveLength(0);
  });

  it("sends a kubeconfig asked by mention to the requester's DM only", async () => {
    const own = mark();
    const ts = nextTs();
    await send(
      delivery("app_mention.json", {
        text: `<@UBOT> kubeconfig ${web.name}`,
        ts,
        channel: "CKUBE1",
        user: KUBE_USER,
      }),
    );
    const [line] = await answerIn("CKUBE1");
    expect(line!.body.thread_ts).toBe(ts);
    expect(textOf(line!)).toContain("privately");
    const [complete] = fake.callsTo("files.completeUploadExternal");
    expect(String(complete!.body.channel_id)).toMatch(/^D/);
    expect(fake.uploads.size).toBe(1);
    const content = [...fake.uploads.values()][0]!.toString("utf8");
    expect(content).toContain("apiVersion");
    for (const post of fake.callsTo("chat.postMessage")) {
      expect(textOf(post)).not.toContain("apiVersion");
    }
    expect(await own(1)).toEqual([{ event: "app_mention", outcome: "answered" }]);
  });
});

describe("a DM to the bot", () => {
  it("is a command without the /palette prefix, answered in the DM", async () => {
    const own = mark();
    await send(delivery("message.im.json", { text: `cluster ${web.name}`, ts: nextTs() }));
    const [answer] = await answerIn("D024BE91L");
    expect(answer!.body.thread_ts).toBeUndefined();
    expect(textOf(answer!)).toContain(web.name);
    expect(await own(1)).toEqual([{ event: "message.im", outcome: "answered" }]);
  });
});

describe("a pasted Palette link", () => {
  const clusterUrl = (project: string, uid: string) =>
    `${CONSOLE}projects/${project}/clusters/${uid}/overview`;

  it("unfurls a watched cluster to its card with chat.unfurl", async () => {
    const own = mark();
    const url = clusterUrl(watched, web.uid);
    await send(
      delivery("link_shared.json", {
        channel: "CLINK1",
        message_ts: "1700000999.000100",
        links: [
          { domain: "console.example.com", url },
          { domain: "example.com", url: "https://example.com/12345" },
        ],
      }),
    );
    const [unfurl] = await fake.waitFor("chat.unfurl", 1, 10_000);
    expect(unfurl!.body).toMatchObject({ channel: "CLINK1", ts: "1700000999.000100" });
    const unfurls = unfurlsOf(unfurl!);
    expect(Object.keys(unfurls)).toEqual([url]);
    expect(JSON.stringify(unfurls[url]!.blocks)).toContain(web.name);
    expect(JSON.stringify(unfurls[url]!.blocks)).toContain("Nodes");
    expect(await own(1)).toEqual([{ event: "link_shared", outcome: "answered" }]);
  });

  it("unfurls a watched project's page to its name and cluster counts", async () => {
    const own = mark();
    const url = `${CONSOLE}projects/${watched}/dashboard`;
    await send(
      delivery("link_shared.json", {
        channel: "CLINK4",
        message_ts: "1700000995.000100",
        links: [{ domain: "console.example.com", url }],
      }),
    );
    expect(await own(1)).toEqual([{ event: "link_shared", outcome: "answered" }]);
    const [unfurl] = fake.callsTo("chat.unfurl");
    const blocks = unfurlsOf(unfurl!)[url]!.blocks as Array<{ fields?: Array<{ text: string }> }>;
    const fields = blocks.flatMap((block) => block.fields ?? []).map((field) => field.text);
    expect(JSON.stringify(blocks)).toContain("Palette project");
    expect(fields).toContain(`*Clusters*\n${sim.control.clusters(watched).length}`);
  });

  it("unfurls nothing for a cluster of another project put behind a watched project's path", async () => {
    const stranger = sim.control.clusters(outside)[0]!;
    const own = mark();
    await send(
      delivery("link_shared.json", {
        channel: "CLINK3",
        message_ts: "1700000996.000100",
        links: [{ domain: "console.example.com", url: clusterUrl(watched, stranger.uid) }],
      }),
    );
    expect(await own(1)).toEqual([{ event: "link_shared", outcome: "ignored" }]);
    expect(fake.callsTo("chat.unfurl")).toHaveLength(0);
  });

  it("unfurls nothing outside PALETTE_PROJECTS and asks Palette nothing about it", async () => {
    const stranger = sim.control.clusters(outside)[0]!;
    const own = mark();
    await send(
      delivery("link_shared.json", {
        channel: "CLINK2",
        message_ts: "1700000998.000100",
        links: [{ domain: "console.example.com", url: clusterUrl(outside, stranger.uid) }],
      }),
    );
    const [outcome] = await own(1);
    expect(outcome).toEqual({ event: "link_shared", outcome: "ignored" });
    expect(fake.callsTo("chat.unfurl")).toHaveLength(0);
    expect(sim.control.requests()).toEqual([]);
  });
});
