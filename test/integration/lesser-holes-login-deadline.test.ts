import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { LOGIN_CALLBACK_ID, LOGIN_KEY_FIELD } from "../../src/views/login-modal.ts";
import { identityByKey } from "../support/changes-harness.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { apiKeyClient, collectingLogger } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";
import { loginSubmissionBody } from "../support/slack-request.ts";

/**
 * The login form answers within Slack's 3 s: when Palette has not said whose the key is by the
 * form's deadline, the form says so and that is the outcome. A late answer from Palette must not
 * link the key afterwards (unaudited, and with nobody told).
 */

const PERSON = "ULATE0001";
let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
let h: BotHarness;
const { logger, lines } = collectingLogger("info");
const LATE_ANSWER_LINE = "Palette vouched for a key after the login form's deadline; not linked";

async function submitLogin(key: string): Promise<Record<string, unknown>> {
  const form = { callbackId: LOGIN_CALLBACK_ID, field: LOGIN_KEY_FIELD };
  const answer = await h.post(loginSubmissionBody(PERSON, key, form));
  expect(answer.status).toBe(200);
  return answer.text ? (JSON.parse(answer.text) as Record<string, unknown>) : {};
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 5, seed: 3 });
  palette = apiKeyClient(sim, { retries: 1 });
  fake = await startFakeSlack();
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: ["*"],
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock: systemClock,
    logger: silentLogger,
  });
  h = await startBot({
    palette,
    policy,
    fake,
    logger,
    identity: identityByKey("linked", 4, sim),
  });
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

describe("the login form's deadline", () => {
  it("a key Palette vouches for only after the deadline is not linked: the form's answer stands", async () => {
    const key = sim.control.issueUserKey("viewer@example.com");
    sim.control.clearRequests();
    // Palette says whose the key is 3.5 s after it is asked: past the form's 2.5 s budget
    sim.control.addFault({
      pathPrefix: "/v1/users/info",
      kind: "latency",
      latencyMs: 3_500,
      times: 1,
    });
    const answer = await submitLogin(key);
    expect(answer).toMatchObject({ response_action: "errors" });
    expect(JSON.stringify(answer)).toContain("Palette is slow to answer");

    // wait until Palette has answered and the bot has decided about that late answer, not a
    // while: either its "not linked" line (logged just where it would otherwise store the link)
    // or, were the deadline ignored, the stored link
    const identity = h.bot.edge.commandDeps.identity!;
    const decided = async () =>
      lines.some((line) => line.includes(LATE_ANSWER_LINE)) ||
      (await identity.store.get(PERSON)) !== undefined;
    const started = Date.now();
    while (!(await decided())) {
      expect(Date.now() - started, "the late answer was never decided").toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(
      sim.control.requests().some((r) => r.path === "/v1/users/info" && r.status === 200),
    ).toBe(true);

    expect(await identity.store.get(PERSON)).toBeUndefined();
    expect((await h.audit.recent(20)).filter((row) => row.userId === PERSON)).toEqual([]);
    expect(fake.callsTo("chat.postMessage")).toEqual([]);

    // the person tries again once Palette is quick: linked, audited and told
    expect(await submitLogin(key)).toEqual({});
    const [told] = await fake.waitFor("chat.postMessage");
    expect(String(told!.body.text)).toContain("Linked as *Vera Viewer*");
    expect((await identity.store.get(PERSON))?.paletteUserName).toBe("Vera Viewer");
    expect((await h.audit.recent(20)).filter((row) => row.userId === PERSON)).toHaveLength(1);
  }, 20_000);
});
