import { afterEach, describe, expect, it } from "vitest";
import type { WireRequest } from "../../src/palette/http.ts";
import { CHANGE_PLAN_TTL_MS } from "../../src/store/change-plans.ts";
import {
  awsCluster,
  CHANNEL,
  closeChangesHarnesses,
  type ChangesHarness as Harness,
  type OpenedView,
  startChangesHarness,
  submitConfirmation,
  waitForCall,
} from "../support/changes-harness.ts";

/**
 * Slack refuses a modal whose private_metadata passes 3,000 characters. A repave Palette holds
 * for many reasons (or an upgrade with many packs) made a plan longer than that, so its
 * confirmation never opened. The plan is kept by the bot and the modal carries its id.
 */

const ALICE = "W111";
const BOB = "W222";
const SLACK_METADATA_LIMIT = 3_000;

afterEach(closeChangesHarnesses);

async function start(): Promise<Harness> {
  const h = await startChangesHarness({
    simulator: { clusters: 6, seed: 31 },
    // the searches are POSTs that change nothing
    isWrite: (request: WireRequest) =>
      request.method !== "GET" && !request.path.startsWith("/v1/dashboard/"),
    access: {
      allowChanges: {
        scale: [ALICE, BOB],
        delete: [],
        maintenance: [ALICE, BOB],
        backup: [],
        logs: [],
        upgrade: [ALICE, BOB],
      },
    },
  });
  // as Slack does: a view whose private_metadata passes 3,000 characters is refused
  h.bot.fake.on("views.open", (call) => {
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
  return h;
}

/** a cluster Palette holds a repave of, for 40 long reasons */
function repavePending(h: Harness, name: string) {
  const cluster = awsCluster(h, name);
  const reasons = Array.from(
    { length: 40 },
    (_, i) =>
      `pack ${i}: kubernetes 1.29.${i} → 1.29.${i + 1} changes the node image and the kubelet configuration`,
  );
  h.sim.control.setRepavePending(cluster.uid, reasons);
  return { cluster, reasons };
}

/** the view as the bot asked Slack to open it (the fake gives it the id VPLAN) */
type AskedView = Omit<OpenedView, "id">;

async function askToOpen(h: Harness, text: string): Promise<AskedView> {
  const before = h.bot.fake.callsTo("views.open").length;
  const answer = await h.bot.command(text, { userId: ALICE, channelId: CHANNEL });
  const deadline = Date.now() + 3_000;
  while (h.bot.fake.callsTo("views.open").length === before) {
    if (Date.now() > deadline) throw new Error(`no views.open for /palette ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await h.bot.responses(answer.responseId, 0).catch(() => []);
  return h.bot.fake.callsTo("views.open")[before]!.body.view as AskedView;
}

async function submit(h: Harness, view: AskedView, userId = ALICE) {
  const answer = await submitConfirmation(h, { ...view, id: "VPLAN" }, { userId });
  expect(answer.status).toBe(200);
  return answer.body as Record<string, unknown>;
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
    const { cluster } = repavePending(h, "left-open");
    const view = await askToOpen(h, "repave approve left-open");
    h.clock.advance(CHANGE_PLAN_TTL_MS + 60_000);
    const answer = await submit(h, view);
    expect(answer).toMatchObject({ response_action: "update" });
    expect(JSON.stringify(answer)).toContain("Nothing was sent");
    // a fresh confirmation of the same repave, submitted after it and sent: once its repave is
    // approved, the refused one has had its turn, and it sent nothing
    const fresh = await askToOpen(h, "repave approve left-open");
    expect(await submit(h, fresh)).toEqual({});
    await waitForCall(h, "chat.postMessage", "Approving the repave");
    expect(h.writes).toEqual([
      { method: "PATCH", path: `/v1/spectroclusters/${cluster.uid}/repave/approve` },
    ]);
    expect(
      h.bot.fake
        .callsTo("chat.postMessage")
        .filter((call) => JSON.stringify(call.body).includes("Approving the repave")),
    ).toHaveLength(1);
  });

  it("another person cannot submit a confirmation opened for someone else", async () => {
    const h = await start();
    const { cluster } = repavePending(h, "not-yours");
    const view = await askToOpen(h, "repave approve not-yours");
    const answer = await submit(h, view, BOB);
    expect(JSON.stringify(answer)).toContain("Nothing was sent");
    // its owner submits it after: once that repave is approved, Bob's submit has had its turn
    expect(await submit(h, view)).toEqual({});
    await waitForCall(h, "chat.postMessage", "Approving the repave");
    expect(h.writes).toEqual([
      { method: "PATCH", path: `/v1/spectroclusters/${cluster.uid}/repave/approve` },
    ]);
  });
});
