import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { buildIdentity } from "../../src/app/identity.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import { slackClientOptions } from "../../src/slack/app.ts";
import { slackEmailOf } from "../../src/slack/user-email.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { apiKeyClient, uniqueRunningCluster } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * LINK_METHOD=email end to end: the Slack user's e-mail (users.info on the fake Slack) finds
 * their Palette user, the bot's account mints a short-lived key for them, the command runs with
 * it, and the key is deleted when the command is done.
 */

const EMAILS: Record<string, string> = {
  UEDITOR: "editor@example.com",
  UVIEWER: "viewer@example.com",
  UNOBODY: "nobody@example.com",
};

let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
let h: BotHarness;
let running: FleetCluster;
const opened: BotHarness[] = [];

/** a fake Slack whose users.info gives each test user's e-mail */
async function slackWithEmails(): Promise<FakeSlack> {
  const slack = await startFakeSlack();
  slack.on("users.info", (call) => ({
    body: {
      ok: true,
      user: { id: call.body.user, profile: { email: EMAILS[String(call.body.user)] } },
    },
  }));
  return slack;
}

async function start(service: PaletteClient, own: FakeSlack): Promise<BotHarness> {
  const slack = new webApi.WebClient("xoxb-test", slackClientOptions(own.apiUrl));
  const bot = await startBot({
    palette,
    fake: own,
    policy: allowAll,
    identity: (db: SqlDb) =>
      buildIdentity(
        {
          mode: "linked",
          method: "email",
          keys: { current: new Secret(Buffer.alloc(32, 2).toString("base64")) },
        },
        {
          db,
          clock: systemClock,
          logger: silentLogger,
          paletteApiUrl: sim.url,
          service,
          emailOf: slackEmailOf(slack),
        },
      ),
  });
  opened.push(bot);
  return bot;
}

async function ask(bot: BotHarness, text: string, userId: string) {
  const sent = await bot.command(text, { userId });
  const [answer] = await bot.responses(sent.responseId, 1, 10_000);
  return JSON.stringify(answer!.body);
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 20, seed: 21 });
  palette = apiKeyClient(sim, { retries: 1 });
  fake = await slackWithEmails();
  h = await start(palette, fake);
  running = uniqueRunningCluster(sim);
});

afterAll(async () => {
  for (const bot of opened) await bot.close();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

describe("LINK_METHOD=email", () => {
  it("mints a key for the person found by e-mail, acts with it, and deletes it after", async () => {
    sim.control.clearRequests();
    const answer = await ask(h, `kubeconfig ${running.name}`, "UEDITOR");
    expect(answer).toContain("downloaded as Eddie Editor");
    const requests = sim.control.requests();
    const download = requests.filter((r) => r.path.endsWith("/assets/kubeconfig"));
    expect(download).toEqual([
      expect.objectContaining({ status: 200, caller: "editor@example.com" }),
    ]);
    const minted = requests.filter((r) => r.path.startsWith("/v1/apiKeys"));
    expect(minted.map((r) => [r.method, r.status, r.caller])).toEqual([
      ["POST", 201, "bot@example.com"],
      ["DELETE", 204, "bot@example.com"],
    ]);
    expect(sim.control.liveUserKeys("editor@example.com")).toBe(0);
    expect(await ask(h, "whoami", "UEDITOR")).toContain("Eddie Editor");
  });

  it("a viewer is refused by Palette in their name, and their minted key is deleted too", async () => {
    const answer = await ask(h, `kubeconfig ${running.name}`, "UVIEWER");
    expect(answer).toContain("Palette does not allow Vera Viewer to download kubeconfigs");
    expect(sim.control.liveUserKeys("viewer@example.com")).toBe(0);
  });

  it("an address no Palette user has is told so, and nothing is downloaded", async () => {
    sim.control.clearRequests();
    const answer = await ask(h, `kubeconfig ${running.name}`, "UNOBODY");
    expect(answer).toContain("No Palette user has your Slack e-mail address");
    expect(sim.control.requests().filter((r) => r.path.endsWith("/assets/kubeconfig"))).toEqual([]);
  });

  it("says which permission the bot's account lacks when it may not mint keys", async () => {
    const viewerAsService = apiKeyClient(sim, {
      retries: 0,
      credentials: {
        kind: "apiKey",
        apiKey: new Secret(sim.control.issueUserKey("viewer@example.com")),
      },
    });
    const itsSlack = await slackWithEmails();
    try {
      const weak = await start(viewerAsService, itsSlack);
      const answer = await ask(weak, `kubeconfig ${running.name}`, "UEDITOR");
      expect(answer).toContain("may not find users or create API keys");
      expect(answer).toContain("LINK_METHOD=key");
    } finally {
      await viewerAsService.close();
      await itsSlack.close();
    }
  });
});
