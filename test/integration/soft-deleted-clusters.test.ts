import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import { type RecordedCall, startFakeSlack } from "../support/fake-slack.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * Palette keeps soft-deleted clusters and lists them unless a search asks `isDeleted = false`.
 * The simulator does the same; through Slack's wire format, the real bot never shows them and
 * never calls a name ambiguous because a deleted cluster once had it.
 */

let sim: RunningSimulator;
let palette: PaletteClient;
let h: BotHarness;
let twin: FleetCluster;
let live: FleetCluster;
let retired: FleetCluster[];

const allText = (call: RecordedCall) => JSON.stringify(call.body);

async function ask(text: string): Promise<RecordedCall> {
  const sent = await h.command(text);
  expect(sent.status).toBe(200);
  const [answer] = await h.responses(sent.responseId, 1, 10_000);
  return answer!;
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 40, projects: 3, seed: 7, softDeleted: 4 });
  palette = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
  });
  h = await startBot({ palette, fake: await startFakeSlack() });
  const everything = sim.control.clusters(undefined, { includeDeleted: true });
  const deleted = everything.filter((c) => c.state === "Deleted");
  const listed = sim.control.clusters();
  expect(deleted).toHaveLength(4);
  expect(listed.some((c) => c.state === "Deleted")).toBe(false);
  twin = deleted.find((d) => listed.some((c) => c.name === d.name))!;
  live = listed.find((c) => c.name === twin.name && c.projectUid === twin.projectUid)!;
  retired = deleted.filter((d) => d.uid !== twin.uid);
});

afterAll(async () => {
  await h?.close();
  await h?.fake.close();
  await palette?.close();
  await sim?.close();
});

describe("soft-deleted clusters", () => {
  it("the simulator lists them to a search that does not ask isDeleted = false", async () => {
    const response = await fetch(`${sim.url}/v1/dashboard/spectroclusters/search?limit=50`, {
      method: "POST",
      headers: { apiKey: sim.credentials.apiKey, "Content-Type": "application/json" },
      body: JSON.stringify({ filter: { conjunction: "and", filterGroups: [] }, sort: [] }),
    });
    const body = (await response.json()) as { items: { metadata: { uid: string } }[] };
    expect(body.items.map((item) => item.metadata.uid)).toContain(twin.uid);
  });

  it("cluster <name> finds the live cluster, not the deleted twin, with no choice to make", async () => {
    const answer = await ask(`cluster ${twin.name}`);
    const text = allText(answer);
    expect(text).toContain(live.uid);
    expect(text).not.toContain(twin.uid);
    expect(text).not.toMatch(/clusters are named/);
  });

  it("nodes <name> resolves the same way", async () => {
    const answer = await ask(`nodes ${twin.name}`);
    expect(allText(answer)).not.toContain(twin.uid);
    expect(allText(answer)).not.toMatch(/clusters are named/);
  });

  it("a name only a deleted cluster had is unknown", async () => {
    const answer = await ask(`cluster ${retired[0]!.name}`);
    expect(allText(answer)).toContain("No cluster named");
    expect(allText(answer)).not.toContain(retired[0]!.uid);
  });

  it("clusters never lists them", async () => {
    for (const project of sim.control.projects()) {
      const answer = await ask(`clusters project:${project}`);
      const text = allText(answer);
      for (const cluster of [twin, ...retired]) {
        expect(text).not.toContain(cluster.uid);
        if (cluster !== twin) expect(text).not.toContain(cluster.name);
      }
    }
    const tenant = allText(await ask("clusters"));
    for (const cluster of retired) expect(tenant).not.toContain(cluster.name);
  });
});
