import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { DEFAULT_RISK_SETTINGS } from "../../src/model/risk.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { createUndiciTransport, type WireRequest } from "../../src/palette/http.ts";
import { createRiskNotifier } from "../../src/radar/notices.ts";
import { createRadar, type Radar } from "../../src/radar/sweep.ts";
import { Secret } from "../../src/secret.ts";
import { RENEW_MS } from "../../src/simulator/radar-routes.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { createSlackPoster } from "../../src/slack/notify-poster.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import { SubscriptionStore } from "../../src/store/subscriptions.ts";
import { APPROVE_ACTION_ID, CHANGE_CALLBACK_ID } from "../../src/views/change.ts";
import type { RecordedCall } from "../support/fake-slack.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";
import { interactiveBody, loadPayload } from "../support/slack-request.ts";

/**
 * Renew certificates from the radar's notice (issue 28): the button runs the day-2 verb as the
 * person who clicks, guarded as every change is (ALLOW_MAINTENANCE, freezes), confirmed with the
 * expiry dates, sent exactly once, followed until Palette shows the new expiry; the notice then
 * says the risk is gone. Signed Slack requests, the simulator, the clock moved by hand.
 */

const DAY = 86_400_000;
const CHANNEL = "C111";
const RISKS = "CRISK";
/** may make maintenance changes */
const ALICE = "W111";
const BOB = "W222";

interface Harness {
  bot: BotHarness;
  sim: RunningSimulator;
  palette: PaletteClient;
  clock: ManualClock;
  project: string;
  radar: Radar;
  writes: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

let opened: Harness | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function start(approvals?: string[]): Promise<Harness> {
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
  const sim = await startSimulator({ clock, clusters: 12, seed: 21 });
  const writes: Harness["writes"] = [];
  const inner = createUndiciTransport(sim.url);
  const palette = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
    rateLimit: false,
    retries: 0,
    transport: {
      send(request: WireRequest) {
        if (request.method !== "GET" && !request.path.includes("/search")) {
          writes.push({ method: request.method, path: request.path });
        }
        return inner.send(request);
      },
      close: () => inner.close(),
    },
  });
  const project = sim.control.projects()[0]!;
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [],
    allowChanges: {
      scale: [],
      delete: [],
      maintenance: [ALICE, BOB],
      backup: [],
      logs: [],
      upgrade: [],
    },
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock,
    logger: silentLogger,
  });
  const bot = await startBot({
    palette,
    clock,
    policy,
    projects: tenant ? [] : [project],
    changeSchedule: () => ({ stop() {} }),
    approvals: approvals ? { verbs: approvals, ttlMs: 30 * 60_000 } : undefined,
  });
  // the radar on the bot's store, its notices to the same fake Slack
  const radar = createRadar({
    palette,
    db: bot.db,
    clock,
    logger: silentLogger,
    projects: tenant ? [] : [project],
    callsPerMinute: 600,
    settings: DEFAULT_RISK_SETTINGS,
    sleep: async (ms) => clock.advance(ms),
    notifier: createRiskNotifier({
      db: bot.db,
      slack: createSlackPoster({ token: new Secret("xoxb-test"), apiUrl: bot.fake.apiUrl }),
      clock,
      logger: silentLogger,
      sleep: async (ms) => clock.advance(ms),
    }),
  });
  const harness: Harness = {
    bot,
    sim,
    palette,
    clock,
    project,
    radar,
    writes,
    async close() {
      await radar.stop();
      await bot.close();
      await palette.close();
      await sim.close();
    },
  };
  opened = harness;
  return harness;
}

/** the poll's snapshot of the project, which the radar reads its clusters from */
async function knownToThePoll(h: Harness): Promise<void> {
  const { createPoller } = await import("../../src/notify/poll/poll.ts");
  const poller = createPoller({
    palette: h.palette,
    db: h.bot.db,
    clock: h.clock,
    logger: silentLogger,
    projects: tenant ? [] : [h.project],
  });
  await poller.runCycle();
  await poller.stop();
}

function texts(calls: RecordedCall[]): string[] {
  return calls.map((call) => JSON.stringify(call.body));
}

async function waitForCall(h: Harness, method: string, match: string, timeoutMs = 3_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = texts(h.bot.fake.callsTo(method)).find((text) => text.includes(match));
    if (found) return found;
    if (Date.now() > deadline) {
      throw new Error(
        `no ${method} with ${match}; saw ${texts(h.bot.fake.callsTo(method)).join("\n")}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function confirm(h: Harness, view: Record<string, unknown>, userId = ALICE) {
  const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
  const submission = {
    ...payload,
    user: { ...(payload.user as object), id: userId },
    view: {
      ...(payload.view as object),
      id: "VRENEW1",
      callback_id: view.callback_id,
      private_metadata: view.private_metadata,
      blocks: view.blocks,
      state: { values: {} },
    },
    response_urls: [],
  };
  return h.bot.post(interactiveBody(submission));
}

async function tick(h: Harness): Promise<void> {
  const store = new ChangeStore(h.bot.db, h.clock);
  const deadline = Date.now() + 3_000;
  while ((await store.following()).some((record) => !record.cardTs)) {
    if (Date.now() > deadline) throw new Error("a followed change has no card");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await h.bot.bot.edge.changeFollower.tick();
}

/** a cluster of the watched project whose certificates expire in 20 days, the rest far out */
async function nearExpiry(h: Harness) {
  const clusters = h.sim.control.clusters(h.project).filter((c) => c.state === "Running");
  for (const cluster of h.sim.control.clusters()) {
    h.sim.control.setCertificateExpiry(cluster.uid, h.clock.now() + 200 * DAY);
    h.sim.control.setProfileUpdates(cluster.uid, []);
  }
  const target = clusters[0]!;
  h.sim.control.setCertificateExpiry(target.uid, h.clock.now() + 20 * DAY);
  await knownToThePoll(h);
  await new SubscriptionStore(h.bot.db, h.clock).add({
    channel: RISKS,
    kind: "risks",
    createdBy: ALICE,
  });
  await h.radar.sweep(100);
  return target;
}

/** PALETTE_PROJECTS empty (tenant scope, the default) or the watched project */
let tenant = true;

describe.each([
  { scope: "tenant scope", atTenant: true },
  { scope: "PALETTE_PROJECTS set", atTenant: false },
])("Renew certificates from the radar at $scope", ({ atTenant }) => {
  beforeEach(() => {
    tenant = atTenant;
  });

  it("notice → Renew certificates → confirmation with the expiry → one PATCH → followed until the expiry moves → the notice says it is gone", async () => {
    const h = await start();
    const target = await nearExpiry(h);
    const notice = h.bot.fake.callsTo("chat.postMessage").find((c) => c.body.channel === RISKS)!;
    const button = (notice.body.blocks as Array<{ elements?: Array<Record<string, string>> }>)
      .flatMap((block) => block.elements ?? [])
      .find((element) => element.value?.startsWith("renew certificates"))!;
    expect(button.value).toBe(`renew certificates ${target.uid} project:${h.project}`);

    const before = h.bot.fake.callsTo("views.open").length;
    await h.bot.click(button.action_id!, button.value!, { userId: ALICE });
    await h.bot.fake.waitFor("views.open", before + 1);
    const view = h.bot.fake.callsTo("views.open")[before]!.body.view as Record<string, unknown>;
    expect(view.callback_id).toBe(CHANGE_CALLBACK_ID);
    const shown = JSON.stringify(view.blocks);
    const expiry = new Date(h.clock.now() + 20 * DAY).toISOString().slice(0, 10);
    expect(shown).toContain(`expire ${expiry}`);
    expect(shown).toContain("in 20 days");
    expect(h.writes).toEqual([]);

    const answer = await confirm(h, view);
    expect(answer.status).toBe(200);
    await waitForCall(h, "chat.postMessage", "Renewing the certificates of");
    expect(h.writes).toEqual([
      { method: "PATCH", path: `/v1/spectroclusters/${target.uid}/k8certificates/renew` },
    ]);

    // Palette takes a few seconds: the card follows until the new expiry shows
    await tick(h);
    expect(texts(h.bot.fake.callsTo("chat.update")).some((t) => t.includes("Renewed"))).toBe(false);
    h.clock.advance(RENEW_MS + 1_000);
    await tick(h);
    const done = await waitForCall(h, "chat.update", "Renewed the certificates of");
    const renewedTo = new Date(h.clock.now() + 365 * DAY - 1_000).toISOString().slice(0, 10);
    expect(done).toContain(`earliest now expires ${renewedTo}`);
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(record).toMatchObject({ status: "done", requester: ALICE });
    // exactly once: following it sent nothing more
    expect(h.writes).toHaveLength(1);

    // the radar reads a cluster whose certificates were just renewed before any other: the
    // notice says the risk is gone at its next step, not after a pass over the whole fleet
    await h.radar.sweep(1);
    const edits = h.bot.fake.callsTo("chat.update").filter((c) => c.body.channel === RISKS);
    expect(edits).toHaveLength(1);
    expect(edits[0]!.body.ts).toBeDefined();
    expect(JSON.stringify(edits[0]!.body)).toContain("no longer holds");
    expect(
      h.bot.fake.callsTo("chat.postMessage").filter((c) => c.body.channel === RISKS),
    ).toHaveLength(1);
  });

  it("APPROVAL_REQUIRED=renew: nothing is sent until a second person approves, then one PATCH", async () => {
    const h = await start(["renew"]);
    const target = await nearExpiry(h);
    const before = h.bot.fake.callsTo("views.open").length;
    await h.bot.command(`renew certificates ${target.name}`, { userId: ALICE, channelId: CHANNEL });
    await h.bot.fake.waitFor("views.open", before + 1);
    const view = h.bot.fake.callsTo("views.open")[before]!.body.view as Record<string, unknown>;
    await confirm(h, view);
    const store = new ChangeStore(h.bot.db, h.clock);
    const deadline = Date.now() + 3_000;
    let request = (await store.all())[0];
    while (!request?.requestTs) {
      if (Date.now() > deadline) throw new Error("no approval request");
      await new Promise((resolve) => setTimeout(resolve, 10));
      request = (await store.all())[0];
    }
    expect(request.status).toBe("awaiting_approval");
    expect(h.writes).toEqual([]);
    await h.bot.click(APPROVE_ACTION_ID, String(request.id), { userId: BOB });
    await waitForCall(h, "chat.postMessage", "Renewing the certificates of");
    expect(h.writes).toEqual([
      { method: "PATCH", path: `/v1/spectroclusters/${target.uid}/k8certificates/renew` },
    ]);
  });

  it("a project freeze refuses the renewal, and Palette is never written", async () => {
    const h = await start();
    const target = await nearExpiry(h);
    const froze = await h.bot.command(`freeze project:${h.project} until 4h release train`, {
      userId: BOB,
      channelId: CHANNEL,
    });
    const [frozen] = await h.bot.responses(froze.responseId);
    expect(JSON.stringify(frozen!.body)).toContain("frozen until");
    const asked = await h.bot.command(`renew certificates ${target.name}`, {
      userId: ALICE,
      channelId: CHANNEL,
    });
    const [reply] = await h.bot.responses(asked.responseId);
    const text = JSON.stringify(reply!.body);
    expect(text).toContain("frozen");
    expect(text).toContain("release train");
    expect(h.bot.fake.callsTo("views.open")).toHaveLength(0);
    expect(h.writes.filter((w) => w.path.includes("k8certificates"))).toEqual([]);
  });
});
