import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { createSender } from "../../../src/notify/outbox-sender.ts";
import { type SlackPoster, SlackSendError } from "../../../src/notify/slack-port.ts";
import { CardStore } from "../../../src/store/cards.ts";
import { openDb } from "../../../src/store/db.ts";
import { OutboxStore } from "../../../src/store/outbox.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";

const card = (uid: string, line = "State Running → Upgrading"): CardPayload => ({
  cluster: { uid, name: `n-${uid}`, project: "p", state: "Upgrading", health: "Healthy", tags: [] },
  kinds: ["state"],
  lines: [line],
  worse: false,
  alerts: [],
  at: "t",
});

function setup(fail: (method: string, channel: string, n: number) => SlackSendError | undefined) {
  const db = openDb(":memory:");
  const clock = new ManualClock();
  const log: string[] = [];
  let n = 0;
  const slack: SlackPoster = {
    async postMessage(m) {
      n += 1;
      const error = fail("post", m.channel, n);
      if (error) throw error;
      log.push(`post ${m.channel} ${m.thread_ts ?? "-"} ${m.text}`);
      return { ts: `ts${n}` };
    },
    async update(m) {
      n += 1;
      const error = fail("update", m.channel, n);
      if (error) throw error;
      log.push(`update ${m.channel} ${m.ts}`);
    },
  };
  const sender = createSender({
    db,
    slack,
    clock,
    logger: silentLogger,
    sleep: async (ms) => clock.advance(ms),
    random: () => 0,
  });
  return {
    db,
    clock,
    log,
    sender,
    outbox: new OutboxStore(db),
    cards: new CardStore(db),
    subs: new SubscriptionStore(db, clock),
  };
}

describe("sender", () => {
  it("posts a new card when the old one is gone", async () => {
    const s = setup((method) =>
      method === "update" ? new SlackSendError("gone", "message_not_found") : undefined,
    );
    s.cards.put({ channel: "C", clusterUid: "a", ts: "old" }, "t");
    s.outbox.add({ channel: "C", kind: "card", clusterUid: "a", payload: card("a") }, "t");
    await s.sender.drainAll();
    expect(s.log).toEqual([expect.stringMatching(/^post C - /)]);
    expect(s.cards.get("C", "a")?.ts).not.toBe("old");
  });

  it("parks a refused message and goes on with the next", async () => {
    const s = setup((_m, _c, n) =>
      n === 1 ? new SlackSendError("rejected", "invalid_blocks") : undefined,
    );
    s.outbox.add({ channel: "C", kind: "card", clusterUid: "a", payload: card("a") }, "t");
    s.outbox.add({ channel: "C", kind: "card", clusterUid: "b", payload: card("b") }, "t");
    await s.sender.drainAll();
    expect(s.log).toHaveLength(1);
    expect(s.log[0]).toContain("n-b");
    expect(s.sender.metrics().parked).toBe(1);
  });

  it("pauses the channel's subscriptions and parks its rows on not_in_channel; others go on", async () => {
    const s = setup((_m, channel) =>
      channel === "CX" ? new SlackSendError("channel", "not_in_channel") : undefined,
    );
    s.subs.add({ channel: "CX", kind: "all", createdBy: "U" });
    for (const uid of ["a", "b"]) {
      s.outbox.add({ channel: "CX", kind: "card", clusterUid: uid, payload: card(uid) }, "t");
      s.outbox.add({ channel: "CY", kind: "card", clusterUid: uid, payload: card(uid) }, "t");
    }
    await s.sender.drainAll();
    expect(s.subs.forChannel("CX")[0]?.pausedReason).toBe("Slack: not_in_channel");
    expect(s.outbox.pendingCount()).toBe(0);
    expect(s.log.filter((l) => l.startsWith("post CY"))).toHaveLength(2);
  });

  it("paces one channel at one message a second, channels side by side", async () => {
    const s = setup(() => undefined);
    const t0 = s.clock.now();
    const at: Record<string, number[]> = { C1: [], C2: [] };
    for (let i = 0; i < 4; i++) {
      for (const channel of ["C1", "C2"]) {
        s.outbox.add({ channel, kind: "card", clusterUid: `u${i}`, payload: card(`u${i}`) }, "t");
      }
    }
    for (;;) {
      const before = s.log.length;
      const { pending, nextAt } = await s.sender.drainOnce();
      for (const line of s.log.slice(before)) at[line.split(" ")[1]!]!.push(s.clock.now() - t0);
      if (pending === 0) break;
      s.clock.set(nextAt!);
    }
    expect(at).toEqual({ C1: [0, 1000, 2000, 3000], C2: [0, 1000, 2000, 3000] });
  });

  it("never edits a card another part of the bot owns; adds only thread lines to it", async () => {
    const s = setup(() => undefined);
    const { adoptCard } = await import("../../../src/notify/adopt-launch-card.ts");
    adoptCard(s.db, { channel: "CL", clusterUid: "n", ts: "launch-ts" }, s.clock);
    s.outbox.add({ channel: "CL", kind: "card", clusterUid: "n", payload: card("n") }, "t");
    await s.sender.drainAll();
    expect(s.log).toEqual([expect.stringMatching(/^post CL launch-ts /)]);
  });
});
