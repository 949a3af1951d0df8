import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { createSender, type SenderOptions } from "../../../src/notify/delivery/outbox-sender.ts";
import { type SlackPoster, SlackSendError } from "../../../src/notify/delivery/slack-port.ts";
import { CardStore } from "../../../src/store/cards.ts";
import { OutboxStore } from "../../../src/store/outbox.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { openMemoryDb } from "../../support/store.ts";

const card = (uid: string, line = "State Running → Upgrading"): CardPayload => ({
  cluster: { uid, name: `n-${uid}`, project: "p", state: "Upgrading", health: "Healthy", tags: [] },
  kinds: ["state"],
  lines: [line],
  worse: false,
  alerts: [],
  at: "t",
});

type Call = { method: string; channel: string; n: number; text: string; blocks: boolean };
type Failure = SlackSendError | undefined | Promise<SlackSendError | undefined>;

async function setup(
  fail: (method: string, channel: string, n: number, call: Call) => Failure,
  options: Partial<SenderOptions> & { ping?: () => Promise<void> } = {},
) {
  const db = await openMemoryDb();
  const clock = new ManualClock();
  const log: string[] = [];
  /** every call Slack saw, accepted or not, with the clock time it arrived */
  const calls: Array<Call & { at: number }> = [];
  let n = 0;
  const { ping, ...senderOptions } = options;
  const slack: SlackPoster = {
    async postMessage(m) {
      n += 1;
      const call = { method: "post", channel: m.channel, n, text: m.text, blocks: !!m.blocks };
      calls.push({ ...call, at: clock.now() });
      const error = await fail("post", m.channel, n, call);
      if (error) throw error;
      log.push(`post ${m.channel} ${m.thread_ts ?? "-"} ${m.text}`);
      return { ts: `ts${n}` };
    },
    async update(m) {
      n += 1;
      const call = { method: "update", channel: m.channel, n, text: m.text, blocks: !!m.blocks };
      calls.push({ ...call, at: clock.now() });
      const error = await fail("update", m.channel, n, call);
      if (error) throw error;
      log.push(`update ${m.channel} ${m.ts}`);
    },
    ...(ping ? { ping } : {}),
  };
  const sender = createSender({
    db,
    slack,
    clock,
    logger: silentLogger,
    sleep: async (ms) => clock.advance(ms),
    random: () => 0,
    ...senderOptions,
  });
  return {
    db,
    clock,
    log,
    calls,
    sender,
    outbox: new OutboxStore(db),
    cards: new CardStore(db),
    subs: new SubscriptionStore(db, clock),
  };
}

describe("sender", () => {
  it("posts a new card when the old one is gone", async () => {
    const s = await setup((method) =>
      method === "update" ? new SlackSendError("gone", "message_not_found") : undefined,
    );
    await s.cards.put({ channel: "C", clusterUid: "a", ts: "old" }, "t");
    await s.outbox.add({ channel: "C", kind: "card", clusterUid: "a", payload: card("a") }, "t");
    await s.sender.drainAll();
    expect(s.log).toEqual([expect.stringMatching(/^post C - /)]);
    expect((await s.cards.get("C", "a"))?.ts).not.toBe("old");
  });

  it("pauses the channel's subscriptions and parks its rows on not_in_channel; others go on", async () => {
    const s = await setup((_m, channel) =>
      channel === "CX" ? new SlackSendError("channel", "not_in_channel") : undefined,
    );
    await s.subs.add({ channel: "CX", kind: "all", createdBy: "U" });
    for (const uid of ["a", "b"]) {
      await s.outbox.add({ channel: "CX", kind: "card", clusterUid: uid, payload: card(uid) }, "t");
      await s.outbox.add({ channel: "CY", kind: "card", clusterUid: uid, payload: card(uid) }, "t");
    }
    await s.sender.drainAll();
    expect((await s.subs.forChannel("CX"))[0]?.pausedReason).toBe("Slack: not_in_channel");
    expect(await s.outbox.pendingCount()).toBe(0);
    expect(s.log.filter((l) => l.startsWith("post CY"))).toHaveLength(2);
  });

  it("paces one channel at one message a second, channels side by side", async () => {
    const s = await setup(() => undefined);
    const t0 = s.clock.now();
    const at: Record<string, number[]> = { C1: [], C2: [] };
    for (let i = 0; i < 4; i++) {
      for (const channel of ["C1", "C2"]) {
        await s.outbox.add(
          { channel, kind: "card", clusterUid: `u${i}`, payload: card(`u${i}`) },
          "t",
        );
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
    const s = await setup(() => undefined);
    const { adoptCard } = await import("../../../src/notify/delivery/adopt-launch-card.ts");
    await adoptCard(s.db, { channel: "CL", clusterUid: "n", ts: "launch-ts" }, s.clock);
    await s.outbox.add({ channel: "CL", kind: "card", clusterUid: "n", payload: card("n") }, "t");
    await s.sender.drainAll();
    expect(s.log).toEqual([expect.stringMatching(/^post CL launch-ts /)]);
  });
});

/** rows still waiting, parked or dead: anything not sent (raw SQL, so it reads any schema) */
const unsent = async (db: SqlDb) =>
  (
    (await db.get("SELECT COUNT(*) AS n FROM notify_outbox WHERE sent_at IS NULL")) as {
      n: number;
    }
  ).n;

/** the cluster a logged post or update names (cards render `n-<uid>: …`) */
const named = (line: string) => /n-(\w+)/.exec(line)?.[1];

describe("sender: Slack refuses the workspace, not the message (hole 1)", () => {
  it("pauses on invalid_auth, probes with one row at growing intervals, resumes by itself: nothing lost, nothing set aside, order kept", async () => {
    const pauses: unknown[] = [];
    let t0 = 0;
    const s = await setup(
      (_m, _c, _n, _call) =>
        s.clock.now() - t0 < 20_000 ? new SlackSendError("workspace", "invalid_auth") : undefined,
      { onPauseChange: (state) => pauses.push(state) },
    );
    t0 = s.clock.now();
    for (const uid of ["a", "b", "c"]) {
      await s.outbox.add({ channel: "C1", kind: "card", clusterUid: uid, payload: card(uid) }, "t");
    }
    for (const uid of ["d", "e"]) {
      await s.outbox.add({ channel: "C2", kind: "card", clusterUid: uid, payload: card(uid) }, "t");
    }
    await s.sender.drainAll(1_000);

    // every message delivered, each channel in its own order
    expect(s.log.filter((l) => l.startsWith("post C1")).map(named)).toEqual(["a", "b", "c"]);
    expect(s.log.filter((l) => l.startsWith("post C2")).map(named)).toEqual(["d", "e"]);
    expect(await unsent(s.db)).toBe(0);
    // while paused, one probe at a time, at growing intervals (1, 2, 4, 8, 16 s)
    const refusedAt = s.calls.filter((c) => c.at - t0 < 20_000).map((c) => c.at - t0);
    expect(refusedAt).toEqual([0, 0, 1_000, 3_000, 7_000, 15_000]);
    expect(s.calls.find((c) => c.at - t0 >= 20_000)?.at).toBe(t0 + 31_000);
    expect(s.sender.status()).toMatchObject({ paused: false });
    expect(s.sender.metrics()).toMatchObject({ pauses: 1, deadLettered: 0, parked: 0 });
    expect(pauses).toEqual([{ paused: true, reason: "invalid_auth" }, { paused: false }]);
  });

  it("says why it is paused while it is", async () => {
    const s = await setup(() => new SlackSendError("workspace", "token_revoked"));
    await s.outbox.add({ channel: "C1", kind: "card", clusterUid: "a", payload: card("a") }, "t");
    await s.sender.drainAll(5);
    expect(s.sender.status()).toMatchObject({ paused: true, reason: "token_revoked" });
    expect(s.sender.status().nextProbeAt).toBeGreaterThan(s.clock.now() - 1);
    expect(await unsent(s.db)).toBe(1);
    expect(await s.sender.outboxStats()).toMatchObject({ depth: 1, deadLetters: 0 });
  });

  it("retries a message Slack refuses for its content once as plain text, without blocks", async () => {
    const s = await setup((_m, _c, _n, call) =>
      call.blocks && call.text.includes("n-a")
        ? new SlackSendError("rejected", "invalid_blocks")
        : undefined,
    );
    await s.outbox.add({ channel: "C", kind: "card", clusterUid: "a", payload: card("a") }, "t");
    await s.outbox.add({ channel: "C", kind: "card", clusterUid: "b", payload: card("b") }, "t");
    await s.sender.drainAll();
    const forA = s.calls.filter((c) => c.text.includes("n-a"));
    expect(forA.map((c) => c.blocks)).toEqual([true, false]);
    expect(s.log.map(named)).toEqual(["a", "b"]);
    expect(s.calls.find((c) => c.text.includes("n-b"))?.blocks).toBe(true);
    expect(await unsent(s.db)).toBe(0);
    expect(s.sender.metrics()).toMatchObject({ fallbacks: 1, deadLettered: 0 });
  });

  it("sets a message aside as a dead letter when its plain text is refused too; the channel goes on", async () => {
    const s = await setup((_m, _c, _n, call) =>
      call.text.includes("n-a") ? new SlackSendError("rejected", "msg_too_long") : undefined,
    );
    await s.outbox.add({ channel: "C", kind: "card", clusterUid: "a", payload: card("a") }, "t");
    await s.outbox.add({ channel: "C", kind: "card", clusterUid: "b", payload: card("b") }, "t");
    await s.sender.drainAll(50);
    expect(s.calls.filter((c) => c.text.includes("n-a")).map((c) => c.blocks)).toEqual([
      true,
      false,
    ]);
    expect(s.log.map(named)).toEqual(["b"]);
    expect(await s.outbox.undelivered("C")).toEqual([
      { status: "dead", reason: "Slack: msg_too_long", count: 1 },
    ]);
    expect(s.sender.metrics().deadLettered).toBe(1);
  });
});

describe("sender: capped retries and dead letters (hole 5)", () => {
  it("gives a row up after maxAttempts transient failures and goes on with the channel's next rows", async () => {
    const s = await setup(
      (_m, _c, _n, call) =>
        call.text.includes("n-a") ? new SlackSendError("transient", "http_503") : undefined,
      { maxAttempts: 3, ping: async () => undefined },
    );
    for (const uid of ["a", "b", "c"]) {
      await s.outbox.add({ channel: "C", kind: "card", clusterUid: uid, payload: card(uid) }, "t");
    }
    await s.sender.drainAll(200);
    expect(s.log.map(named)).toEqual(["b", "c"]);
    expect(s.calls.filter((c) => c.text.includes("n-a"))).toHaveLength(3);
    const dead = await s.outbox.undelivered("C");
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ status: "dead", count: 1 });
    expect(dead[0]!.reason).toContain("http_503");
    expect(await s.sender.outboxStats()).toMatchObject({ depth: 0, deadLetters: 1 });
    expect(s.sender.metrics().deadLettered).toBe(1);
  });

  it("gives nothing up while Slack itself does not answer (auth.test fails too), and delivers all once it is back", async () => {
    let t0 = 0;
    const down = () => s.clock.now() - t0 < 10 * 60_000;
    const s = await setup(() => (down() ? new SlackSendError("transient", "timeout") : undefined), {
      maxAttempts: 3,
      ping: async () => {
        if (down()) throw new SlackSendError("transient", "timeout");
      },
    });
    t0 = s.clock.now();
    for (const uid of ["a", "b"]) {
      await s.outbox.add({ channel: "C", kind: "card", clusterUid: uid, payload: card(uid) }, "t");
    }
    await s.sender.drainAll(500);
    expect(s.log.map(named)).toEqual(["a", "b"]);
    expect(await unsent(s.db)).toBe(0);
    expect(s.sender.metrics().deadLettered).toBe(0);
  });

  it("re-sends a channel's dead letters in their original order once re-queued, before its newer rows", async () => {
    let refuse = true;
    const s = await setup((_m, _c, _n, call) =>
      refuse && /n-[ab]\b/.test(call.text)
        ? new SlackSendError("rejected", "invalid_blocks")
        : undefined,
    );
    for (const uid of ["a", "b", "c"]) {
      await s.outbox.add({ channel: "C", kind: "card", clusterUid: uid, payload: card(uid) }, "t");
    }
    await s.sender.drainAll(50);
    expect(s.log.map(named)).toEqual(["c"]);
    refuse = false;
    await s.outbox.add({ channel: "C", kind: "card", clusterUid: "d", payload: card("d") }, "t");
    expect(await s.outbox.requeue("C")).toBe(2);
    await s.sender.drainAll(50);
    expect(s.log.map(named)).toEqual(["c", "a", "b", "d"]);
    expect(await s.outbox.undelivered("C")).toEqual([]);
  });
});

describe("sender: channels drain independently (hole 6)", () => {
  it("a post that never answers in one channel does not hold up another channel", async () => {
    let release: () => void = () => undefined;
    const hung = new Promise<undefined>((resolve) => {
      release = () => resolve(undefined);
    });
    let allOfC2: () => void = () => undefined;
    const c2Done = new Promise<string>((resolve) => {
      allOfC2 = () => resolve("C2 done");
    });
    const s = await setup((_m, channel) => (channel === "CHUNG" ? hung : undefined));
    await s.outbox.add(
      { channel: "CHUNG", kind: "card", clusterUid: "h", payload: card("h") },
      "t",
    );
    for (const uid of ["a", "b", "c"]) {
      await s.outbox.add({ channel: "C2", kind: "card", clusterUid: uid, payload: card(uid) }, "t");
    }
    const watch = setInterval(() => {
      if (s.log.filter((l) => l.startsWith("post C2")).length === 3) allOfC2();
    }, 5);
    const draining = s.sender.drainAll(1_000);
    // a guard, not a timing assumption: the passing path never waits for it
    const guard = new Promise<string>((resolve) => setTimeout(() => resolve("stalled"), 3_000));
    const outcome = await Promise.race([c2Done, guard]);
    clearInterval(watch);
    const c2 = s.log.filter((l) => l.startsWith("post C2")).map(named);
    release();
    await draining;
    expect(outcome).toBe("C2 done");
    expect(c2).toEqual(["a", "b", "c"]);
    expect(s.log.filter((l) => l.startsWith("post CHUNG"))).toHaveLength(1);
    expect(await unsent(s.db)).toBe(0);
  });

  it("keeps at most maxInFlight posts in flight across channels, one per channel, each channel in order", async () => {
    let inFlight = 0;
    let most = 0;
    const s = await setup(
      async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        // a real turn of the event loop, so calls overlap as they would over HTTP
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
        return undefined;
      },
      { maxInFlight: 4 },
    );
    const channels = Array.from({ length: 12 }, (_, i) => `C${i}`);
    for (const channel of channels) {
      for (const uid of ["a", "b"]) {
        await s.outbox.add({ channel, kind: "card", clusterUid: uid, payload: card(uid) }, "t");
      }
    }
    await s.sender.drainAll(1_000);
    expect(most).toBe(4);
    expect(s.log).toHaveLength(24);
    for (const channel of channels) {
      expect(s.log.filter((l) => l.startsWith(`post ${channel} `)).map(named)).toEqual(["a", "b"]);
    }
  });
});
