import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { buildIdentity, identityOfHome } from "../../src/app/identity.ts";
import { systemClock } from "../../src/clock.ts";
import { createLogger } from "../../src/log.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import { HOME_LINK_ACTION, HOME_UNLINK_ACTION } from "../../src/views/app-home.ts";
import { LOGIN_CALLBACK_ID, LOGIN_KEY_FIELD } from "../../src/views/login-modal.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { apiKeyClient, uniqueRunningCluster } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";
import { loadPayload, loginSubmissionBody } from "../support/slack-request.ts";

/**
 * IDENTITY=linked end to end: signed slash commands and a signed login form reach the real bot,
 * which asks the simulator (Palette's RBAC enforced per user key) and answers the fake Slack.
 * The request log says whose key each Palette call carried.
 */

const PERSON = "UPERSON1";
let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
let h: BotHarness;
let running: FleetCluster;
const logLines: string[] = [];

async function ask(text: string) {
  const sent = await h.command(text, { userId: PERSON });
  expect(sent.status).toBe(200);
  const [answer] = await h.responses(sent.responseId, 1, 10_000);
  return JSON.stringify(answer!.body);
}

/** submits the login form with `key`; returns the HTTP answer Slack got (errors, or empty) */
async function submitLogin(key: string): Promise<Record<string, unknown>> {
  const form = { callbackId: LOGIN_CALLBACK_ID, field: LOGIN_KEY_FIELD };
  const answer = await h.post(loginSubmissionBody(PERSON, key, form));
  expect(answer.status).toBe(200);
  return answer.text ? (JSON.parse(answer.text) as Record<string, unknown>) : {};
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 30, seed: 9 });
  palette = apiKeyClient(sim, { retries: 1 });
  fake = await startFakeSlack();
  const logger = createLogger(
    "debug",
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    }),
  );
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: ["*"],
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock: systemClock,
    logger,
  });
  h = await startBot({
    palette,
    policy,
    fake,
    logger,
    home: {
      fleet: async () => ({ at: Date.now(), clusters: [] }),
      subscriptionsFor: async () => [],
      policy,
      consoleUrl: "https://console.example.com/",
      clock: systemClock,
      logger,
      // the harness builds the identity on its own store; the home reads the same
      identityOf: (userId) => identityOfHome(h.bot.edge.commandDeps.identity!)(userId),
    },
    identity: (db) =>
      buildIdentity(
        {
          mode: "linked",
          method: "key",
          keys: { current: new Secret(Buffer.alloc(32, 9).toString("base64")) },
        },
        { db, clock: systemClock, logger, paletteApiUrl: sim.url },
      ),
  });
  running = uniqueRunningCluster(sim);
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

describe("IDENTITY=linked", () => {
  it("refuses a kubeconfig to an unlinked person with the login hint, asking Palette nothing", async () => {
    sim.control.clearRequests();
    const answer = await ask(`kubeconfig ${running.name}`);
    expect(answer).toContain("not linked to a Palette user");
    expect(answer).toContain("/palette login");
    expect(sim.control.requests()).toEqual([]);
    expect(fake.uploads.size).toBe(0);
  });

  it("opens the login form, refuses a bad key under its field, links a good one", async () => {
    fake.reset();
    // the form opens through views.open: no answer at the response_url
    expect((await h.command("login", { userId: PERSON })).status).toBe(200);
    const [opened] = await fake.waitFor("views.open");
    expect(JSON.stringify(opened!.body)).toContain(LOGIN_CALLBACK_ID);
    const bad = await submitLogin("simkey-not-a-real-key-0000000000");
    expect(bad).toMatchObject({ response_action: "errors" });
    expect(JSON.stringify(bad)).toContain("Palette refused that key");
    const key = sim.control.issueUserKey("viewer@example.com");
    expect(await submitLogin(key)).toEqual({});
    const [confirm] = await fake.waitFor("chat.postMessage");
    expect(String(confirm!.body.text)).toContain("Linked as *Vera Viewer*");
    expect(await ask("whoami")).toContain("Vera Viewer");
    expect(logLines.join("")).not.toContain(key);
  });

  it("downloads as the person: a viewer is refused with Palette's reason, and nothing is sent", async () => {
    fake.reset();
    sim.control.clearRequests();
    const answer = await ask(`kubeconfig ${running.name}`);
    expect(answer).toContain("Palette does not allow Vera Viewer to download kubeconfigs");
    const download = sim.control.requests().filter((r) => r.path.endsWith("/assets/kubeconfig"));
    expect(download).toEqual([
      expect.objectContaining({ status: 403, caller: "viewer@example.com" }),
    ]);
    expect(fake.uploads.size).toBe(0);
  });

  it("an editor's kubeconfig is downloaded with the editor's key, not the service account's", async () => {
    fake.reset();
    sim.control.clearRequests();
    const key = sim.control.issueUserKey("editor@example.com");
    expect(await submitLogin(key)).toEqual({});
    await fake.waitFor("chat.postMessage");
    const answer = await ask(`kubeconfig ${running.name}`);
    expect(answer).toContain("downloaded as Eddie Editor");
    const download = sim.control.requests().filter((r) => r.path.endsWith("/assets/kubeconfig"));
    expect(download).toEqual([
      expect.objectContaining({ status: 200, caller: "editor@example.com" }),
    ]);
    expect(fake.uploads.size).toBe(1);
    const [entry] = (await h.audit.recent(10)).filter((row) => row.action === "kubeconfig");
    expect(entry?.detail).toContain("Eddie Editor");
  });

  it("unlinks a key Palette revoked, and says so once", async () => {
    const link = await ask("whoami");
    expect(link).toContain("Eddie Editor");
    const stored = sim.control.requests();
    expect(stored.length).toBeGreaterThan(0);
    // revoke every key the editor holds, as the console would
    const editorKeys = sim.control.liveUserKeys("editor@example.com");
    expect(editorKeys).toBeGreaterThan(0);
    const [identity] = [h.bot.edge.commandDeps.identity!];
    const current = await identity.store.get(PERSON);
    expect(sim.control.revokeUserKey(current!.apiKey.reveal())).toBe(true);
    const first = await ask(`kubeconfig ${running.name}`);
    expect(first).toContain("no longer accepts the key you linked as Eddie Editor");
    const second = await ask(`kubeconfig ${running.name}`);
    expect(second).toContain("not linked to a Palette user");
    expect(second).not.toContain("no longer accepts");
  });

  it("the App Home shows the link with Unlink, and Link… opens the login form", async () => {
    const key = sim.control.issueUserKey("viewer@example.com");
    expect(await submitLogin(key)).toEqual({});
    const openHome = async () => {
      const before = fake.callsTo("views.publish").length;
      const { payload } = loadPayload<{ payload: Record<string, unknown> }>(
        "event_callback.app_home_opened.json",
      );
      const event = { ...(payload.event as object), user: PERSON, tab: "home" };
      await h.post(JSON.stringify({ ...payload, event_id: `EvHOME${before}`, event }), {
        "content-type": "application/json",
      });
      const calls = await fake.waitFor("views.publish", before + 1);
      return JSON.stringify(calls[before]!.body);
    };
    const linked = await openHome();
    expect(linked).toContain("You act in Palette as *Vera Viewer*");
    expect(linked).toContain(HOME_UNLINK_ACTION);
    expect(linked).not.toContain(key);
    // Unlink from the home: the key is gone and the home is published again, now with Link…
    const before = fake.callsTo("views.publish").length;
    await h.click(HOME_UNLINK_ACTION, "unlink", { userId: PERSON, withoutResponseUrl: true });
    const [republished] = (await fake.waitFor("views.publish", before + 1)).slice(before);
    expect(JSON.stringify(republished!.body)).toContain(HOME_LINK_ACTION);
    expect(await h.bot.edge.commandDeps.identity!.store.get(PERSON)).toBeUndefined();
    const opened = fake.callsTo("views.open").length;
    await h.click(HOME_LINK_ACTION, "link", { userId: PERSON, withoutResponseUrl: true });
    const [form] = (await fake.waitFor("views.open", opened + 1)).slice(opened);
    expect(JSON.stringify(form!.body)).toContain(LOGIN_CALLBACK_ID);
  });

  it("logout deletes the stored link", async () => {
    const key = sim.control.issueUserKey("viewer@example.com");
    expect(await submitLogin(key)).toEqual({});
    expect(await ask("logout")).toContain("Unlinked from *Vera Viewer*");
    expect(await ask("whoami")).toContain("not linked");
    expect(await ask("logout")).toContain("You were not linked");
  });
});
