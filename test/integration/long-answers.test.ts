import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { type FakeSlack, type RecordedCall, startFakeSlack } from "../support/fake-slack.ts";
import { readFixtureJson } from "../support/fixtures.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * Answers longer than one Slack message (issue 31, item 1): Slack refuses a message whose blocks
 * carry more than about 11,000 characters of text (`msg_blocks_too_long`, slackapi/bolt-js #2509,
 * #2867), and the strict fake Slack refuses it the same way. `@Palette nodes` on a 300-machine
 * cluster and `/palette alerts` with 300 clusters raising come a page at a time, each page a
 * message Slack takes, with a Next page button whose click (signed, as Slack sends it) shows the
 * next one, until every machine and every cluster was shown.
 */

let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
let h: BotHarness;
let watched: string;
let sequence = 0;

type Envelope = { event: Record<string, unknown>; event_id: string } & Record<string, unknown>;

function mention(text: string, channel: string, ts: string): Envelope {
  const base = readFixtureJson<{ payload: Envelope }>(
    "slack",
    "events",
    "app_mention.json",
  ).payload;
  return {
    ...base,
    event_id: `Ev${++sequence}LONG`,
    event: { ...base.event, text, ts, channel },
  };
}

interface Element {
  type: string;
  action_id?: string;
  value?: string;
  text?: { text: string };
}

const buttons = (call: RecordedCall) =>
  ((call.body.blocks ?? []) as Array<{ elements?: Element[] }>).flatMap((block) =>
    (block.elements ?? []).filter((element) => element.type === "button"),
  );
const nextButton = (call: RecordedCall) =>
  buttons(call).find((button) => button.text?.text.startsWith("Next page"));
const text = (call: RecordedCall) => JSON.stringify(call.body.blocks);

/** follows Next page from `first` to the end; every page Slack took, in order */
async function allPages(first: RecordedCall): Promise<RecordedCall[]> {
  const pages = [first];
  for (let next = nextButton(first); next; next = nextButton(pages.at(-1)!)) {
    expect(pages.length).toBeLessThan(20);
    const click = await h.click(next.action_id!, next.value!);
    expect(click.status).toBe(200);
    const [answer] = await h.responses(click.responseId, 1, 15_000);
    pages.push(answer!);
  }
  return pages;
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 300, seed: 31 });
  [watched] = sim.control.projects() as [string];
  palette = apiKeyClient(sim, { retries: 1 });
  fake = await startFakeSlack();
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [],
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock: systemClock,
    logger: silentLogger,
  });
  h = await startBot({ palette, policy, fake, projects: [watched] });
}, 60_000);

afterAll(async () => {
  await h?.close();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

describe("answers longer than one Slack message", () => {
  it("@Palette nodes on a 300-machine cluster answers a page at a time", async () => {
    const big = sim.control.addCluster({
      name: "big-fleet-node",
      projectUid: watched,
      provider: "aws",
      pools: [
        { name: "control-plane", size: 3, isControlPlane: true, instanceType: "m5.xlarge" },
        { name: "worker-a", size: 99, isControlPlane: false, instanceType: "m5.2xlarge" },
        { name: "worker-b", size: 99, isControlPlane: false, instanceType: "m5.2xlarge" },
        { name: "worker-c", size: 99, isControlPlane: false, instanceType: "m5.2xlarge" },
      ],
    });
    const ts = "1700000100.000100";
    const sent = await h.post(JSON.stringify(mention(`<@UBOT> nodes ${big.name}`, "CNODES1", ts)), {
      "content-type": "application/json",
    });
    expect(sent.status).toBe(200);
    const posted = async () =>
      fake.callsTo("chat.postMessage").find((call) => call.body.channel === "CNODES1");
    const deadline = Date.now() + 20_000;
    while (!(await posted()) && Date.now() < deadline) {
      await fake
        .waitFor("chat.postMessage", fake.callsTo("chat.postMessage").length + 1, 200)
        .catch(() => {});
    }
    const first = await posted();
    // before paging, Slack refused the whole answer: nothing reached the channel
    expect(fake.refused.map((call) => call.method)).toEqual([]);
    expect(first, "an answer Slack took").toBeDefined();
    expect(first!.body.thread_ts).toBe(ts);
    expect(text(first!)).toMatch(/Page 1 of \d+/);

    const pages = await allPages(first!);
    expect(pages.length).toBeGreaterThan(1);
    expect(fake.refused).toEqual([]);
    const names = new Set(
      pages.flatMap((page) => text(page).match(/big-fleet-node-[a-z-]+-[0-9a-f]{5}/g) ?? []),
    );
    expect(names.size).toBe(300);
    expect(text(pages.at(-1)!)).toContain(`Page ${pages.length} of ${pages.length}`);
  }, 60_000);

  it("/palette alerts with 300 clusters raising answers through the response_url a page at a time", async () => {
    const raising = sim.control.clusters(watched);
    for (const cluster of raising) {
      sim.control.setHealth(
        cluster.uid,
        "UnHealthy",
        `kubelet not ready on 2 nodes; etcd member ${cluster.name} slow to answer heartbeats`,
      );
    }
    expect(raising.length).toBeGreaterThan(100);
    const sent = await h.command("alerts");
    expect(sent.status).toBe(200);
    const [first] = await h.responses(sent.responseId, 1, 30_000);
    expect(fake.refused.map((call) => call.method)).toEqual([]);
    expect(text(first!)).toMatch(/Page 1 of \d+/);
    const pages = await allPages(first!);
    expect(fake.refused).toEqual([]);
    const shown = new Set(
      raising.filter((cluster) => pages.some((page) => text(page).includes(`*${cluster.name}*`))),
    );
    expect(shown.size).toBe(raising.length);
  }, 90_000);
});
