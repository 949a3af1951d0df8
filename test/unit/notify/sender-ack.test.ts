import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { createSender } from "../../../src/notify/delivery/outbox-sender.ts";
import { type SlackPoster, SlackSendError } from "../../../src/notify/delivery/slack-port.ts";
import { AckStore } from "../../../src/store/acks.ts";
import { CardStore } from "../../../src/store/cards.ts";
import { OutboxStore } from "../../../src/store/outbox.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { openMemoryDb } from "../../support/store.ts";

/** What an acknowledgement changes in what the sender posts (issue 13, part 2). */

const cluster = {
  uid: "u1",
  name: "web-prod",
  project: "p1",
  state: "Running",
  health: "UnHealthy",
  tags: [],
};
const T0 = Date.UTC(2026, 0, 1, 12);
const iso = (ms: number) => new Date(ms).toISOString();

const lost = (at: number): CardPayload => ({
  cluster,
  previous: { state: "Running", health: "Healthy" },
  kinds: ["health-lost"],
  lines: ["Health lost: Healthy → UnHealthy"],
  worse: true,
  alerts: [],
  at: iso(at),
});
const worseAgain = (at: number): CardPayload => ({
  cluster,
  // a cluster still coming up (no health yet) goes bad: the trouble it was in, now worse
  previous: { state: "Provisioning", health: "" },
  kinds: ["health-lost"],
  lines: ["Health lost: ? → UnHealthy"],
  worse: true,
  alerts: [],
  at: iso(at),
});
const recovered = (at: number): CardPayload => ({
  cluster: { ...cluster, health: "Healthy" },
  previous: { state: "Running", health: "UnHealthy" },
  kinds: ["health-recovered"],
  lines: ["Health recovered: UnHealthy → Healthy"],
  worse: false,
  alerts: [],
  at: iso(at),
});

interface Sent {
  method: "post" | "update";
  channel: string;
  ts?: string;
  thread_ts?: string;
  reply_broadcast?: boolean;
  text: string;
  blocks: string;
}

async function setup(
  fail: (message: { thread_ts?: string }) => SlackSendError | undefined = () => undefined,
) {
  const db = await openMemoryDb();
  const clock = new ManualClock(T0);
  const sent: Sent[] = [];
  let n = 0;
  const slack: SlackPoster = {
    async postMessage(m) {
      const error = fail(m);
      if (error) throw error;
      n += 1;
      expect(checkSlackLimits(m.blocks ?? [])).toEqual([]);
      sent.push({
        method: "post",
        channel: m.channel,
        thread_ts: m.thread_ts,
        reply_broadcast: m.reply_broadcast,
        text: m.text,
        blocks: JSON.stringify(m.blocks),
      });
      return { ts: `ts${n}` };
    },
    async update(m) {
      expect(checkSlackLimits(m.blocks ?? [])).toEqual([]);
      sent.push({
        method: "update",
        channel: m.channel,
        ts: m.ts,
        text: m.text,
        blocks: JSON.stringify(m.blocks),
      });
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
  const outbox = new OutboxStore(db);
  const add = (payload: CardPayload) =>
    outbox.add({ channel: "C1", kind: "card", clusterUid: "u1", payload }, payload.at);
  return { db, clock, sent, sender, add, acks: new AckStore(db), cards: new CardStore(db) };
}

describe("sender: an acknowledged card", () => {
  it("keeps a worse change of the same incident in the thread (no broadcast); the card shows who has it", async () => {
    const s = await setup();
    await s.add(lost(T0));
    await s.sender.drainAll();
    await s.acks.put("C1", "u1", { userId: "U0ONE", at: T0 + 60_000 });
    s.clock.set(T0 + 120_000);
    await s.add(worseAgain(T0 + 120_000));
    await s.sender.drainAll();
    const [update, line] = s.sent.slice(1);
    expect(update!.method).toBe("update");
    expect(update!.blocks).toContain("Acknowledged by <@U0ONE>");
    expect(line).toMatchObject({ method: "post", thread_ts: "ts1", reply_broadcast: false });
    expect((await s.acks.get("C1", "u1"))?.userId).toBe("U0ONE");
  });

  it("without an acknowledgement the same change is broadcast", async () => {
    const s = await setup();
    await s.add(lost(T0));
    await s.add(worseAgain(T0 + 1));
    await s.sender.drainAll();
    expect(s.sent.at(-1)).toMatchObject({ thread_ts: "ts1", reply_broadcast: true });
  });

  it("recovery clears the acknowledgement: the card no longer shows it, the thread line names who had it", async () => {
    const s = await setup();
    await s.add(lost(T0));
    await s.sender.drainAll();
    await s.acks.put("C1", "u1", { userId: "U0ONE", at: T0 + 60_000 });
    s.clock.set(T0 + 300_000);
    await s.add(recovered(T0 + 300_000));
    await s.sender.drainAll();
    const [update, line] = s.sent.slice(1);
    expect(update!.method).toBe("update");
    expect(update!.blocks).not.toContain("Acknowledged by");
    expect(update!.blocks).toContain("notify_card:ack"); // the button is back for the next time
    expect(line!.thread_ts).toBe("ts1");
    expect(line!.blocks).toContain("Recovered; <@U0ONE> had acknowledged it");
    expect(line!.text).toContain("<@U0ONE> had acknowledged it");
    expect(await s.acks.get("C1", "u1")).toBeUndefined();
  });

  it("recovery without an acknowledgement says nothing about one", async () => {
    const s = await setup();
    await s.add(lost(T0));
    await s.add(recovered(T0 + 1));
    await s.sender.drainAll();
    expect(s.sent.at(-1)!.blocks).not.toContain("acknowledged");
  });

  it("a recovery whose thread line fails keeps the acknowledgement until the line goes out", async () => {
    let failNextThreadLine = false;
    const s = await setup((message) => {
      if (!message.thread_ts || !failNextThreadLine) return undefined;
      failNextThreadLine = false;
      return new SlackSendError("transient", "http_503");
    });
    await s.add(lost(T0));
    await s.sender.drainAll();
    await s.acks.put("C1", "u1", { userId: "U0ONE", at: T0 + 60_000 });
    s.clock.set(T0 + 300_000);
    await s.add(recovered(T0 + 300_000));
    failNextThreadLine = true;
    await s.sender.drainOnce();
    // the card was edited, the line failed: who had it is still known
    expect(s.sent.map((m) => m.method)).toEqual(["post", "update"]);
    expect((await s.acks.get("C1", "u1"))?.userId).toBe("U0ONE");
    await s.sender.drainAll();
    expect(s.sent.at(-1)!.blocks).toContain("Recovered; <@U0ONE> had acknowledged it");
    expect(await s.acks.get("C1", "u1")).toBeUndefined();
  });

  it("a new incident after an unseen recovery does not inherit the old acknowledgement", async () => {
    const s = await setup();
    await s.add(lost(T0));
    await s.sender.drainAll();
    // acknowledged; the recovery never reached this channel as a card (folded into a digest)
    await s.acks.put("C1", "u1", { userId: "U0ONE", at: T0 + 60_000 });
    s.clock.set(T0 + 3_600_000);
    await s.add(lost(T0 + 3_600_000));
    await s.sender.drainAll();
    const [update, line] = s.sent.slice(1);
    expect(update!.blocks).not.toContain("Acknowledged by");
    expect(line).toMatchObject({ thread_ts: "ts1", reply_broadcast: true });
    expect(await s.acks.get("C1", "u1")).toBeUndefined();
  });

  it("an acknowledgement given after the poll saw the new incident stands", async () => {
    const s = await setup();
    await s.add(lost(T0));
    await s.sender.drainAll();
    await s.add(lost(T0 + 3_600_000));
    // clicked on the card between the poll and the sender's turn
    await s.acks.put("C1", "u1", { userId: "U0TWO", at: T0 + 3_600_001 });
    s.clock.set(T0 + 3_600_002);
    await s.sender.drainAll();
    expect((await s.acks.get("C1", "u1"))?.userId).toBe("U0TWO");
    expect(s.sent.at(-1)).toMatchObject({ reply_broadcast: false });
  });
});
