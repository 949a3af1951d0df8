import { afterEach, describe, expect, it } from "vitest";
import { CARD_LEASE_MS, MAX_CARD_TRIES } from "../../src/changes/card-delivery.ts";
import { EARLIER_ATTEMPT_SETTLES_MS } from "../../src/notify/delivery/post-once.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import { PostAttemptStore } from "../../src/store/post-attempts.ts";
import {
  awsCluster,
  CHANNEL,
  type ChangesHarness,
  closeChangesHarnesses,
  confirmOk,
  openConfirmation,
  startChangesHarness,
} from "../support/changes-harness.ts";

/**
 * Issue 37 items 1 and 2: a change card Slack took but answered late (after the poster's 10 s
 * time-out) must be in its channel once. While Slack holds the first card, the card's lease runs
 * out by the process's clock (as for a replica whose clock runs ahead) and follower rounds take
 * the card again: each must wait on the earlier try, not count it as a failed one (eight of those
 * sent the card to the requester's DM, a second card). Once the held card lands, the next round
 * finds it by its metadata and keeps editing that one.
 */

const ALICE = "W111";

afterEach(closeChangesHarnesses);

/** resolves when `check` holds, asked again on each turn of the event loop's timers */
async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a change card Slack answers late", () => {
  it("is in its channel once, and the change edits that card", async () => {
    const h: ChangesHarness = await startChangesHarness({
      access: { allowChanges: { scale: [ALICE] } },
    });
    const name = "late-card";
    awsCluster(h, name);
    let markHeld!: () => void;
    const held = new Promise<void>((resolve) => {
      markHeld = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let first = true;
    let abandoned: Promise<void> | undefined;
    h.bot.fake.on("chat.postMessage", async (call) => {
      if (first && JSON.stringify(call.body).includes(name)) {
        first = false;
        // Slack has the card; its answer comes only when the test says, after the poster's
        // time-out: the card is kept (shown) at that moment
        abandoned = call.abandoned;
        markHeld();
        await released;
      }
      return undefined;
    });
    const cardPosts = () =>
      h.bot.fake
        .callsTo("chat.postMessage")
        .filter((c) => !c.body.thread_ts && JSON.stringify(c.body).includes(name));
    const cards = () =>
      [...new Set(h.bot.fake.callsTo("chat.postMessage").map((c) => String(c.body.channel)))]
        .flatMap((channel) => h.bot.fake.messages(channel).map((m) => ({ channel, ...m })))
        .filter((m) => !m.thread_ts && JSON.stringify(m).includes(name));
    const store = new ChangeStore(h.bot.db, h.clock);
    const follower = h.bot.bot.edge.changeFollower;

    const view = await openConfirmation(h, `scale ${name} worker-pool 5`, { userId: ALICE });
    await confirmOk(h, view, { userId: ALICE });
    await held;

    // the lease runs out while the card is held; more rounds than the failed tries that send a
    // card to the DM, each after any wait asked for: none may post the card again
    h.clock.advance(CARD_LEASE_MS + 1_000);
    for (let round = 0; round < MAX_CARD_TRIES + 2; round++) {
      await follower.tick();
      h.clock.advance(EARLIER_ATTEMPT_SETTLES_MS + 1_000);
    }
    expect(cardPosts()).toHaveLength(1);

    // the poster gives up on its answer (its time-out), then Slack's answer comes
    await abandoned;
    release();
    await until("the held card shown", () => cards().length === 1);

    // the earlier try has surely ended by the database's clock: the next round looks for it
    const attempts = new PostAttemptStore(h.bot.db, h.bot.db.dialect);
    await until(
      "the earlier try settled",
      async () =>
        ((await attempts.get(`change-card:1:${CHANNEL}`))?.ageMs ?? 0) >=
        EARLIER_ATTEMPT_SETTLES_MS,
      EARLIER_ATTEMPT_SETTLES_MS + 10_000,
    );
    h.clock.advance(5 * 60_000);
    await follower.tick();
    await follower.tick();
    const [record] = await store.all();
    expect(cards()).toHaveLength(1);
    expect(cardPosts()).toHaveLength(1);
    expect(record!.cardTs).toBe(cards()[0]!.ts);
    expect(record!.cardOwed).toBeUndefined();
  }, 60_000);
});
