import { webApi } from "@slack/bolt";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { buildIdentity } from "../../src/app/identity.ts";
import { systemClock } from "../../src/clock.ts";
import type { Logger } from "../../src/log.ts";
import { silentLogger } from "../../src/log.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import { slackClientOptions } from "../../src/slack/app.ts";
import { slackHomeOf, slackPersonOf } from "../../src/slack/user-email.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { apiKeyClient, uniqueRunningCluster } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * LINK_METHOD=email's minted keys when Palette misbehaves, and Slack Connect guests: a failed
 * DELETE of a minted key is logged and counted; a 2xx create whose body cannot be read leaves no
 * key behind (found by its name and deleted) and is logged and counted; a member of another
 * workspace gets no key at all. Signed slash commands, the fake Slack's users.info and auth.test,
 * the simulator's keys.
 */

/** users.info of each test user: the e-mail, and their workspace */
const PEOPLE: Record<string, { email: string; team_id: string; is_stranger?: boolean }> = {
  UEDITOR: { email: "editor@example.com", team_id: "T111" },
  // a Slack Connect guest whose own workspace says this address is theirs
  UGUEST: { email: "editor@example.com", team_id: "T0OTHER" },
  WSTRANGER: { email: "editor@example.com", team_id: "T111", is_stranger: true },
};

interface Logged {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function recordingLogger(into: Logged[]): Logger {
  const at =
    (level: string) =>
    (fields: unknown, message?: string): void => {
      into.push({
        level,
        fields: typeof fields === "object" && fields ? (fields as Record<string, unknown>) : {},
        message: message ?? String(fields),
      });
    };
  const logger = {
    ...silentLogger,
    warn: at("warn"),
    error: at("error"),
    info: at("info"),
    child: () => logger,
  } as unknown as Logger;
  return logger;
}

let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
let h: BotHarness;
let running: FleetCluster;
const logged: Logged[] = [];
const counted: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({ clusters: 20, seed: 21 });
  palette = apiKeyClient(sim, { retries: 0 });
  fake = await startFakeSlack();
  fake.on("users.info", (call) => {
    const person = PEOPLE[String(call.body.user)];
    return {
      body: {
        ok: true,
        user: {
          id: call.body.user,
          team_id: person?.team_id,
          ...(person?.is_stranger ? { is_stranger: true } : {}),
          profile: { email: person?.email },
        },
      },
    };
  });
  const slack = new webApi.WebClient("xoxb-test", slackClientOptions(fake.apiUrl));
  h = await startBot({
    palette,
    fake,
    policy: allowAll,
    identity: (db: SqlDb) =>
      buildIdentity(
        {
          mode: "linked",
          method: "email",
          keys: { current: new Secret(Buffer.alloc(32, 3).toString("base64")) },
        },
        {
          db,
          clock: systemClock,
          logger: recordingLogger(logged),
          paletteApiUrl: sim.url,
          service: palette,
          slackPersonOf: slackPersonOf(slack, slackHomeOf(slack)),
          countMintedKeyTrouble: (kind, outcome) => counted.push(`${kind}/${outcome}`),
        },
      ),
  });
  running = uniqueRunningCluster(sim);
});

afterEach(() => {
  sim.control.clearFaults();
  logged.length = 0;
  counted.length = 0;
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

async function ask(text: string, userId: string): Promise<string> {
  const sent = await h.command(text, { userId });
  const [answer] = await h.responses(sent.responseId, 1, 10_000);
  return JSON.stringify(answer!.body);
}

/** every log line as one text, to look for a key in */
const allLogged = () => JSON.stringify(logged);

describe("LINK_METHOD=email: minted keys Palette will not let go of", () => {
  it("a DELETE of the minted key that fails is logged (no key) and counted", async () => {
    sim.control.addFault({
      pathPrefix: "/v1/apiKeys/",
      method: "DELETE",
      kind: "status",
      status: 500,
    });
    sim.control.clearRequests();
    const answer = await ask(`kubeconfig ${running.name}`, "UEDITOR");
    expect(answer).toContain("downloaded as Eddie Editor");
    expect(counted).toEqual(["delete_failed/left"]);
    const [line] = logged.filter((entry) => entry.message.includes("could not be deleted"));
    expect(line?.fields.keyUid).toEqual(expect.any(String));
    expect(String(line?.fields.keyName)).toContain("palette-chatops for UEDITOR");
    expect(allLogged()).not.toContain("simkey-");
    sim.control.clearFaults();
    // the key is still there: it lives until it expires, as the log says
    expect(sim.control.liveUserKeys("editor@example.com")).toBe(1);
  });

  it("a 2xx create whose body cannot be read: the key is found by its name and deleted, logged and counted", async () => {
    const before = sim.control.liveUserKeys("editor@example.com");
    sim.control.addFault({ pathPrefix: "/v1/apiKeys", method: "POST", kind: "garbled", times: 1 });
    sim.control.clearRequests();
    const answer = await ask(`kubeconfig ${running.name}`, "UEDITOR");
    expect(answer).not.toContain("downloaded as");
    expect(sim.control.liveUserKeys("editor@example.com")).toBe(before);
    const keyCalls = sim.control
      .requests()
      .filter((r) => r.path.startsWith("/v1/apiKeys"))
      .map((r) => [r.method, r.status]);
    expect(keyCalls).toEqual([
      ["POST", 201],
      ["GET", 200],
      ["DELETE", 204],
    ]);
    expect(counted).toEqual(["create_unreadable/deleted"]);
    expect(allLogged()).toContain("palette-chatops for UEDITOR");
    expect(allLogged()).not.toContain("simkey-");
  });

  it("and when the key cannot be found either, its name is logged for the operator and counted", async () => {
    sim.control.addFault({ pathPrefix: "/v1/apiKeys", method: "POST", kind: "garbled", times: 1 });
    sim.control.addFault({ pathPrefix: "/v1/apiKeys", method: "GET", kind: "status", status: 503 });
    const answer = await ask(`kubeconfig ${running.name}`, "UEDITOR");
    expect(answer).not.toContain("downloaded as");
    expect(counted).toEqual(["create_unreadable/left"]);
    const [line] = logged.filter((entry) => entry.level === "error");
    expect(String(line?.fields.keyName)).toContain("palette-chatops for UEDITOR");
  });
});

describe("LINK_METHOD=email: members of another Slack workspace", () => {
  it.each([
    ["UGUEST", "a team_id that is not the bot's"],
    ["WSTRANGER", "is_stranger"],
  ])("%s (%s) is refused with a clear line, and no key is minted", async (userId) => {
    sim.control.clearRequests();
    const answer = await ask(`kubeconfig ${running.name}`, userId);
    expect(answer).toContain("another Slack workspace");
    expect(sim.control.requests().filter((r) => r.path.startsWith("/v1/apiKeys"))).toEqual([]);
    expect(sim.control.requests().filter((r) => r.path.startsWith("/v1/users"))).toEqual([]);
  });

  it("whoami tells a member of another workspace that they act as no one, not whom the address maps to", async () => {
    const answer = await ask("whoami", "UGUEST");
    expect(answer).toContain("another Slack workspace");
    expect(answer).not.toContain("Eddie Editor");
    expect(await ask("whoami", "UEDITOR")).toContain("Eddie Editor");
  });
});
