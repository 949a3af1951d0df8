import { afterEach, describe, expect, it } from "vitest";
import { type ChangeRecord, ChangeStore } from "../../src/store/changes.ts";
import { APPROVE_ACTION_ID } from "../../src/views/change.ts";
import {
  awsCluster,
  type ChangesHarness,
  closeChangesHarnesses,
  confirmOk,
  openConfirmation,
  RESIZE_MS,
  startChangesHarness,
  tick,
  waitForCall,
} from "../support/changes-harness.ts";
import type { RecordedCall } from "../support/fake-slack.ts";

/**
 * What a person must see of a change is delivered like a notification (issue 31, item 2): kept
 * on the change's row until Slack takes it, tried again after Slack's Retry-After, or sent to the
 * requester's DM when Slack keeps refusing where it was. One 429 or 5xx never loses a change's
 * end, nor its card after an approval. Signed Slack requests, the simulator, the fake Slack
 * answering as Slack does when it refuses.
 */

const ALICE = "W111";
const BOB = "W222";

afterEach(closeChangesHarnesses);

function start(approvals?: string[]): Promise<ChangesHarness> {
  return startChangesHarness({
    access: { allowChanges: { scale: [ALICE, BOB] } },
    approvals,
  });
}

async function only(h: ChangesHarness): Promise<ChangeRecord> {
  const [record] = await new ChangeStore(h.bot.db, h.clock).all();
  return record!;
}

/** Slack's 429: HTTP 429 with Retry-After in seconds */
const rateLimited = (seconds: number) => ({
  status: 429,
  headers: { "retry-after": String(seconds) },
  body: { ok: false, error: "ratelimited" },
});

const says = (call: RecordedCall, text: string) => JSON.stringify(call.body).includes(text);

/** a scale asked, confirmed and followed until Palette has resized, its end not read yet */
async function scaledInPalette(h: ChangesHarness, name: string): Promise<ChangeRecord> {
  awsCluster(h, name);
  const view = await openConfirmation(h, `scale ${name} worker-pool 5`, { userId: ALICE });
  await confirmOk(h, view, { userId: ALICE });
  await waitForCall(h, "chat.postMessage", name);
  await tick(h);
  h.clock.advance(RESIZE_MS + 1_000);
  return only(h);
}

describe("a change's end when Slack refuses its card", () => {
  it("one 429 on the final edit: the card still ends Scaled after Retry-After", async () => {
    const h = await start();
    const record = await scaledInPalette(h, "limited-end");
    let refused = 0;
    h.bot.fake.on("chat.update", (call) =>
      says(call, "Scaled") && refused++ === 0 ? rateLimited(30) : undefined,
    );
    await tick(h);
    expect(refused).toBe(1);
    expect((await only(h)).status).toBe("done");

    // before Retry-After has passed, Slack is left alone
    await h.bot.bot.edge.changeFollower.tick();
    const ends = () =>
      h.bot.fake.callsTo("chat.update").filter((call) => call.body.ts === record.cardTs);
    expect(ends().filter((call) => says(call, "Scaled"))).toHaveLength(1);

    h.clock.advance(31_000);
    await h.bot.bot.edge.changeFollower.tick();
    const last = ends().at(-1)!;
    expect(says(last, "Scaled")).toBe(true);
    expect(says(last, "5 Running")).toBe(true);
    expect(ends().filter((call) => says(call, "Scaled"))).toHaveLength(2);
    expect((await only(h)).cardOwed).toBeUndefined();
    expect(h.writes).toHaveLength(1);
  });

  it("Slack keeps refusing the edit where the card is (channel_not_found): the end goes to the requester's DM", async () => {
    const h = await start();
    await scaledInPalette(h, "gone-channel");
    h.bot.fake.on("chat.update", () => ({ body: { ok: false, error: "channel_not_found" } }));
    await tick(h);
    const dm = await waitForCall(h, "chat.postMessage", "Scaled");
    expect(dm).toContain(`"channel":"${ALICE}"`);
    expect(dm).toContain("5 Running");
    expect((await only(h)).status).toBe("done");
    expect((await only(h)).cardOwed).toBeUndefined();
  });
});

describe("a change's card after an approval when Slack refuses the request card's edit", () => {
  it("the change card is posted all the same, and the request card is edited once Slack takes it", async () => {
    const h = await start(["scale"]);
    awsCluster(h, "approved-anyway");
    const view = await openConfirmation(h, "scale approved-anyway worker-pool 5", {
      userId: ALICE,
    });
    await confirmOk(h, view, { userId: ALICE });
    await waitForCall(h, "chat.postMessage", "Change needs approval");
    const deadline = Date.now() + 5_000;
    while (!(await only(h))?.requestTs) {
      if (Date.now() > deadline) throw new Error("no request card recorded");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const requestTs = (await only(h)).requestTs;
    let slackDown = true;
    // Slack answers the request card's edits with a 503 (every retry of the client too)
    h.bot.fake.on("chat.update", (call) =>
      slackDown && call.body.ts === requestTs
        ? { status: 503, body: { ok: false, error: "service_unavailable" } }
        : undefined,
    );
    await h.bot.click(APPROVE_ACTION_ID, String((await only(h)).id), { userId: BOB });

    const card = await waitForCall(h, "chat.postMessage", "Scaling", 10_000);
    expect(card).toContain("approved-anyway");
    expect(card).toContain(`approved by <@${BOB}>`);

    slackDown = false;
    h.clock.advance(60_000);
    await h.bot.bot.edge.changeFollower.tick();
    const edited = h.bot.fake
      .callsTo("chat.update")
      .filter((call) => call.body.ts === requestTs)
      .at(-1)!;
    expect(says(edited, "Approved")).toBe(true);
    expect((await only(h)).requestOwed).toBeUndefined();
    expect(h.writes).toHaveLength(1);
  });
});
