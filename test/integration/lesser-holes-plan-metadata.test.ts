import { afterEach, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { createUndiciTransport, type WireRequest } from "../../src/palette/http.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { CHANGE_PLAN_TTL_MS } from "../../src/store/change-plans.ts";
import type { RecordedCall } from "../support/fake-slack.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";
import { interactiveBody, loadPayload } from "../support/slack-request.ts";

/**
 * Slack refuses a modal whose private_metadata passes 3,000 characters. A repave Palette holds
 * for many reasons (or an upgrade with many packs) made a plan longer than that, so its
 * confirmation never opened. The plan is kept by the bot and the modal carries its id.
 */

const CHANNEL = "C111";
const ALICE = "W111";
const BOB = "W222";
const SLACK_METADATA_LIMIT = 3_000;

interface Harness {
  bot: BotHarness;
  sim: RunningSimulator;
  palette: PaletteClient;
  clock: ManualClock;
  writes: Array<{ method: string; path: string }>;
}

const opened: Harness[] = [];
afterEach(async () => {
  for (const h of opened.splice(0)) {
    await h.bot.close();
    await h.palette.close();
    await h.sim.close();
  }
});

async function start(): Promise<Harness> {
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
  const sim = await startSimulator({ clock, clusters: 6, seed: 31 });
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
        // the searches are POSTs that change nothing
        const read = request.method === "GET" || request.path.startsWith("/v1/dashboard/");
        if (!read) writes.push({ method: request.method, path: request.path });
        return inner.send(request);
      },
      close: () => inner.close(),
    },
  });
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [],
    allowChanges: {
      scale: [ALICE, BOB],
      delete: [],
      maintenance: [ALICE, BOB],
      backup: [],
      logs: [],
      upgrade: [ALICE, BOB],
    },
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock,
    logger: silentLogger,
  });
  const bot = await startBot({
    palette,
    clock,
    policy,
    projects: [sim.control.projects()[0]!],
    changeSchedule: () => ({ stop() {} }),
  });
  // as Slack does: a view whose private_metadata passes 3,000 characters is refused
  bot.fake.on("views.open", (call) => {
    const view = call.body.view as { private_metadata?: string };
    if ((view.private_metadata ?? "").length > SLACK_METADATA_LIMIT) {
      return {
        body: {
          ok: false,
          error: "invalid_arguments",
          response_metadata: {
            messages: [
              "[ERROR] must be less than 3001 characters [json-pointer:/view/private_metadata]",
            ],
          },
        },
      };
    }
    return { body: { ok: true, view: { ...(call.body.view as object), id: "VPLAN", hash: "h" } } };
  });
  const h = { bot, sim, palette, clock, writes };
  opened.push(h);
  return h;
}

/** a cluster Palette holds a repave of, for 40 long reasons */
function repavePending(h: Harness, name: string) {
  const cluster = h.sim.control.addCluster({
    name,
    projectUid: h.sim.control.projects()[0]!,
    provider: "aws",
    pools: [
      { name: "cp-pool", size: 1, isControlPlane: true, instanceType: "m5.large" },
      { name: "worker-pool", size: 3, isControlPlane: false, instanceType: "m5.xlarge" },
    ],
  });
  const reasons = Array.from(
    { length: 40 },
    (_, i) =>
      `pack ${i}: kubernetes 1.29.${i} → 1.29.${i + 1} changes the node image and the kubelet configuration`,
  );
  h.sim.control.setRepavePending(cluster.uid, reasons);
  return { cluster, reasons };
}

interface OpenedView {
  callback_id: string;
  private_metadata: string;
  blocks: unknown[];
}

async function askToOpen(h: Harness, text: string): Promise<OpenedView> {
  const before = h.bot.fake.callsTo("views.open").length;
  const answer = await h.bot.command(text, { userId: ALICE, channelId: CHANNEL });
  const deadline = Date.now() + 3_000;
  while (h.bot.fake.callsTo("views.open").length === before) {
    if (Date.now() > deadline) throw new Error(`no views.open for /palette ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await h.bot.responses(answer.responseId, 0).catch(() => []);
  return h.bot.fake.callsTo("views.open")[before]!.body.view as OpenedView;
}

async function submit(h: Harness, view: OpenedView, userId = ALICE) {
  const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
  const answer = await h.bot.post(
    interactiveBody({
      ...payload,
      user: { ...(payload.user as object), id: userId },
      view: {
        ...(payload.view as object),
        id: "VPLAN",
        callback_id: view.callback_id,
        private_metadata: view.private_metadata,
        blocks: view.blocks,
        state: { values: {} },
      },
      response_urls: [],
    }),
  );
  expect(answer.status).toBe(200);
  return answer.text ? (JSON.parse(answer.text) as Record<string, unknown>) : {};
}

async function waitForCall(h: Harness, method: string, match: string): Promise<string> {
  const deadline = Date.now() + 3_000;
  const texts = () =>
    h.bot.fake.callsTo(method).map((call: RecordedCall) => JSON.stringify(call.body));
  for (;;) {
    const found = texts().find((text) => text.includes(match));
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`no ${method} with ${match}; saw ${texts().join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("a plan longer than Slack's private_metadata", () => {
  it("a repave held for 40 reasons opens its confirmation (metadata < 3,000) and is sent once on submit", async () => {
    const h = await start();
    const { cluster, reasons } = repavePending(h, "many-reasons");
    expect(JSON.stringify(reasons).length).toBeGreaterThan(SLACK_METADATA_LIMIT);
    const view = await askToOpen(h, "repave approve many-reasons");
    expect(view.private_metadata.length).toBeLessThan(SLACK_METADATA_LIMIT);
    // Slack opened it: nothing at the response_url says it could not open
    expect(JSON.stringify(h.bot.fake.callsTo("response"))).not.toContain("could not open");

    expect(await submit(h, view)).toEqual({});
    await waitForCall(h, "chat.postMessage", "Approving the repave");
    expect(h.writes).toEqual([
      { method: "PATCH", path: `/v1/spectroclusters/${cluster.uid}/repave/approve` },
    ]);
  });

  it("a confirmation submitted after its plan is no longer kept is refused clearly; nothing is sent", async () => {
    const h = await start();
    repavePending(h, "left-open");
    const view = await askToOpen(h, "repave approve left-open");
    h.clock.advance(CHANGE_PLAN_TTL_MS + 60_000);
    const answer = await submit(h, view);
    expect(answer).toMatchObject({ response_action: "update" });
    expect(JSON.stringify(answer)).toContain("Nothing was sent");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.writes).toEqual([]);
    expect(h.bot.fake.callsTo("chat.postMessage")).toEqual([]);
  });

  it("another person cannot submit a confirmation opened for someone else", async () => {
    const h = await start();
    repavePending(h, "not-yours");
    const view = await askToOpen(h, "repave approve not-yours");
    const answer = await submit(h, view, BOB);
    expect(JSON.stringify(answer)).toContain("Nothing was sent");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.writes).toEqual([]);
  });
});
