import { describe, expect, it } from "vitest";
import { paletteReadiness } from "../../../src/app/palette-readiness.ts";
import { emptyPollerMetrics, type PollerMetrics } from "../../../src/notify/poll/poll.ts";

function poller(state: Partial<PollerMetrics>) {
  const metrics: PollerMetrics = { ...emptyPollerMetrics(), ...state };
  return {
    metrics: () => metrics,
    set: (next: Partial<PollerMetrics>) => Object.assign(metrics, next),
  };
}

const request = (status: number) =>
  ({
    type: "request",
    method: "GET",
    prefix: "/v1/dashboard",
    endpoint: "GET /v1/x",
    status,
    durationMs: 1,
    waitedMs: 0,
  }) as const;

describe("paletteReadiness", () => {
  it("is not ready before the first good poll, then degraded (not out) on a failed one", () => {
    const p = poller({});
    const health = paletteReadiness(p);
    expect(health.credentials()).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/first successful poll/),
    });
    p.set({ cycles: 1, lastCycleOk: true, lastSuccessAt: "t" });
    expect(health.credentials()).toEqual({ ok: true });
    expect(health.poll()).toEqual({ ok: true });
    p.set({ cycles: 2, lastCycleOk: false, lastError: "Palette had an internal error" });
    expect(health.credentials()).toEqual({ ok: true });
    expect(health.poll()).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/internal error/),
    });
  });

  it("takes the bot out while Palette rejects its credential, and back when it accepts it", () => {
    const p = poller({ cycles: 1, lastCycleOk: true, lastSuccessAt: "t" });
    const health = paletteReadiness(p);
    health.observe(request(401));
    expect(health.credentials()).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/401.*PALETTE_API_KEY/),
    });
    health.observe(request(503));
    expect(health.credentials().ok).toBe(false);
    health.observe(request(200));
    expect(health.credentials()).toEqual({ ok: true });
    health.observe({ type: "login", ok: false, reason: "unauthorized" });
    expect(health.credentials()).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/login failed/),
    });
    health.observe({ type: "login", ok: true, reason: "refresh failed" });
    expect(health.credentials()).toEqual({ ok: true });
  });
});

describe("paletteReadiness with a leader lease", () => {
  it("does not wait for a poll on a follower: it serves commands, the leader polls", () => {
    const p = poller({});
    let leadership = { leading: false, followedBefore: true };
    const health = paletteReadiness(p, () => leadership);
    expect(health.credentials()).toEqual({ ok: true });
    expect(health.poll()).toEqual({ ok: true });
    // a follower that takes over stays ready while its first poll runs
    leadership = { leading: true, followedBefore: true };
    expect(health.credentials()).toEqual({ ok: true });
    // a rejected credential takes any replica out
    health.observe(request(401));
    expect(health.credentials()).toMatchObject({ ok: false });
  });

  it("waits for the first poll on a replica that led from its start, as with one replica", () => {
    const health = paletteReadiness(poller({}), () => ({ leading: true, followedBefore: false }));
    expect(health.credentials()).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/first successful poll/),
    });
  });
});
