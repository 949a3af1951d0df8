import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import { createSender } from "../../../src/notify/delivery/outbox-sender.ts";
import { type SlackPoster, SlackSendError } from "../../../src/notify/delivery/slack-port.ts";
import { OutboxStore } from "../../../src/store/outbox.ts";
import { openMemoryDb } from "../../support/store.ts";

/**
 * The outbox sender and post-once (issue 37 item 1): a post whose call timed out may still
 * land, so the row waits for it to end before the look-up, without spending its retry budget
 * (a kill or a slow Slack must never turn a row into a dead letter). What is found after the
 * wait: test/integration/post-once.test.ts.
 */
describe("the sender after a post that timed out", () => {
  it("defers the row while its timed-out post may still land, without counting an attempt", async () => {
    const db = await openMemoryDb();
    const clock = new ManualClock();
    const posted: string[] = [];
    let first = true;
    let finds = 0;
    // findPost's answer does not matter here: the row must not get that far within 15 s
    const slack: SlackPoster = {
      async postMessage(m) {
        posted.push(m.metadata?.event_payload.token ?? "");
        if (first) {
          first = false;
          throw new SlackSendError("transient", "timeout");
        }
        return { ts: "second" };
      },
      async update() {},
      async findPost(query) {
        finds += 1;
        return query.metadata.event_payload.token === posted[0] ? { ts: "first" } : undefined;
      },
    };
    const outbox = new OutboxStore(db);
    const id = await outbox.add({ channel: "C1", kind: "post", payload: { text: "hi" } }, "t");
    const sender = createSender({ db, slack, clock, logger: silentLogger, random: () => 0 });

    await sender.drainOnce(); // times out: one failed attempt
    await sender.drainOnce().catch(() => undefined);
    clock.advance(60_000);
    await sender.drainOnce(); // the marker is younger than 15 s by the database's clock: waits
    const row = (await db.get<{ attempts: number; sent_at: string | null }>(
      "SELECT attempts, sent_at FROM notify_outbox WHERE id = ?",
      [id],
    ))!;
    expect(row).toEqual({ attempts: 1, sent_at: null });
    expect(posted).toHaveLength(1);
    expect(finds).toBe(0);
    await db.close();
  });
});
