import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { RequestPacer } from "../../../src/palette/limiter.ts";
import { prefixLabel, ruleFor } from "../../../src/palette/rate-limits.ts";

function pacedLimiter(burst?: number) {
  const clock = new ManualClock(0);
  const slept: number[] = [];
  const limiter = new RequestPacer({
    clock,
    burst,
    headroom: 1,
    sleep: async (ms) => {
      slept.push(ms);
    },
  });
  return { clock, slept, limiter };
}

describe("ruleFor", () => {
  it("picks the most specific documented prefix", () => {
    expect(ruleFor("/v1/spectroclusters/abc/assets/kubeconfig")).toMatchObject({
      pattern: "/v1/spectroclusters/*/assets",
      perSecond: 10,
    });
    expect(ruleFor("/v1/spectroclusters/abc?ProjectUid=p")).toMatchObject({ perSecond: 50 });
    expect(ruleFor("/v1/spectroclusters/aws")).toMatchObject({ pattern: "/v1/spectroclusters" });
    expect(ruleFor("/v1/dashboard/spectroclusters/search?limit=50").pattern).toBe("/v1/dashboard");
    expect(ruleFor("/v1/auth/refresh/tok").perSecond).toBe(10);
    expect(ruleFor("/v1/cloudconfigs/aws/u/machinePools/p/machines").perSecond).toBe(50);
  });

  it("keys undocumented prefixes by two segments at the stricter rate", () => {
    expect(ruleFor("/v1/clustergroups/hostCluster")).toEqual({
      pattern: "/v1/clustergroups",
      perSecond: 10,
    });
  });

  it("labels the assets prefix readably", () => {
    expect(prefixLabel(ruleFor("/v1/spectroclusters/x/assets/kubeconfig"))).toBe(
      "/v1/spectroclusters/{uid}/assets",
    );
  });
});

describe("RequestPacer", () => {
  it("spaces a burst on a 10/s prefix 100 ms apart", () => {
    const { limiter } = pacedLimiter();
    const waits = Array.from({ length: 5 }, () => limiter.reserve("/v1/dashboard/projects"));
    expect(waits).toEqual([0, 100, 200, 300, 400]);
  });

  it("spaces a 50/s prefix 20 ms apart and keeps prefixes apart", () => {
    const { limiter } = pacedLimiter();
    expect(limiter.reserve("/v1/spectroclusters/a")).toBe(0);
    expect(limiter.reserve("/v1/spectroclusters/b")).toBe(20);
    expect(limiter.reserve("/v1/dashboard/x")).toBe(0);
    // the assets prefix has its own 10/s bucket even though it sits under /v1/spectroclusters
    expect(limiter.reserve("/v1/spectroclusters/a/assets/kubeconfig")).toBe(0);
    expect(limiter.reserve("/v1/spectroclusters/a/assets/kubeconfig")).toBe(100);
  });

  it("refills while idle, up to the burst", () => {
    const { clock, limiter } = pacedLimiter(3);
    for (let i = 0; i < 3; i++) expect(limiter.reserve("/v1/events/x")).toBe(0);
    expect(limiter.reserve("/v1/events/x")).toBe(100);
    clock.advance(10_000);
    expect([1, 2, 3].map(() => limiter.reserve("/v1/events/x"))).toEqual([0, 0, 0]);
    expect(limiter.reserve("/v1/events/x")).toBe(100);
  });

  it("never lets more than the documented count into any one-second window", () => {
    const clock = new ManualClock(0);
    const sentAt: number[] = [];
    const limiter = new RequestPacer({ clock, headroom: 1, sleep: async () => {} });
    // a sequential caller whose waits move the clock, as real time would
    for (let i = 0; i < 60; i++) {
      const wait = limiter.reserve("/v1/dashboard/spectroclusters/search");
      clock.advance(wait);
      sentAt.push(clock.now());
    }
    for (const start of sentAt) {
      const inWindow = sentAt.filter((t) => t >= start && t < start + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(10);
    }
    expect(sentAt.at(-1)).toBe(5900);
  });

  it("keeps 2% headroom below the documented rate by default", () => {
    const limiter = new RequestPacer({ clock: new ManualClock(0), sleep: async () => {} });
    expect([1, 2, 3].map(() => limiter.reserve("/v1/dashboard/x"))).toEqual([0, 103, 205]);
  });

  it("pushes the next slot back when a wake-up comes late", async () => {
    const clock = new ManualClock(0);
    const limiter = new RequestPacer({
      clock,
      headroom: 1,
      // the timer fires 30 ms late
      sleep: async (ms) => clock.advance(ms + 30),
    });
    expect(await limiter.acquire("/v1/events/a")).toBe(0);
    expect(await limiter.acquire("/v1/events/a")).toBe(130);
    expect(clock.now()).toBe(130);
    // 100 ms after the late send, not after the booked one
    expect(limiter.reserve("/v1/events/a")).toBe(100);
  });

  it("acquire sleeps for the reserved wait", async () => {
    const { limiter, slept } = pacedLimiter();
    await limiter.acquire("/v1/projects/alerts");
    await limiter.acquire("/v1/projects/alerts");
    expect(slept).toEqual([100]);
  });
});

describe("RequestPacer priorities", () => {
  /** a pacer whose sleeps move a hand-held clock, as real time would */
  function timedPacer() {
    const clock = new ManualClock(0);
    let pending: Array<{ until: number; wake: () => void }> = [];
    const pacer = new RequestPacer({
      clock,
      headroom: 1,
      sleep: (ms) => new Promise<void>((wake) => pending.push({ until: clock.now() + ms, wake })),
    });
    /** moves time to the next sleeper's wake-up and wakes it */
    const step = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      pending.sort((a, b) => a.until - b.until);
      const next = pending.shift();
      if (!next) return false;
      clock.set(Math.max(clock.now(), next.until));
      next.wake();
      await new Promise((resolve) => setImmediate(resolve));
      return true;
    };
    const drain = async () => {
      while (await step()) {}
      pending = [];
    };
    return { clock, pacer, step, drain };
  }

  it("lets an incremental poll's requests go before a reconciliation's queued ones", async () => {
    const { pacer, drain } = timedPacer();
    const sent: string[] = [];
    const path = "/v1/dashboard/spectroclusters/search";
    const reconciliation = Array.from({ length: 6 }, (_, page) =>
      pacer.acquire(path, "bulk").then(() => sent.push(`reconcile ${page}`)),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const poll = Array.from({ length: 3 }, (_, page) =>
      pacer.acquire(path, "background").then(() => sent.push(`poll ${page}`)),
    );
    await drain();
    await Promise.all([...reconciliation, ...poll]);
    // one reconciliation page holds the booking when the poll arrives; the poll's three go next
    expect(sent.slice(0, 5)).toEqual(["reconcile 0", "reconcile 1", "poll 0", "poll 1", "poll 2"]);
    expect(sent.filter((line) => line.startsWith("reconcile"))).toEqual(
      Array.from({ length: 6 }, (_, page) => `reconcile ${page}`),
    );
  });

  it("lets a command's request go behind at most one queued poll request", async () => {
    const { pacer, drain } = timedPacer();
    const sent: string[] = [];
    const path = "/v1/dashboard/spectroclusters/search";
    // a poll queues ten pages at once
    const poll = Array.from({ length: 10 }, (_, page) =>
      pacer.acquire(path, "background").then(() => sent.push(`poll ${page}`)),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const command = pacer.acquire(path, "interactive").then(() => sent.push("command"));
    await drain();
    await Promise.all([...poll, command]);
    expect(sent.indexOf("command")).toBeLessThanOrEqual(2);
    // the poll still gets every page, in order, at the prefix's rate
    expect(sent.filter((line) => line.startsWith("poll"))).toEqual(
      Array.from({ length: 10 }, (_, page) => `poll ${page}`),
    );
  });

  it("keeps background requests at the documented rate, one booking at a time", async () => {
    const { clock, pacer, drain } = timedPacer();
    const sentAt: number[] = [];
    const poll = Array.from({ length: 20 }, () =>
      pacer.acquire("/v1/dashboard/x", "background").then(() => sentAt.push(clock.now())),
    );
    await drain();
    await Promise.all(poll);
    for (const start of sentAt) {
      expect(sentAt.filter((t) => t >= start && t < start + 1000).length).toBeLessThanOrEqual(10);
    }
    expect(sentAt.at(-1)).toBe(1900);
  });
});
