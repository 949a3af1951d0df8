import { afterEach, describe, expect, it } from "vitest";
import type { RecordedCall } from "../support/fake-slack.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";

let h: NotifyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const textOf = (body: Record<string, unknown>) => JSON.stringify(body.blocks ?? body.text);

/** Slack's own rule, on the injected clock: one message per second per channel, else 429. */
function enforceOnePerSecond(harness: NotifyHarness) {
  const last = new Map<string, number>();
  const rejected: RecordedCall[] = [];
  harness.fake.on("chat.postMessage", (call) => {
    const channel = String(call.body.channel);
    const now = harness.clock.now();
    const before = last.get(channel);
    if (before !== undefined && now - before < 1000) {
      rejected.push(call);
      return {
        status: 429,
        headers: { "retry-after": "1" },
        body: { ok: false, error: "ratelimited" },
      };
    }
    last.set(channel, now);
    return undefined;
  });
  return rejected;
}

describe("notifications never flood", () => {
  it("500 clusters changing at once → one digest per channel and zero 429s", async () => {
    h = await startNotifyHarness({ clusters: 540, projects: 2, seed: 3 });
    const [p1] = h.sim.control.projects();
    await h.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
    await h.subs.add({ channel: "C2", kind: "clusters", project: p1, createdBy: "U1" });
    const rejected = enforceOnePerSecond(h);
    await h.cycle();
    const before = { c1: h.posts("C1").length, c2: h.posts("C2").length };
    expect(before).toEqual({ c1: 1, c2: 1 });

    const all = h.sim.control.clusters();
    for (const c of all.slice(0, 500)) h.sim.control.setState(c.uid, "Upgrading");
    await h.cycle();
    expect(h.posts("C1")).toHaveLength(2);
    expect(h.posts("C2")).toHaveLength(2);
    expect(textOf(h.posts("C1")[1]!)).toContain("500 clusters changed");
    const inP1 = all.slice(0, 500).filter((c) => c.projectUid === p1).length;
    expect(textOf(h.posts("C2")[1]!)).toContain(`${inP1} clusters changed`);

    // a smaller wave stays as cards, paced at one per second per channel
    const some = h.sim.control.clusters(p1).slice(0, 8);
    for (const c of some) h.sim.control.setState(c.uid, "Running");
    const t0 = h.clock.now();
    await h.poller.runCycle();
    await h.sender.drainAll();
    expect(h.posts("C1")).toHaveLength(10);
    expect(h.posts("C2")).toHaveLength(10);
    expect(h.clock.now() - t0).toBeGreaterThanOrEqual(7_000);
    expect(rejected).toHaveLength(0);
    expect(h.fake.calls.filter((c) => c.method === "chat.postMessage")).toHaveLength(20);
  });

  it("with the bot's burst, one poll's cards reach the channel at once; a 429 brings back one a second", async () => {
    h = await startNotifyHarness({
      clusters: 60,
      projects: 1,
      seed: 11,
      sender: { burst: 10 },
      // the test is Slack's rate limit itself: its handler takes a burst of eight and answers
      // the 429 it means to, on the injected clock; the fake's own tiers would refuse the same
      // calls a second time after the handler recorded them as taken
      fakeSlack: { lax: ["rate"], reason: "the test scripts Slack's burst and 429 itself" },
    });
    await h.subs.add({ channel: "C1", kind: "clusters", createdBy: "U1" });
    const harness = h;
    const sentAt: number[] = [];
    let refuseNext = false;
    harness.fake.on("chat.postMessage", () => {
      if (refuseNext) {
        refuseNext = false;
        return {
          status: 429,
          headers: { "retry-after": "2" },
          body: { ok: false, error: "ratelimited" },
        };
      }
      sentAt.push(harness.clock.now());
      return undefined;
    });
    await h.cycle();
    const running = h.sim.control.clusters().filter((c) => c.state === "Running");
    for (const c of running.slice(0, 8)) h.sim.control.setState(c.uid, "Upgrading");
    const t0 = h.clock.now();
    await h.cycle();
    const wave = sentAt.slice(1);
    expect(wave).toHaveLength(8);
    // all eight within the same second, not spread over eight
    expect(Math.max(...wave) - t0).toBeLessThan(1000);
    const order = h
      .posts("C1")
      .slice(1)
      .map((post) => running.findIndex((c) => textOf(post).includes(c.name)));
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);

    // Slack says "too fast": the next messages wait as told, then go one a second
    refuseNext = true;
    for (const c of running.slice(8, 12)) h.sim.control.setState(c.uid, "Upgrading");
    const t1 = h.clock.now();
    await h.cycle();
    const after = sentAt.slice(9);
    expect(after).toHaveLength(4);
    expect(after[0]! - t1).toBeGreaterThanOrEqual(2000);
    for (let i = 1; i < after.length; i++) {
      expect(after[i]! - after[i - 1]!).toBeGreaterThanOrEqual(1000);
    }
  });

  it("429 with Retry-After and 5xx → everything delivered, in order, no duplicates", async () => {
    h = await startNotifyHarness({ clusters: 30, projects: 1, seed: 5 });
    await h.subs.add({ channel: "C1", kind: "clusters", createdBy: "U1" });
    const harness = h;
    const accepted: Array<{ text: string; at: number }> = [];
    const refusedAt: number[] = [];
    let n = 0;
    const failures: Record<number, "429" | "500" | "503" | "internal"> = {
      2: "429",
      3: "429",
      5: "500",
      6: "503",
      9: "internal",
      12: "429",
    };
    harness.fake.on("chat.postMessage", (call) => {
      n += 1;
      const failure = failures[n];
      const now = harness.clock.now();
      if (failure === "429") {
        refusedAt.push(now);
        return {
          status: 429,
          headers: { "retry-after": "3" },
          body: { ok: false, error: "ratelimited" },
        };
      }
      if (failure === "500" || failure === "503")
        return { status: Number(failure), body: "upstream" };
      if (failure === "internal") return { body: { ok: false, error: "internal_error" } };
      accepted.push({ text: textOf(call.body), at: now });
      return undefined;
    });
    await h.cycle();
    const targets = h.sim.control
      .clusters()
      .filter((c) => c.state === "Running")
      .slice(0, 5);
    for (const c of targets) h.sim.control.setState(c.uid, "Upgrading");
    await h.cycle();
    for (const c of targets) h.sim.control.setState(c.uid, "Running");
    await h.cycle();

    // 1 summary + 5 cards + 5 thread lines, each exactly once, in the order they were produced
    expect(accepted).toHaveLength(11);
    expect(new Set(accepted.map((a) => a.text)).size).toBe(11);
    const order = accepted.slice(1).map((a) => targets.findIndex((t) => a.text.includes(t.name)));
    expect(order).toEqual([0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
    expect(h.updates("C1")).toHaveLength(5);
    // Retry-After honoured: nothing in the channel sooner than 3 s after a 429
    for (const at of refusedAt) {
      const next = accepted.find((a) => a.at > at) ?? accepted.find((a) => a.at >= at);
      expect(next!.at - at).toBeGreaterThanOrEqual(3_000);
    }
    expect(h.sender.metrics().rateLimited).toBe(3);
    expect(h.sender.metrics().retries).toBe(3);
  });
});
