import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import { createSender } from "../../../src/notify/delivery/outbox-sender.ts";
import { SlackSendError } from "../../../src/notify/delivery/slack-port.ts";
import { FencedOut } from "../../../src/store/lease.ts";
import { OutboxStore } from "../../../src/store/outbox.ts";
import type { SqlExecutor } from "../../../src/store/sql.ts";
import { openSqlite } from "../../../src/store/sqlite.ts";

/**
 * Issue 12: a sender deposed while its Slack call was out writes nothing about the row, whatever
 * Slack answered: not sent, and not a retry, a deferral, a plain-text fallback or a dead letter
 * either (those are the new leader's to decide; its attempts count stays the new leader's).
 */
describe("a deposed sender", () => {
  it.each([
    ["a transient failure (retry later)", new SlackSendError("transient", "internal_error")],
    ["a rate limit (defer)", new SlackSendError("ratelimited", "ratelimited", 3_000)],
    ["a refusal of the blocks (plain text)", new SlackSendError("rejected", "invalid_blocks")],
  ])("records nothing after %s", async (_what, failure) => {
    const db = await openSqlite(":memory:");
    const clock = new ManualClock();
    await new OutboxStore(db).add(
      { channel: "C1", kind: "post", payload: { text: "hello" } },
      new Date(clock.now()).toISOString(),
    );
    const before = await db.all("SELECT * FROM notify_outbox");
    let deposed = false;
    const sender = createSender({
      db,
      slack: {
        async postMessage() {
          // the lease moves on while the call is out
          deposed = true;
          throw failure;
        },
        async update() {},
      },
      clock,
      logger: silentLogger,
      sleep: async (ms) => clock.advance(ms),
      random: () => 0,
      fence: async (_tx: SqlExecutor) => {
        if (deposed) throw new FencedOut("singletons", 1, 2);
      },
    });
    await sender.drainOnce();
    expect(await db.all("SELECT * FROM notify_outbox")).toEqual(before);
    await db.close();
  });
});
