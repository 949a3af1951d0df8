import { describe, expect, it } from "vitest";
import { formatTook, type ScalePlan, scaleProgress } from "../../../src/model/change.ts";
import { blockingFreeze, type Freeze, freezeUntil } from "../../../src/model/freeze.ts";
import { machinePoolUpdateBody } from "../../../src/palette/machine-pool-body.ts";
import { freezeRefusal } from "../../../src/views/change.ts";

const NOW = Date.parse("2026-11-25T10:00:00Z");

describe("freezeUntil", () => {
  it("reads lengths, days and zoned times", () => {
    expect(freezeUntil("4h", NOW)).toEqual({ ok: true, untilMs: NOW + 4 * 3_600_000 });
    expect(freezeUntil("90m", NOW)).toEqual({ ok: true, untilMs: NOW + 90 * 60_000 });
    expect(freezeUntil("2026-12-01", NOW)).toEqual({
      ok: true,
      untilMs: Date.parse("2026-12-01T00:00:00Z"),
    });
    expect(freezeUntil("2026-11-25T18:00+01:00", NOW)).toEqual({
      ok: true,
      untilMs: Date.parse("2026-11-25T17:00:00Z"),
    });
  });

  it("refuses the past, the too long, a time without its zone, and nonsense", () => {
    expect(freezeUntil("2026-11-24", NOW).ok).toBe(false);
    expect(freezeUntil("31d", NOW)).toEqual({
      ok: false,
      problem: "A freeze lasts at most 30 days.",
    });
    expect(freezeUntil("2026-11-25T18:00", NOW).ok).toBe(false);
    expect(freezeUntil("2026-02-30", NOW).ok).toBe(false);
    expect(freezeUntil("soon", NOW).ok).toBe(false);
  });
});

describe("blockingFreeze", () => {
  const freeze = (id: number, scope: Freeze["scope"], untilMs: number): Freeze => ({
    id,
    scope,
    untilMs,
    reason: "r",
    frozenBy: "U123ABC",
    createdAt: NOW,
  });

  it("covers by cluster, by project and all, the longest first; an ended freeze covers nothing", () => {
    const freezes = [
      freeze(1, { kind: "cluster", uid: "c1", name: "web" }, NOW + 1_000),
      freeze(2, { kind: "project", uid: "p1" }, NOW + 5_000),
      freeze(3, { kind: "all" }, NOW - 1),
    ];
    expect(blockingFreeze(freezes, { clusterUid: "c1", projectUid: "p1" }, NOW)?.id).toBe(2);
    expect(blockingFreeze(freezes, { clusterUid: "c1", projectUid: "p2" }, NOW)?.id).toBe(1);
    expect(blockingFreeze(freezes, { clusterUid: "c9", projectUid: "p2" }, NOW)).toBeUndefined();
    expect(blockingFreeze(freezes, { projectUid: "p1" }, NOW)?.id).toBe(2);
  });

  it("a refusal escapes the reason, so a freeze cannot ping a channel", () => {
    const refusal = freezeRefusal(freeze(4, { kind: "all" }, NOW + 1_000));
    expect(refusal.mrkdwn).toContain("<@U123ABC>");
    const loud = freezeRefusal({
      ...freeze(5, { kind: "all" }, NOW + 1_000),
      reason: "<!channel> now",
    });
    expect(loud.mrkdwn).not.toContain("<!channel>");
    expect(loud.mrkdwn).toContain("&lt;!channel&gt;");
    // the fallback text is shown in notifications and rendered as mrkdwn there too
    expect(loud.text).not.toContain("<!channel>");
    expect(loud.text).toContain("&lt;!channel&gt;");
    // the plain reason is what a card or a form escapes itself (escaping it here would show &amp;lt;)
    expect(loud.reason).toContain("<!channel> now");
  });
});

describe("scale plans", () => {
  const plan: ScalePlan = {
    verb: "scale",
    cluster: { uid: "c1", name: "web", projectUid: "p1", cloudType: "aws", state: "Running" },
    configUid: "cfg",
    pool: "workers",
    from: 3,
    to: 5,
  };

  it("is done when every machine of the new size runs", () => {
    expect(scaleProgress(plan, { running: 3, total: 5, failed: 0 })).toEqual({
      kind: "working",
      line: "3 of 5 Running",
    });
    expect(scaleProgress(plan, { running: 5, total: 5, failed: 0 }).kind).toBe("done");
    expect(scaleProgress(plan, { running: 4, total: 5, failed: 1 }).kind).toBe("failed");
    expect(formatTook(252_000)).toBe("4 m 12 s");
  });

  it("sends the pool back as read, with only its size changed", () => {
    const read = {
      name: "workers",
      size: 3,
      minSize: 3,
      maxSize: 3,
      labels: ["worker"],
      isControlPlane: false,
      instanceType: "m5.xlarge",
      azs: ["us-east-1a"],
      taints: [{ key: "k", value: "v", effect: "NoSchedule" }],
      subnetIds: { "us-east-1a": "subnet-1" },
    };
    expect(machinePoolUpdateBody("aws", read, 5)).toEqual({
      cloudConfig: { instanceType: "m5.xlarge", azs: ["us-east-1a"] },
      poolConfig: {
        name: "workers",
        size: 5,
        minSize: 5,
        maxSize: 5,
        labels: ["worker"],
        isControlPlane: false,
        taints: [{ key: "k", value: "v", effect: "NoSchedule" }],
      },
    });
    const autoscaled = machinePoolUpdateBody("aws", { ...read, minSize: 2, maxSize: 8 }, 5);
    expect(autoscaled.poolConfig).toMatchObject({ size: 5, minSize: 2, maxSize: 8 });
  });
});
