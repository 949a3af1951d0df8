import { afterEach, describe, expect, it } from "vitest";
import type { FleetCluster } from "../../src/simulator/types.ts";
import { BACKENDS } from "../support/backends.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";

let h: NotifyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const healthyRunning = (harness: NotifyHarness, project?: string): FleetCluster[] =>
  harness.sim.control
    .clusters(project)
    .filter((c) => c.state === "Running" && c.health === "Healthy");

const textOf = (body: Record<string, unknown>) => JSON.stringify(body.blocks ?? body.text);

describe.each(BACKENDS)("on $name", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (backend) => {
  describe("notifications against the simulator", () => {
    it("announces the baseline once, then one card per change, edited in place with a thread", async () => {
      h = await startNotifyHarness({ openDb: await backend.database() });
      await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
      await h.cycle();
      expect(h.posts("C1")).toHaveLength(1);
      expect(textOf(h.posts("C1")[0]!)).toContain("Watching");

      await h.cycle();
      expect(h.posts("C1")).toHaveLength(1); // nothing changed, nothing said

      const target = healthyRunning(h)[0]!;
      h.sim.control.setState(target.uid, "Upgrading");
      await h.cycle();
      const posts = h.posts("C1");
      expect(posts).toHaveLength(2);
      expect(posts[1]!.thread_ts).toBeUndefined();
      expect(textOf(posts[1]!)).toContain("Upgrading");
      const cardTs = h.fake.callsTo("chat.postMessage").at(-1)!;

      h.sim.control.setState(target.uid, "Running");
      await h.cycle();
      expect(h.updates("C1")).toHaveLength(1);
      expect(h.posts("C1")).toHaveLength(3);
      const line = h.posts("C1")[2]!;
      expect(line.thread_ts).toBeDefined();
      expect(h.updates("C1")[0]!.ts).toBe(line.thread_ts);
      expect(textOf(line)).toContain("Upgrading → Running");
      expect(cardTs).toBeDefined();
    });

    it("raises ClusterHealth with the reason when health is lost and resolves it on recovery", async () => {
      h = await startNotifyHarness({ openDb: await backend.database() });
      await h.subs.add({ channel: "CA", kind: "alerts", createdBy: "U1" });
      await h.cycle();
      const target = healthyRunning(h)[0]!;
      h.sim.control.setHealth(target.uid, "UnHealthy", "node worker-2 NotReady");
      await h.cycle();
      const card = h.posts("CA")[1]!;
      expect(textOf(card)).toContain("ClusterHealth");
      expect(textOf(card)).toContain("NotReady");
      // the only events read were for the one cluster that lost health
      const eventReads = h.sim.control.requests().filter((r) => r.path.startsWith("/v1/events"));
      expect(eventReads.map((r) => r.path)).toEqual([
        `/v1/events/components/spectrocluster/${target.uid}`,
      ]);

      h.sim.control.setHealth(target.uid, "Healthy");
      await h.cycle();
      const line = h.posts("CA")[2]!;
      expect(line.thread_ts).toBeDefined();
      expect(textOf(line)).toContain("resolved");
      expect(String(line.reply_broadcast)).not.toBe("true");
    });

    it("broadcasts a change to worse health from the thread to the channel", async () => {
      h = await startNotifyHarness({ openDb: await backend.database() });
      await h.subs.add({ channel: "C1", kind: "clusters", createdBy: "U1" });
      await h.cycle();
      const target = healthyRunning(h)[0]!;
      h.sim.control.setState(target.uid, "Upgrading");
      await h.cycle();
      h.sim.control.setHealth(target.uid, "UnHealthy", "etcd degraded");
      await h.cycle();
      const line = h.posts("C1").at(-1)!;
      expect(line.thread_ts).toBeDefined();
      expect(String(line.reply_broadcast)).toBe("true");
    });

    it("gives two channels with different filters only their own changes", async () => {
      h = await startNotifyHarness({ openDb: await backend.database() });
      const [p1, p2] = h.sim.control.projects();
      await h.subs.add({ channel: "C1", kind: "all", project: p1, createdBy: "U1" });
      await h.subs.add({ channel: "C2", kind: "clusters", project: p2, createdBy: "U1" });
      await h.cycle();
      const a = healthyRunning(h, p1)[0]!;
      const b = healthyRunning(h, p2)[0]!;
      h.sim.control.setState(a.uid, "Upgrading");
      h.sim.control.setState(b.uid, "Upgrading");
      await h.cycle();
      expect(h.posts("C1")).toHaveLength(2);
      expect(h.posts("C2")).toHaveLength(2);
      expect(textOf(h.posts("C1")[1]!)).toContain(a.uid);
      expect(textOf(h.posts("C1")[1]!)).not.toContain(b.uid);
      expect(textOf(h.posts("C2")[1]!)).toContain(b.uid);
    });

    it("reports nothing while Palette is down for three cycles, then each change once", async () => {
      h = await startNotifyHarness({ openDb: await backend.database() });
      await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
      await h.cycle();
      const target = healthyRunning(h)[0]!;
      h.sim.control.addFault({ pathPrefix: "/v1", kind: "status", status: 503 });
      for (let i = 0; i < 3; i++) {
        const result = await h.poller.runCycle();
        expect(result.ok).toBe(false);
        await h.sender.drainAll();
        if (i === 1) h.sim.control.setHealth(target.uid, "UnHealthy", "disk pressure");
      }
      expect(h.posts("C1")).toHaveLength(1);
      h.sim.control.clearFaults();
      await h.cycle();
      await h.cycle();
      expect(h.posts("C1")).toHaveLength(2);
      expect(textOf(h.posts("C1")[1]!)).toContain("disk pressure");
      expect(h.poller.metrics().failedCycles).toBe(3);
    });

    it("after a restart re-announces nothing and announces what changed while down once", async () => {
      // one database opened twice: a file for SQLite, the same URL for PostgreSQL
      const openDb = await backend.database();
      h = await startNotifyHarness({ openDb });
      await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
      await h.cycle();
      const target = healthyRunning(h)[0]!;
      h.sim.control.setState(target.uid, "Upgrading");
      await h.cycle();
      expect(h.posts("C1")).toHaveLength(2);
      // "restart": a new poller and sender over the same file, same simulator
      const { createPoller } = await import("../../src/notify/poll/poll.ts");
      const { createSender } = await import("../../src/notify/delivery/outbox-sender.ts");
      const { createSlackPoster } = await import("../../src/slack/notify-poster.ts");
      const { Secret } = await import("../../src/secret.ts");
      const { silentLogger } = await import("../../src/log.ts");
      const db2 = await openDb();
      const harness = h;
      const poller2 = createPoller({
        palette: harness.palette,
        db: db2,
        clock: harness.clock,
        logger: silentLogger,
        projects: harness.sim.control.projects(),
      });
      const sender2 = createSender({
        db: db2,
        slack: createSlackPoster({ token: new Secret("xoxb-t"), apiUrl: harness.fake.apiUrl }),
        clock: harness.clock,
        logger: silentLogger,
        sleep: async (ms) => harness.clock.advance(ms),
      });
      h.sim.control.setState(target.uid, "Running");
      await poller2.runCycle();
      await sender2.drainAll();
      await poller2.runCycle();
      await sender2.drainAll();
      expect(h.posts("C1")).toHaveLength(3);
      expect(h.updates("C1")).toHaveLength(1);
      await db2.close();
    });

    it("pauses a channel's subscriptions when Slack says channel_not_found", async () => {
      h = await startNotifyHarness({ openDb: await backend.database() });
      await h.subs.add({ channel: "CGONE", kind: "all", createdBy: "U1" });
      await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
      h.fake.on("chat.postMessage", (call) =>
        call.body.channel === "CGONE"
          ? { body: { ok: false, error: "channel_not_found" } }
          : undefined,
      );
      await h.cycle();
      expect((await h.subs.forChannel("CGONE"))[0]?.pausedReason).toContain("channel_not_found");
      expect(h.posts("C1")).toHaveLength(1);
      const target = healthyRunning(h)[0]!;
      h.sim.control.setState(target.uid, "Upgrading");
      await h.cycle();
      expect(h.posts("CGONE")).toHaveLength(1); // the one refused attempt, nothing after
      expect(h.posts("C1")).toHaveLength(2);
    });
  });
});

describe("a channel whose posts hang, against the real poster", () => {
  it("does not hold up the other channel; the hung row times out, is retried, becomes a dead letter that blocks nothing, and goes out once re-queued", async () => {
    // each held call stays open past its time-out; none of them ever lands while the test looks,
    // so the sender need not wait for them before looking and posting again
    h = await startNotifyHarness({
      sender: { maxAttempts: 3, earlierAttemptSettlesMs: 0 },
      slackTimeoutMs: 1_000,
    });
    await h.subs.add({ channel: "CHUNG", kind: "all", createdBy: "U1" });
    await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
    await h.cycle();
    const [first, second] = healthyRunning(h);
    const held: Array<() => void> = [];
    let hang = true;
    const isCardOf = (body: Record<string, unknown>, uid: string) =>
      !body.thread_ts && JSON.stringify(body.blocks).includes(uid);
    h.fake.on("chat.postMessage", (call) =>
      hang && call.body.channel === "CHUNG" && isCardOf(call.body, first!.uid)
        ? new Promise((resolve) => held.push(() => resolve(undefined)))
        : undefined,
    );
    try {
      h.sim.control.setState(first!.uid, "Upgrading");
      h.sim.control.setState(second!.uid, "Upgrading");
      await h.cycle();
      const calls = h.fake.callsTo("chat.postMessage");
      const hungCalls = calls.filter(
        (c) => c.body.channel === "CHUNG" && isCardOf(c.body, first!.uid),
      );
      expect(hungCalls).toHaveLength(3);
      // C1's second card went out while CHUNG's first call was still open (before its retry)
      const c1Second = calls.findIndex(
        (c) => c.body.channel === "C1" && isCardOf(c.body, second!.uid),
      );
      expect(c1Second).toBeGreaterThan(-1);
      expect(c1Second).toBeLessThan(calls.indexOf(hungCalls[1]!));
      const { OutboxStore } = await import("../../src/store/outbox.ts");
      const outbox = new OutboxStore(h.db);
      expect(await outbox.undelivered("CHUNG")).toEqual([
        { status: "dead", reason: "Slack: timeout after 3 attempts", count: 1 },
      ]);
      // the dead letter blocks nothing: CHUNG's next card went out after it
      expect(h.posts("CHUNG").filter((b) => isCardOf(b, second!.uid))).toHaveLength(1);
      expect(await h.sender.outboxStats()).toMatchObject({ depth: 0, deadLetters: 1 });

      hang = false;
      expect(await outbox.requeue("CHUNG")).toBe(1);
      await h.sender.drainAll();
      expect(await outbox.undelivered("CHUNG")).toEqual([]);
      expect(h.posts("CHUNG").filter((b) => isCardOf(b, first!.uid))).toHaveLength(4);
    } finally {
      hang = false;
      for (const release of held) release();
    }
  }, 20_000);
});
