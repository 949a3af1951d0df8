import { afterEach, describe, expect, it } from "vitest";
import { ChangeStore } from "../../src/store/changes.ts";
import {
  awsCluster,
  type ChangesHarness,
  closeChangesHarnesses,
  confirmOk,
  openConfirmation,
  startChangesHarness,
  tick,
} from "../support/changes-harness.ts";

/**
 * Issue 37 item 2: a change card Slack took but answered late (after the poster's 10 s
 * time-out) was posted again by the client's own retries (`retries: 2`), and the second card
 * stayed behind. Now the card goes out once: no client retry on chat.postMessage, and the next
 * try finds the first card by its metadata and keeps editing that one.
 */

const ALICE = "W111";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(closeChangesHarnesses);

describe("a change card Slack answers late", () => {
  it("is in its channel once, and the change edits that card", async () => {
    const h: ChangesHarness = await startChangesHarness({
      access: { allowChanges: { scale: [ALICE] } },
    });
    const name = "late-card";
    awsCluster(h, name);
    let late = true;
    let landed = false;
    h.bot.fake.on("chat.postMessage", async (call) => {
      if (late && JSON.stringify(call.body).includes(name)) {
        late = false;
        // Slack has the card; its answer comes after the poster stopped waiting
        await sleep(11_000);
        landed = true;
      }
      return undefined;
    });
    const view = await openConfirmation(h, `scale ${name} worker-pool 5`, { userId: ALICE });
    await confirmOk(h, view, { userId: ALICE });
    const cards = () =>
      [...new Set(h.bot.fake.callsTo("chat.postMessage").map((c) => String(c.body.channel)))]
        .flatMap((channel) => h.bot.fake.messages(channel).map((m) => ({ channel, ...m })))
        .filter((m) => !m.thread_ts && JSON.stringify(m).includes(name));
    const deadline = Date.now() + 60_000;
    // while Slack holds the card, the card's 60 s lease runs out by the process's clock (as for
    // a replica whose clock runs ahead) and a follower's round takes the card meanwhile; then
    // rounds 3 s apart until the held card lands and a round settles the row
    while (late) await sleep(20);
    h.clock.advance(61_000);
    for (;;) {
      h.clock.advance(3_000);
      // the follower's round, without tick's wait for a recorded card: this one is on its way
      await h.bot.bot.edge.changeFollower.tick();
      const [record] = await new ChangeStore(h.bot.db, h.clock).all();
      if (landed && record?.cardTs) break;
      if (Date.now() > deadline) throw new Error("the card was never recorded");
      await sleep(200);
    }
    await sleep(1_000);
    await tick(h);
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(cards()).toHaveLength(1);
    expect(record!.cardTs).toBe(cards()[0]!.ts);
  }, 90_000);
});
