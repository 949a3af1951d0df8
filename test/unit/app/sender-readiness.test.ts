import { describe, expect, it } from "vitest";
import { senderReadiness } from "../../../src/app/sender-readiness.ts";
import { ManualClock } from "../../../src/clock.ts";
import { createHealth } from "../../../src/http/health.ts";
import { Metrics } from "../../../src/http/metrics.ts";
import type { SenderStatus } from "../../../src/notify/delivery/outbox-sender.ts";

describe("readiness of the notification sender", () => {
  it("reports a paused sender as degraded with Slack's reason and when it tries again", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
    let status: SenderStatus = { paused: false };
    const probe = senderReadiness({ status: () => status }, clock);
    expect(probe()).toEqual({ ok: true });
    status = {
      paused: true,
      reason: "invalid_auth",
      since: clock.now() - 90_000,
      nextProbeAt: clock.now() + 30_000,
    };
    const result = probe();
    expect(result.ok).toBe(false);
    expect(result.reason).toContain("invalid_auth");
    expect(result.reason).toContain("paused");
    expect(result.reason).toContain("90 s");
    expect(result.reason).toContain("30 s");

    const health = createHealth({
      metrics: new Metrics({ defaultMetrics: false }),
      advisory: ["notify_sender"],
      probes: { notify_sender: probe },
    });
    const report = await health.readiness();
    expect(report.ready).toBe(true);
    expect(report.degraded).toEqual(["notify_sender"]);
    expect(report.checks.notify_sender).toContain("invalid_auth");
  });
});
