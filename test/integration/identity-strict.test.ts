import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { buildIdentity } from "../../src/app/identity.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * IDENTITY=strict: reads run as the linked person too, so Palette shows each person only the
 * projects their roles reach (here the tenant scope, PALETTE_PROJECTS empty).
 */

const SOLO = "USOLO1";
let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
let h: BotHarness;

async function ask(text: string, userId: string) {
  const sent = await h.command(text, { userId });
  const [answer] = await h.responses(sent.responseId, 1, 10_000);
  return JSON.stringify(answer!.body);
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 30, seed: 12 });
  palette = apiKeyClient(sim, { retries: 1 });
  fake = await startFakeSlack();
  h = await startBot({
    palette,
    fake,
    policy: allowAll,
    identity: (db) =>
      buildIdentity(
        {
          mode: "strict",
          method: "key",
          keys: { current: new Secret(Buffer.alloc(32, 8).toString("base64")) },
        },
        { db, clock: systemClock, logger: silentLogger, paletteApiUrl: sim.url },
      ),
  });
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

describe("IDENTITY=strict", () => {
  it("asks an unlinked person to log in before any read, and asks Palette nothing", async () => {
    sim.control.clearRequests();
    expect(await ask("clusters", "UNOBODY")).toContain("/palette login");
    expect(sim.control.requests()).toEqual([]);
  });

  it("lists only the projects the person's roles reach, read with their key", async () => {
    const [first, second] = sim.control.projects() as [string, string];
    await h.bot.edge.commandDeps.identity!.store.put({
      slackUserId: SOLO,
      paletteUserUid: "solo",
      paletteUserName: "Sol One-Project",
      method: "key",
      apiKey: new Secret(sim.control.issueUserKey("solo@example.com")),
    });
    sim.control.clearRequests();
    const answer = await ask("clusters", SOLO);
    expect(answer).toContain(`Clusters (${sim.control.clusters(first).length})`);
    const firstNames = new Set(sim.control.clusters(first).map((c) => c.name));
    const onlySecond = sim.control.clusters(second).filter((c) => !firstNames.has(c.name));
    expect(onlySecond.length).toBeGreaterThan(0);
    for (const cluster of onlySecond) expect(answer).not.toContain(`*${cluster.name}*`);
    const callers = new Set(sim.control.requests().map((r) => r.caller));
    expect(callers).toEqual(new Set(["solo@example.com"]));
    await h.bot.edge.commandDeps.identity!.store.remove(SOLO);
  });
});
